#pragma once
/// Morse pair potential, truncated (optionally shifted) at r_c.
///
///   E(r) = D0 [ exp(-2 alpha (r - r0)) - 2 exp(-alpha (r - r0)) ] - E_shift
///
/// Units: D0 energy, alpha inverse length, r0 length.
/// Reference: P. M. Morse, Phys. Rev. 34, 57 (1929); LAMMPS pair_style morse.
#include <cmath>

#include "core/det_exp.hpp"
#include "core/real_math.hpp"
#include "core/host_device.hpp"
#include "potentials/pair_coeffs.hpp"

namespace tessera {

struct Morse {
  static constexpr const char* name = "morse";
  static constexpr int ncoeff = 3;
  static constexpr const char* coeff_names[ncoeff] = {"d0", "alpha", "r0"};

  // T: double; float for the device's mixed precision (narrow_params.hpp).
  template <class T>
  struct ParamsT {
    T d0, alpha, r0;
    T offset;
    T cutsq;
  };
  using Params = ParamsT<double>;

  // LAMMPS's morse does not mix. Here the well depth mixes geometrically like
  // an energy; r0 and the width 1/alpha's inverse, alpha, mix arithmetically
  // under Lorentz-Berthelot (both geometric under "geometric"), a common
  // choice for Morse mixtures. Give unlike pairs explicitly to avoid it.
  static PairCoeffs mix(const PairCoeffs& a, const PairCoeffs& b, Mixing rule) {
    PairCoeffs m;
    const bool geo = rule == Mixing::kGeometric;
    m.c[0] = std::sqrt(a.c[0] * b.c[0]);
    m.c[1] = geo ? std::sqrt(a.c[1] * b.c[1]) : 0.5 * (a.c[1] + b.c[1]);
    m.c[2] = geo ? std::sqrt(a.c[2] * b.c[2]) : 0.5 * (a.c[2] + b.c[2]);
    m.cutoff = geo ? std::sqrt(a.cutoff * b.cutoff) : 0.5 * (a.cutoff + b.cutoff);
    return m;
  }

  static const char* check(const PairCoeffs& pc) {
    if (pc.c[0] < 0) return "d0 must not be negative";
    if (!(pc.c[1] > 0)) return "alpha must be positive";
    if (!(pc.c[2] > 0)) return "r0 must be positive";
    return nullptr;
  }

  static Params params(const PairCoeffs& pc, bool shift) {
    Params p{pc.c[0], pc.c[1], pc.c[2], 0.0, pc.cutoff * pc.cutoff};
    if (shift) {
      const double e = det_exp(-p.alpha * (pc.cutoff - p.r0));
      p.offset = p.d0 * (e * e - 2.0 * e);
    }
    return p;
  }

  /// Real: double, or float for the pair math of `precision: mixed`; P:
  /// Params, or ParamsT<float> there.
  template <class Real, class P>
  TESSERA_HD static void eval(Real r2, const P& p, Real& fpair, Real& energy) {
    const Real r = real_sqrt(r2);
    // In double, det_exp, not exp: the same bits in every kernel variant and
    // backend, and it vectorises across the kernel's lanes (the C library's
    // does not).
    const Real alpha = Real(p.alpha), d0 = Real(p.d0);
    const Real e = real_exp(-alpha * (r - Real(p.r0)));
    // dE/dr = -2 alpha D0 (e^2 - e); F/r = -dE/dr / r
    fpair = Real(2) * alpha * d0 * (e * e - e) / r;
    energy = d0 * (e * e - Real(2) * e) - Real(p.offset);
  }
};

}  // namespace tessera
