#pragma once
// Whole-system numbers from device arrays, reduced on the device so only a
// scalar crosses to the host. Sums run in Thrust's order, not the CPU's
// fixed blocks: they agree with the CPU to rounding, not bitwise.
#include <thrust/iterator/counting_iterator.h>
#include <thrust/reduce.h>
#include <thrust/transform_reduce.h>

#include "device/device_atoms.hpp"
#include "device/neighbor_build.hpp"
#include "integrate/motion_guard.hpp"

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

struct MassVelocitySq {
  const int* type;
  const double* mass_of_type;
  const double* vx;
  const double* vy;
  const double* vz;
  TESSERA_HD double operator()(int i) const {
    return mass_of_type[type[i]] * (vx[i] * vx[i] + vy[i] * vy[i] + vz[i] * vz[i]);
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

}  // namespace detail

// Largest squared displacement of a local atom since the list was built
// (the rebuild test, as max_displacement_sq in src/neighbor/verlet_builder.hpp).
inline double max_displacement_sq(const DeviceStream& s, const DeviceAtoms& a, const DeviceNeighborList& nl) {
  return detail::reduce_over_locals(
      s, a.nlocal, detail::DisplacementSq{raw(a.x), raw(a.y), raw(a.z), raw(nl.x0), raw(nl.y0), raw(nl.z0)}, 0.0,
      MaxOf{});
}

// The first local atom the blow-up guard (src/integrate/motion_guard.hpp)
// stops at, or nlocal if none.
inline int first_bad_atom(const DeviceStream& s, const DeviceAtoms& a, double speed_sq) {
  return detail::reduce_over_locals(
      s, a.nlocal,
      detail::BadAtomIndex{raw(a.x), raw(a.y), raw(a.z), raw(a.vx), raw(a.vy), raw(a.vz), speed_sq, a.nlocal}, a.nlocal,
      MinOf{});
}

struct DeviceSums {
  double pe = 0;      // sum of per-atom energies
  double virial = 0;  // sum of per-atom virial traces
  double mv2 = 0;     // sum of m v^2 (twice the kinetic energy)
};

inline double sum_mv2(const DeviceStream& s, const DeviceAtoms& a) {
  return detail::reduce_over_locals(
      s, a.nlocal, detail::MassVelocitySq{raw(a.type), raw(a.mass_of_type), raw(a.vx), raw(a.vy), raw(a.vz)}, 0.0,
      thrust::plus<double>());
}

inline DeviceSums local_sums(const DeviceStream& s, const DeviceAtoms& a) {
  DeviceSums r;
  r.pe = thrust::reduce(policy(s), a.pe.begin(), a.pe.begin() + a.nlocal, 0.0);
  r.virial = thrust::reduce(policy(s), a.virial.begin(), a.virial.begin() + a.nlocal, 0.0);
  r.mv2 = sum_mv2(s, a);
  return r;
}

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
