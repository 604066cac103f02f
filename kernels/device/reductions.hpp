#pragma once
// Whole-system numbers from device arrays, reduced on the device so only a
// few numbers cross to the host. The maximum and minimum are exact in any
// order; the sums run in thermo/ordered_sum.hpp's order, the CPU backend's,
// so they are the same bits on every GPU and thread count (and the CPU's,
// for the same per-atom values).
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/transform_reduce.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
#include <cub/device/device_reduce.cuh>
#endif

#include "device/device_atoms.hpp"
#include "device/neighbor_lists.hpp"
#include "integrate/motion_guard.hpp"
#include "thermo/ordered_sum.hpp"
#include "thermo/thermo.hpp"

namespace tessera::device {
inline namespace TESSERA_DEVICE_SYSTEM_NS {

namespace detail {

struct DisplacementSq {
  const double* x;
  const double* y;
  const double* z;
  const double* x0;
  const double* y0;
  const double* z0;
  TESSERA_HD double operator()(int i) const {
    const double dx = x[i] - x0[i], dy = y[i] - y0[i], dz = z[i] - z0[i];
    return dx * dx + dy * dy + dz * dz;
  }
};

// i if the guard stops at local atom i, else n: the first bad atom is the
// minimum, as in Simulation::check_motion.
struct BadAtomIndex {
  const double* x;
  const double* y;
  const double* z;
  const double* vx;
  const double* vy;
  const double* vz;
  double speed_sq;
  int n;
  TESSERA_HD int operator()(int i) const {
    return moves_badly(x[i], y[i], z[i], vx[i], vy[i], vz[i], speed_sq) ? i : n;
  }
};

template <class T, class F, class Op>
T reduce_over_locals(const DeviceStream& s, int n, const F& f, T init, Op op) {
  return thrust::transform_reduce(policy(s), thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(n), f,
                                  init, op);
}

// f(0), ..., f(n - 1) folded by `op` from `init` into *out, in device
// memory, queued on `s` with no wait of the host. On a GPU, CUB's
// block-wide reduction (two launches; `temp` is its scratch, kept from call
// to call); on the OpenMP system, where device memory is the host's, the
// same fold written through the pointer. `op` must be exact in any order
// (a minimum, a maximum): the two systems fold in different orders.
template <class T, class F, class Op>
void reduce_into(const DeviceStream& s, int n, const F& f, T init, Op op, T* out, dvec<std::uint8_t>& temp) {
#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
  const auto in = thrust::make_transform_iterator(thrust::counting_iterator<int>(0), f);
  std::size_t bytes = 0;
  cudaError_t rc = cub::DeviceReduce::Reduce(nullptr, bytes, in, out, n, op, init, s.stream);
  if (rc == cudaSuccess) {
    if (bytes > temp.size()) resize(s, temp, bytes);
    rc = cub::DeviceReduce::Reduce(raw(temp), bytes, in, out, n, op, init, s.stream);
  }
  if (rc != cudaSuccess) throw std::runtime_error(std::string("device reduction: ") + cudaGetErrorString(rc));
#else
  (void)temp;
  *out = reduce_over_locals(s, n, f, init, op);
#endif
}

}  // namespace detail

// Largest squared displacement of a local atom since the list was built
// (the rebuild test, as max_displacement_sq in src/neighbor/verlet_builder.hpp).
inline double max_displacement_sq(const DeviceStream& s, const DeviceAtoms& a, const DeviceNeighborList& nl) {
  return detail::reduce_over_locals(
      s, a.nlocal, detail::DisplacementSq{raw(a.x), raw(a.y), raw(a.z), raw(nl.x0), raw(nl.y0), raw(nl.z0)}, 0.0,
      MaxOf{});
}

// The blow-up guard's first bad local atom (src/integrate/motion_guard.hpp),
// or nlocal if none, and, when `displacement`, the list check's largest squared
// displacement, in one pass over the atoms. Both are exact in any order.
struct MotionCheck {
  int first_bad;
  double max_disp_sq;
};

// What the guard keeps on the device between the host's reads
// (MotionGuard below): the first step at which a local atom tripped it, with
// that atom as it was then, and the last list check's value.
struct GuardRecord {
  long step = -1;  // -1: no atom has tripped the guard
  AtomId id = 0;
  double x = 0, y = 0, z = 0, vx = 0, vy = 0, vz = 0;
  double max_disp_sq = 0;
};
namespace detail {
struct MotionOf {
  BadAtomIndex bad;
  DisplacementSq disp;
  bool with_disp;
  TESSERA_HD MotionCheck operator()(int i) const { return {bad(i), with_disp ? disp(i) : 0.0}; }
};
struct MergeMotion {
  TESSERA_HD MotionCheck operator()(const MotionCheck& a, const MotionCheck& b) const {
    return {b.first_bad < a.first_bad ? b.first_bad : a.first_bad,
            a.max_disp_sq < b.max_disp_sq ? b.max_disp_sq : a.max_disp_sq};
  }
};
}  // namespace detail
namespace detail {
// Writes the record from the reduction's one result (the device's half of
// MotionGuard::queue): the first bad atom as it is at this step, kept only if
// no earlier step tripped the guard.
struct KeepFirstBad {
  const MotionCheck* in;
  int nlocal;
  long step;
  bool displacement;
  const AtomId* id;
  const double *x, *y, *z, *vx, *vy, *vz;
  GuardRecord* record;
  TESSERA_HD void operator()(int) const {
    const MotionCheck m = *in;
    GuardRecord& r = *record;
    if (displacement) r.max_disp_sq = m.max_disp_sq;
    if (r.step >= 0 || m.first_bad >= nlocal) return;
    const int i = m.first_bad;
    r.step = step;
    r.id = id[i];
    r.x = x[i], r.y = y[i], r.z = z[i];
    r.vx = vx[i], r.vy = vy[i], r.vz = vz[i];
  }
};
}  // namespace detail

// The guard of every step, and the list check when one is due, reduced on
// the device into a GuardRecord with no wait of the host: the host reads the
// record only where it needs it (a list check, a rebuild, an output), so a
// plain step ends with no round trip. Kernel launches only, over buffers
// kept between steps.
class MotionGuard {
 public:
  void queue(const DeviceStream& s, const DeviceAtoms& a, const DeviceNeighborList& nl, double speed_sq, long step,
             bool displacement) {
    const int n = a.nlocal;
    if (record_.empty()) {
      resize(s, record_, 1);
      const std::vector<GuardRecord> none(1);
      to_device(s, none, record_);
      resize(s, merged_, 1);
    }
    const detail::MotionOf f{
        detail::BadAtomIndex{raw(a.x), raw(a.y), raw(a.z), raw(a.vx), raw(a.vy), raw(a.vz), speed_sq, n},
        detail::DisplacementSq{raw(a.x), raw(a.y), raw(a.z), raw(nl.x0), raw(nl.y0), raw(nl.z0)}, displacement};
    detail::reduce_into(s, n, f, MotionCheck{n, 0.0}, detail::MergeMotion{}, raw(merged_), temp_);
    for_each_index(s, 1,
                   detail::KeepFirstBad{raw(merged_), n, step, displacement, raw(a.id), raw(a.x), raw(a.y), raw(a.z),
                                        raw(a.vx), raw(a.vy), raw(a.vz), raw(record_)});
  }
  // The record, once what `s` queued has run: the host's one wait.
  GuardRecord read(const DeviceStream& s) {
    if (record_.empty()) return {};
    to_host(s, record_, 1, host_);
    return host_[0];
  }

 private:
  dvec<MotionCheck> merged_;  // the reduction's result
  dvec<std::uint8_t> temp_;   // its scratch (GPU only)
  dvec<GuardRecord> record_;
  std::vector<GuardRecord> host_;
};

// The CPU's sums, in the same order (sum_thermo in src/thermo/thermo.cpp).
using DeviceSums = ThermoSums;

namespace detail {
template <int NV, class F>
struct LaneSums {
  long n;
  F per_atom;
  double* out;  // [block][lane][value]
  TESSERA_HD void operator()(int t) const {
    ordered_sum::lane_sum<NV>(n, t / ordered_sum::kLanes, t % ordered_sum::kLanes, per_atom, out + t * NV);
  }
};
template <int NV>
struct BlockSums {
  const double* lanes;
  double* out;  // [block][value]
  TESSERA_HD void operator()(int b) const {
    ordered_sum::block_sum<NV>(lanes + static_cast<long>(b) * ordered_sum::kLanes * NV, out + b * NV);
  }
};
}  // namespace detail

// Sums over the local atoms: one thread per lane, one per block, and the
// blocks' few numbers added on the host. Keeps its buffers between calls.
class OrderedSums {
 public:
  double mv2(const DeviceStream& s, const DeviceAtoms& a) {
    double out;
    sum<1>(s, a.nlocal, mv2_terms(a), &out);
    return out;
  }
  // Any one per-atom term (per_atom(i, acc) adds atom i's) over n atoms.
  template <class F>
  double terms(const DeviceStream& s, int n, const F& per_atom) {
    double out;
    sum<1>(s, n, per_atom, &out);
    return out;
  }
  void mv2_axes(const DeviceStream& s, const DeviceAtoms& a, double out[3]) {
    sum<3>(s, a.nlocal, ordered_sum::MassVelocityAxes{mv2_terms(a)}, out);
  }
  DeviceSums thermo(const DeviceStream& s, const DeviceAtoms& a) {
    double out[3];
    sum<3>(s, a.nlocal, ordered_sum::ThermoTerms{mv2_terms(a), raw(a.pe), raw(a.virial)}, out);
    return DeviceSums{out[0], out[1], out[2]};
  }
  // sum_tensor's sums (src/thermo/thermo.cpp), the same bits; `w`: the
  // locals' virial tensor, six device arrays.
  TensorSums tensor(const DeviceStream& s, const DeviceAtoms& a, const double* const* w) {
    double out[12];
    sum<12>(s, a.nlocal, ordered_sum::TensorTerms{mv2_terms(a), {w[0], w[1], w[2], w[3], w[4], w[5]}}, out);
    TensorSums t;
    for (int c = 0; c < 6; ++c) {
      t.kinetic[c] = out[c];
      t.virial[c] = out[6 + c];
    }
    return t;
  }

 private:
  dvec<double> lanes_, blocks_;
  PinnedBuffer<double> host_;

  static ordered_sum::MassVelocitySq mv2_terms(const DeviceAtoms& a) {
    return {raw(a.type), raw(a.mass_of_type), raw(a.vx), raw(a.vy), raw(a.vz)};
  }
  template <int NV, class F>
  void sum(const DeviceStream& s, int n, const F& per_atom, double* out) {
    const long nblocks = ordered_sum::blocks(n);
    const std::size_t nb = static_cast<std::size_t>(nblocks);
    resize(s, lanes_, nb * ordered_sum::kLanes * NV);
    resize(s, blocks_, nb * NV);
    host_.resize(nb * NV);
    for_each_index(s, static_cast<int>(nblocks * ordered_sum::kLanes),
                   detail::LaneSums<NV, F>{n, per_atom, raw(lanes_)});
    for_each_index(s, static_cast<int>(nblocks), detail::BlockSums<NV>{raw(lanes_), raw(blocks_)});
    if (nb > 0) copy_to_host(s, blocks_, host_.data());
    ordered_sum::total<NV>(host_.data(), nblocks, out);
  }
};

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
