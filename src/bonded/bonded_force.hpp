#pragma once
// The geometry shared by every bond and angle style: from a style's scalar
// answer (fbond, or dE/dcos(theta)) to Cartesian forces. Each atom computes
// the bonded force on itself only (docs/algorithms.md §3.5), so
// these helpers return the force on one chosen atom of the bond or angle,
// and its share of energy and virial (1/2 per atom of a bond, 1/3 per atom
// of an angle, as LAMMPS tallies per-atom energy and virial).
// The CPU's forces (bonded_forces.hpp) and the device's
// (kernels/device/bonded_forces.hpp) both call them.
#include <cmath>

#include "bonded/bonded_coeffs.hpp"
#include "core/host_device.hpp"

namespace tessera {

template <class Real>
struct Vec3 {
  Real x, y, z;
};

// One atom's bonded sums (force, energy, virial trace and tensor xx yy zz
// xy xz yz), as the CPU and the device forces add them.
struct BondedSums {
  double f[3] = {0, 0, 0}, e = 0, w = 0, t[6] = {0, 0, 0, 0, 0, 0};
  TESSERA_HD void add_tensor(const double d[3], const double f3[3], double scale) {
    t[0] += scale * d[0] * f3[0];
    t[1] += scale * d[1] * f3[1];
    t[2] += scale * d[2] * f3[2];
    t[3] += scale * d[0] * f3[1];
    t[4] += scale * d[0] * f3[2];
    t[5] += scale * d[1] * f3[2];
  }
  // A special pair (d = x_i - x_j, r2 = |d|^2, the pair style's fpair and
  // energy) that the list counted fully: `drop` (1 - factor) of it comes
  // off, half of the energy and virial being this atom's, as in the pair
  // kernel.
  template <class V>
  TESSERA_HD void take_off(double drop, const V& d, double r2, double fpair, double energy, bool tensor) {
    const double fo[3] = {-drop * fpair * d.x, -drop * fpair * d.y, -drop * fpair * d.z};
    f[0] += fo[0], f[1] += fo[1], f[2] += fo[2];
    e -= 0.5 * drop * energy;
    w -= 0.5 * drop * fpair * r2;
    if (tensor) {
      const double dd[3] = {d.x, d.y, d.z};
      add_tensor(dd, fo, 0.5);
    }
  }
};

template <class Real>
TESSERA_HD inline Real dot3(const Vec3<Real>& a, const Vec3<Real>& b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}

// What bond_force_on_self makes of the style's answer (fbond, energy) for
// d = x_i - x_j with r2 = |d|^2; apart so that the CPU's bond kernels can
// run the style's eval and this in separate lane loops.
template <class Real>
TESSERA_HD inline void bond_share_on_self(const Vec3<Real>& d, Real r2, Real fbond, Real energy, Vec3<Real>& f,
                                          Real& energy_half, Real& virial_half) {
  f = Vec3<Real>{fbond * d.x, fbond * d.y, fbond * d.z};
  energy_half = Real(0.5) * energy;
  virial_half = Real(0.5) * fbond * r2;
}

// Force on atom i of bond (i, j) with d = x_i - x_j (minimum image already
// applied), its half of the bond energy and of the virial trace d . F_i.
template <class Style, class Real>
TESSERA_HD inline BondStatus bond_force_on_self(const Vec3<Real>& d, const typename Style::Params& p, Vec3<Real>& f,
                                                Real& energy_half, Real& virial_half) {
  const Real r2 = dot3(d, d);
  Real fbond, e;
  const BondStatus status = Style::eval(r2, p, fbond, e);
  bond_share_on_self(d, r2, fbond, e, f, energy_half, virial_half);
  return status;
}

// The forces on all three atoms of angle (1, 2, 3), vertex 2, from
// d1 = x1 - x2 and d2 = x3 - x2 (minimum image applied), as LAMMPS's
// angle styles compute them; energy is the whole angle's, virial the
// trace d1 . f1 + d2 . f3.
template <class Style, class Real>
TESSERA_HD inline void angle_forces(const Vec3<Real>& d1, const Vec3<Real>& d2, const typename Style::Params& p,
                                    Vec3<Real>& f1, Vec3<Real>& f2, Vec3<Real>& f3, Real& energy, Real& virial) {
  const Real rsq1 = dot3(d1, d1), rsq2 = dot3(d2, d2);
  const Real r1 = std::sqrt(rsq1), r2 = std::sqrt(rsq2);
  Real c = dot3(d1, d2) / (r1 * r2);
  if (c > Real(1)) c = Real(1);
  if (c < Real(-1)) c = Real(-1);
  Real dedc;
  Style::eval(c, p, dedc, energy);
  // F1 = -dE/dc dc/dx1, dc/dx1 = d2/(r1 r2) - c d1/r1^2 (and 1 <-> 3).
  const Real a11 = dedc * c / rsq1, a12 = -dedc / (r1 * r2), a22 = dedc * c / rsq2;
  f1 = Vec3<Real>{a11 * d1.x + a12 * d2.x, a11 * d1.y + a12 * d2.y, a11 * d1.z + a12 * d2.z};
  f3 = Vec3<Real>{a22 * d2.x + a12 * d1.x, a22 * d2.y + a12 * d1.y, a22 * d2.z + a12 * d1.z};
  f2 = Vec3<Real>{-(f1.x + f3.x), -(f1.y + f3.y), -(f1.z + f3.z)};
  virial = dot3(d1, f1) + dot3(d2, f3);
}

// The force on the atom at position `role` (0, 1 or 2: atoms 1, 2 and 3 of
// the angle, 1 the vertex) and its third of the energy and virial.
template <class Style, class Real>
TESSERA_HD inline void angle_force_on_self(int role, const Vec3<Real>& d1, const Vec3<Real>& d2,
                                           const typename Style::Params& p, Vec3<Real>& f, Real& energy_third,
                                           Real& virial_third) {
  Vec3<Real> f1, f2, f3;
  Real e, w;
  angle_forces<Style>(d1, d2, p, f1, f2, f3, e, w);
  f = role == 0 ? f1 : (role == 1 ? f2 : f3);
  energy_third = e / Real(3);
  virial_third = w / Real(3);
}

}  // namespace tessera
