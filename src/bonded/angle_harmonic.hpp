#pragma once
/// Harmonic angle: E(theta) = K (theta - theta0)^2 (no factor 1/2, as
/// LAMMPS angle_style harmonic). theta0 is given in degrees, as in LAMMPS.
///
/// Units: K energy/radian^2, theta0 degrees.
/// Reference: LAMMPS angle_style harmonic (angle_harmonic.cpp).
#include <cmath>

#include "bonded/bonded_coeffs.hpp"
#include "core/host_device.hpp"

namespace tessera {

struct AngleHarmonic {
  static constexpr const char* name = "harmonic";
  static constexpr int ncoeff = 2;
  static constexpr const char* coeff_names[ncoeff] = {"K", "theta0"};
  static constexpr double kSmall = 0.001;  // LAMMPS angle_harmonic.cpp's floor on sin(theta)

  struct Params {
    double k, theta0;  // theta0 in radians
  };

  static const char* check(const BondedCoeffs& ac) {
    if (ac.c[0] < 0) return "K must not be negative";
    if (ac.c[1] < 0 || ac.c[1] > 180) return "theta0 must lie in [0, 180] degrees";
    return nullptr;
  }

  // theta0 * (pi / 180): LAMMPS multiplies by MathConst::DEG2RAD, the same constant.
  static Params params(const BondedCoeffs& ac) { return Params{ac.c[0], ac.c[1] * (M_PI / 180.0)}; }

  /// c = cos(theta), already clamped to [-1, 1]. dedc = dE/d(cos theta),
  /// energy = E. At theta = 0 or pi, sin(theta) is floored at SMALL as in
  /// LAMMPS, so the force stays finite.
  template <class Real>
  TESSERA_HD static void eval(Real c, const Params& p, Real& dedc, Real& energy) {
    Real s = std::sqrt(Real(1) - c * c);
    if (s < Real(kSmall)) s = Real(kSmall);
    const Real dtheta = std::acos(c) - Real(p.theta0);
    const Real tk = Real(p.k) * dtheta;
    energy = tk * dtheta;
    dedc = Real(-2) * tk / s;  // dE/dtheta * dtheta/dc, dtheta/dc = -1/sin(theta)
  }
};

}  // namespace tessera
