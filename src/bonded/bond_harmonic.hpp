#pragma once
/// Harmonic bond: E(r) = K (r - r0)^2 (no factor 1/2, as LAMMPS
/// bond_style harmonic).
///
/// Units: K energy/length^2, r0 length.
/// Reference: LAMMPS bond_style harmonic (bond_harmonic.cpp).
#include <cmath>

#include "bonded/bonded_coeffs.hpp"
#include "core/host_device.hpp"

namespace tessera {

struct BondHarmonic {
  static constexpr const char* name = "harmonic";
  static constexpr int ncoeff = 2;
  static constexpr const char* coeff_names[ncoeff] = {"K", "r0"};

  struct Params {
    double k, r0;
  };

  static const char* check(const BondedCoeffs& bc) {
    if (bc.c[0] < 0) return "K must not be negative";
    if (bc.c[1] < 0) return "r0 must not be negative";
    return nullptr;
  }

  static Params params(const BondedCoeffs& bc) { return Params{bc.c[0], bc.c[1]}; }

  /// fbond = -(dE/dr)/r, so the force on atom i of bond (i, j) is
  /// fbond * (x_i - x_j); energy = E(r). r2 = |x_i - x_j|^2 > 0.
  template <class Real>
  TESSERA_HD static BondStatus eval(Real r2, const Params& p, Real& fbond, Real& energy) {
    const Real r = std::sqrt(r2);
    const Real dr = r - Real(p.r0);
    const Real rk = Real(p.k) * dr;
    fbond = r > Real(0) ? Real(-2) * rk / r : Real(0);
    energy = rk * dr;
    return BondStatus::kOk;
  }
};

}  // namespace tessera
