#pragma once
// Periodic ghosts on the device: PeriodicGhosts (src/domain/periodic_ghosts.hpp)
// with Thrust's algorithms around the same per-atom functors
// (src/domain/ghost_ops.hpp): staged x, then y, then z, each stage also
// imaging the ghosts of the earlier stages, ghosts in the CPU's order (by
// source index, the image below the box before the one above). Only the
// stage's selection (copy_if here, a scan on the CPU) differs.
#include <thrust/copy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/transform_reduce.h>

#include <climits>
#include <stdexcept>

#include <string>
#include <vector>

#include "device/device_atoms.hpp"
#include "domain/box.hpp"
#include "domain/ghost_ops.hpp"

namespace tessera::device {
inline namespace TESSERA_DEVICE_SYSTEM_NS {

namespace detail {

// How many ghosts local atom i makes: near a face along an axis, it is
// imaged across it, and so are its images along the earlier axes (which
// share its other coordinates), as NearFace decides stage by stage.
struct GhostsOf {
  SubDomain sd;
  double reach;
  const double* x;
  const double* y;
  const double* z;
  TESSERA_HD long operator()(int i) const {
    const double p[3] = {x[i], y[i], z[i]};
    long images = 1;
    for (int d = 0; d < 3; ++d)
      images *= 1 + (p[d] >= sd.hi[d] - reach) + (p[d] < sd.lo[d] + reach);
    return images - 1;
  }
};

}  // namespace detail

class DeviceGhosts {
 public:
  explicit DeviceGhosts(DeviceStream s) : stream_(s) {}

  // Wraps local atoms back into the box, updating image flags.
  void wrap(DeviceAtoms& a, const Box& box) const {
    for_each_index(stream_, a.nlocal,
                   WrapAtom{box, {raw(a.x), raw(a.y), raw(a.z)}, {raw(a.ix), raw(a.iy), raw(a.iz)}});
  }

  // Creates the ghosts of the current local positions within `reach` of a face.
  void build(DeviceAtoms& a, const SubDomain& sd, double reach) {
    // The ghosts' number first, so that every array is sized once, exactly.
    const long total = thrust::transform_reduce(
        policy(stream_), thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(a.nlocal),
        detail::GhostsOf{sd, reach, raw(a.x), raw(a.y), raw(a.z)}, 0L, thrust::plus<long>());
    // Each stage picks from two candidates per atom, counted in int.
    if (total > INT_MAX / 2 - a.nlocal)
      throw std::invalid_argument("device ghosts: more atoms on one rank than an int can index");
    a.reserve_ghosts(stream_, static_cast<int>(total));
    a.resize_ghosts(stream_, 0);
    reserve(stream_, source_, total);
    reserve(stream_, shift_, 3 * total);
    resize(stream_, source_, 0);
    resize(stream_, shift_, 0);
    // The candidates one stage keeps, in the stage scratch: room for the
    // last stage's, the most.
    const auto picked = stage_scratch<int>(stream_, 2 * (static_cast<std::size_t>(a.nlocal) + total));
    for (int d = 0; d < 3; ++d) {
      const int n = a.nall();
      const dvec<double>& v = d == 0 ? a.x : (d == 1 ? a.y : a.z);
      const auto end =
          thrust::copy_if(policy(stream_), thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(2 * n),
                          picked, NearFace{raw(v), sd.lo[d], sd.hi[d], reach});
      const int m = static_cast<int>(end - picked);
      const int nghost = a.nghost;
      a.resize_ghosts(stream_, nghost + m);
      resize(stream_, source_, static_cast<std::size_t>(nghost) + m);
      resize(stream_, shift_, 3 * (static_cast<std::size_t>(nghost) + m));
      for_each_index(stream_, m,
                     MakeGhost{thrust::raw_pointer_cast(picked), n, a.nlocal, d, sd.global.length(d), raw(a.x), raw(a.y), raw(a.z),
                               raw(source_), raw(shift_)});
    }
    copy_unshifted_from_sources(
        a, a.nlocal, a.nghost, raw(source_), [this](int n, const auto& f) { for_each_index(stream_, n, f); },
        [](auto& v) { return raw(v); });
  }

  // Moves the ghosts with their source atoms (every step between rebuilds).
  void refresh(DeviceAtoms& a, const Box& box) const { refresh(a, box, stream_); }
  // The same, queued on stream `on` (the halo stream, overlapped with forces).
  void refresh(DeviceAtoms& a, const Box& box, const DeviceStream& on) const {
    for_each_index(on, a.nghost,
                   MoveGhost{a.nlocal,
                                     {box.length(0), box.length(1), box.length(2)},
                                     raw(source_),
                                     raw(shift_),
                                     raw(a.x),
                                     raw(a.y),
                                     raw(a.z)});
  }

  // Any registered quantity to the ghosts (a force's intermediate between
  // its passes, forces/force.hpp): positions as refresh() moves them, any
  // other quantity copied from the ghost's source unshifted.
  void forward(DeviceAtoms& a, const std::string& quantity, const Box& box, const DeviceStream& on) const {
    forward(a, forwardable_arrays(a, quantity.c_str(), [](dvec<double>& d) { return raw(d); }),
            moves_with_image(quantity.c_str()), box, on);
  }
  // The same for `fields` of `a` (locals, then ghosts): positions when
  // `periodic`, otherwise copied unshifted.
  void forward(DeviceAtoms& a, const std::vector<double*>& fields, bool periodic, const Box& box,
               const DeviceStream& on) const {
    if (periodic) return refresh(a, box, on);
    for (double* v : fields) for_each_index(on, a.nghost, CopyFromSource<double>{a.nlocal, raw(source_), v});
  }

  // Per ghost: the local atom it images and its shift in box lengths (3 each).
  const dvec<int>& source() const { return source_; }
  const dvec<signed char>& shift() const { return shift_; }

 private:
  DeviceStream stream_;
  dvec<int> source_;
  dvec<signed char> shift_;
};

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
