#pragma once
// Spatial sort at rebuild, the device twin of sort_atoms_spatially
// (src/neighbor/verlet_builder.hpp): local atoms reordered by cell so that
// atoms near in space are near in memory (coalesced neighbour reads). The
// ghosts are dropped, as on the CPU: they are rebuilt from the new order.
#include <thrust/copy.h>
#include <thrust/gather.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#include "device/cell_bins.hpp"
#include "device/device_atoms.hpp"
#include "domain/box.hpp"

namespace tessera::device {
inline namespace TESSERA_DEVICE_SYSTEM_NS {

class SpatialSorter {
 public:
  explicit SpatialSorter(DeviceStream s) : stream_(s) {}

  // Everything the sort needs lives in the stage scratch (exec_policy.hpp),
  // 12 bytes per atom in one take: the new order (an int per atom), then
  // each atom's cell while the order is sorted, and each field's gathered
  // values (up to 8 bytes per atom) after that.
  void sort(DeviceAtoms& a, const SubDomain& sd, double cell_size) {
    const CellGrid g = CellGrid::cover(sd.lo, sd.hi, cell_size);
    const int n = a.nlocal;
    const std::size_t half = (static_cast<std::size_t>(n) + 1) / 2;  // words of the order
    const auto words = stage_scratch<std::uint64_t>(stream_, half + static_cast<std::size_t>(n));
    std::uint64_t* const w = thrust::raw_pointer_cast(words);
    const thrust::device_ptr<int> order(reinterpret_cast<int*>(w));
    const thrust::device_ptr<int> cell(reinterpret_cast<int*>(w + half));
    thrust::transform(policy(stream_), thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(n), cell,
                      detail::CellOf{g, raw(a.x), raw(a.y), raw(a.z)});
    thrust::sequence(policy(stream_), order, order + n);
    // Stable, as the CPU's counting sort: increasing index within a cell.
    thrust::stable_sort_by_key(policy(stream_), cell, cell + n, order);
    a.nghost = 0;
    for_each_field(a, kAnyField, [&](auto& v, FieldInfo) { permute(v, order, n, w + half); });
  }

 private:
  // v becomes v gathered by `order`, cut to the local atoms: gathered into
  // the scratch words and copied back, so every field keeps its own storage
  // (with room for the ghosts) and a settled run's sort allocates nothing.
  // Swapping storage with a scratch array would save the copy but pass the
  // local-only fields' shorter storage on to the ghost fields, which would
  // then grow again at every rebuild.
  template <class T>
  void permute(dvec<T>& v, thrust::device_ptr<int> order, int n, std::uint64_t* scratch_words) {
    static_assert(sizeof(T) <= sizeof(std::uint64_t) && alignof(T) <= alignof(std::uint64_t));
    const thrust::device_ptr<T> scratch(reinterpret_cast<T*>(scratch_words));
    thrust::gather(policy(stream_), order, order + n, v.begin(), scratch);
    resize(stream_, v, static_cast<std::size_t>(n));  // shorter: bookkeeping only
    thrust::copy(policy(stream_), scratch, scratch + n, v.begin());
  }

  DeviceStream stream_;
};

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
