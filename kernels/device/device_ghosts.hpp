#pragma once
// Periodic ghosts on the device, with the semantics of PeriodicGhosts
// (src/domain/periodic_ghosts.hpp): staged x, then y, then z, each stage
// also imaging the ghosts of the earlier stages. Ghosts come out in the CPU's
// order too (by source index, the image below the box before the one above),
// so the two halos can be compared slot by slot.
#include <thrust/copy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/transform_reduce.h>

#include <climits>
#include <stdexcept>

#include <string>
#include <vector>

#include "device/device_atoms.hpp"
#include "domain/box.hpp"

namespace tessera::device {
inline namespace TESSERA_DEVICE_SYSTEM_NS {

namespace detail {

// Back into [lo, hi) on each axis, counting the image; one image at most, as
// on the CPU (the step guard stops any atom that moves more than the skin).
struct WrapAtom {
  Box box;
  double* pos[3];
  int* img[3];
  TESSERA_HD void operator()(int i) const {
    for (int d = 0; d < 3; ++d) {
      const double lo = box.lo[d], hi = box.hi[d], len = box.length(d);
      double& p = pos[d][i];
      if (p >= hi) {
        p -= len;
        if (p < lo) p = lo;  // rounding of hi - len
        ++img[d][i];
      } else if (p < lo) {
        p += len;
        if (p >= hi) p = lo;  // -tiny + len rounds to len
        --img[d][i];
      }
    }
  }
};

// Candidate k of a stage is atom k / 2 imaged down (k even: it is near the
// upper face) or up (k odd: near the lower face), the CPU's loop order.
struct NearFace {
  const double* v;
  double lo, hi, reach;
  TESSERA_HD bool operator()(int k) const {
    const double p = v[k >> 1];
    return (k & 1) ? p < lo + reach : p >= hi - reach;
  }
};

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

// Writes the ghosts of one stage: candidate picked[m] becomes atom first + m.
struct MakeGhost {
  const int* picked;
  int first;
  int nlocal;
  int d;
  double len;
  double* x;
  double* y;
  double* z;
  AtomId* id;
  int* type;
  int* source;         // per ghost: the local atom it images
  signed char* shift;  // per ghost, 3 entries: box lengths added
  TESSERA_HD void operator()(int m) const {
    const int k = picked[m];
    const int i = k >> 1;
    const int dir = (k & 1) ? 1 : -1;
    const int a = first + m, g = a - nlocal;
    const bool is_ghost = i >= nlocal;
    const int gi = is_ghost ? i - nlocal : 0;
    source[g] = is_ghost ? source[gi] : i;
    for (int e = 0; e < 3; ++e) shift[3 * g + e] = is_ghost ? shift[3 * gi + e] : 0;
    shift[3 * g + d] = static_cast<signed char>(shift[3 * g + d] + dir);
    x[a] = x[i] + (d == 0 ? dir * len : 0.0);
    y[a] = y[i] + (d == 1 ? dir * len : 0.0);
    z[a] = z[i] + (d == 2 ? dir * len : 0.0);
    id[a] = id[i];
    type[a] = type[i];
  }
};

// Ghost g follows its source; sources are locals, so one pass does every stage.
struct MoveGhost {
  int nlocal;
  double len[3];
  const int* source;
  const signed char* shift;
  double* x;
  double* y;
  double* z;
  TESSERA_HD void operator()(int g) const {
    const int s = source[g], a = nlocal + g;
    x[a] = x[s] + shift[3 * g] * len[0];
    y[a] = y[s] + shift[3 * g + 1] * len[1];
    z[a] = z[s] + shift[3 * g + 2] * len[2];
  }
};

// Ghost g takes its source's value of a quantity that no image shifts.
struct CopyFromSource {
  int nlocal;
  const int* source;
  double* v;
  TESSERA_HD void operator()(int g) const { v[nlocal + g] = v[source[g]]; }
};

}  // namespace detail

class DeviceGhosts {
 public:
  explicit DeviceGhosts(DeviceStream s) : stream_(s) {}

  // Wraps local atoms back into the box, updating image flags.
  void wrap(DeviceAtoms& a, const Box& box) const {
    for_each_index(stream_, a.nlocal,
                   detail::WrapAtom{box, {raw(a.x), raw(a.y), raw(a.z)}, {raw(a.ix), raw(a.iy), raw(a.iz)}});
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
    a.resize_ghosts(stream_, static_cast<int>(total));
    a.resize_ghosts(stream_, 0);
    resize_exact(stream_, source_, total);
    resize_exact(stream_, shift_, 3 * total);
    resize_exact(stream_, source_, 0);
    resize_exact(stream_, shift_, 0);
    resize_exact(stream_, picked_, 2 * (static_cast<std::size_t>(a.nlocal) + total));
    for (int d = 0; d < 3; ++d) {
      const int n = a.nall();
      resize_exact(stream_, picked_, 2 * static_cast<std::size_t>(n));
      const dvec<double>& v = d == 0 ? a.x : (d == 1 ? a.y : a.z);
      const auto end =
          thrust::copy_if(policy(stream_), thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(2 * n),
                          picked_.begin(), detail::NearFace{raw(v), sd.lo[d], sd.hi[d], reach});
      const int m = static_cast<int>(end - picked_.begin());
      const int nghost = a.nghost;
      a.resize_ghosts(stream_, nghost + m);
      resize_exact(stream_, source_, static_cast<std::size_t>(nghost) + m);
      resize_exact(stream_, shift_, 3 * (static_cast<std::size_t>(nghost) + m));
      for_each_index(stream_, m,
                     detail::MakeGhost{raw(picked_), n, a.nlocal, d, sd.global.length(d), raw(a.x), raw(a.y), raw(a.z),
                                       raw(a.id), raw(a.type), raw(source_), raw(shift_)});
    }
    release(stream_, picked_);
  }

  // Moves the ghosts with their source atoms (every step between rebuilds).
  void refresh(DeviceAtoms& a, const Box& box) const { refresh(a, box, stream_); }
  // The same, queued on stream `on` (the halo stream, overlapped with forces).
  void refresh(DeviceAtoms& a, const Box& box, const DeviceStream& on) const {
    for_each_index(on, a.nghost,
                   detail::MoveGhost{a.nlocal,
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
    for (double* v : fields) for_each_index(on, a.nghost, detail::CopyFromSource{a.nlocal, raw(source_), v});
  }

  // Per ghost: the local atom it images and its shift in box lengths (3 each).
  const dvec<int>& source() const { return source_; }
  const dvec<signed char>& shift() const { return shift_; }

 private:
  DeviceStream stream_;
  dvec<int> source_;
  dvec<signed char> shift_;
  dvec<int> picked_;  // scratch: the candidates one stage keeps
};

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
