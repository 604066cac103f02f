#pragma once
/// Cosine angle: E(theta) = K [1 + cos(theta)] (minimum at 180 degrees).
///
/// Units: K energy.
/// Reference: LAMMPS angle_style cosine (angle_cosine.cpp).
#include "bonded/bonded_coeffs.hpp"
#include "core/host_device.hpp"

namespace tessera {

struct AngleCosine {
  static constexpr const char* name = "cosine";
  static constexpr int ncoeff = 1;
  static constexpr const char* coeff_names[ncoeff] = {"K"};

  struct Params {
    double k;
  };

  static const char* check(const BondedCoeffs&) { return nullptr; }  // LAMMPS allows any sign of K

  static Params params(const BondedCoeffs& ac) { return Params{ac.c[0]}; }

  /// c = cos(theta) in [-1, 1]; dedc = dE/d(cos theta), energy = E.
  template <class Real>
  TESSERA_HD static void eval(Real c, const Params& p, Real& dedc, Real& energy) {
    energy = Real(p.k) * (Real(1) + c);
    dedc = Real(p.k);
  }
};

}  // namespace tessera
