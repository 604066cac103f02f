#pragma once
// Spatial sort at rebuild, the device twin of sort_atoms_spatially
// (src/neighbor/verlet_builder.hpp): local atoms reordered by cell so that
// atoms near in space are near in memory (coalesced neighbour reads). The
// ghosts are dropped, as on the CPU: they are rebuilt from the new order.
#include <thrust/gather.h>

#include "device/cell_bins.hpp"
#include "device/device_atoms.hpp"
#include "domain/box.hpp"

namespace tessera::device {
inline namespace TESSERA_DEVICE_SYSTEM_NS {

class SpatialSorter {
 public:
  explicit SpatialSorter(DeviceStream s) : stream_(s) {}

  void sort(DeviceAtoms& a, const SubDomain& sd, double cell_size) {
    const CellGrid g = CellGrid::cover(sd.lo, sd.hi, cell_size);
    const int n = a.nlocal;
    bins_.bin(stream_, g, raw(a.x), raw(a.y), raw(a.z), n);
    a.nghost = 0;
    for_each_field(a, kAnyField, [&](auto& v, FieldInfo) { permute(v, scratch_.of(v)); });
    bins_.release_all(stream_);  // scratch: not held next to the list
  }

 private:
  // v becomes v gathered by the bin order, cut to the local atoms, in
  // storage of exactly that size: the old storage (with room for ghosts) is
  // given back (once the gather has read it), not passed on to the next array.
  template <class T>
  void permute(dvec<T>& v, dvec<T>& scratch) {
    resize_exact(stream_, scratch, bins_.atoms.size());
    thrust::gather(policy(stream_), bins_.atoms.begin(), bins_.atoms.end(), v.begin(), scratch.begin());
    replace_with(stream_, v, scratch);
  }

  DeviceStream stream_;
  DeviceCellBins bins_;
  FieldScratch scratch_;
};

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
