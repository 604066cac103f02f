#pragma once
/// Cosine-squared angle: E(theta) = K [cos(theta) - cos(theta0)]^2 (no
/// factor 1/2, as LAMMPS angle_style cosine/squared). theta0 in degrees.
///
/// Units: K energy, theta0 degrees.
/// Reference: LAMMPS angle_style cosine/squared (angle_cosine_squared.cpp).
#include <cmath>

#include "bonded/bonded_coeffs.hpp"
#include "core/host_device.hpp"

namespace tessera {

struct AngleCosineSquared {
  static constexpr const char* name = "cosine/squared";
  static constexpr int ncoeff = 2;
  static constexpr const char* coeff_names[ncoeff] = {"K", "theta0"};

  struct Params {
    double k, cos_theta0;
  };

  static const char* check(const BondedCoeffs& ac) {
    if (ac.c[0] < 0) return "K must not be negative";
    if (ac.c[1] < 0 || ac.c[1] > 180) return "theta0 must lie in [0, 180] degrees";
    return nullptr;
  }

  static Params params(const BondedCoeffs& ac) { return Params{ac.c[0], std::cos(ac.c[1] * (M_PI / 180.0))}; }

  /// c = cos(theta) in [-1, 1]; dedc = dE/d(cos theta), energy = E.
  template <class Real>
  TESSERA_HD static void eval(Real c, const Params& p, Real& dedc, Real& energy) {
    const Real dc = c - Real(p.cos_theta0);
    const Real tk = Real(p.k) * dc;
    energy = tk * dc;
    dedc = Real(2) * tk;
  }
};

}  // namespace tessera
