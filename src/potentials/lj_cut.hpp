#pragma once
/// Lennard-Jones 12-6, truncated (optionally shifted) at r_c.
///
///   E(r) = 4 eps [ (sigma/r)^12 - (sigma/r)^6 ] - E_shift,   r < r_c
///   E_shift = E_LJ(r_c) when shift is on, else 0.
///
/// Units: eps energy, sigma length (reduced LJ units).
/// Reference: LAMMPS pair_style lj/cut; Allen & Tildesley, Computer
/// Simulation of Liquids, 2nd ed., sec. 1.4.3.
#include <cmath>

#include "core/host_device.hpp"
#include "potentials/pair_coeffs.hpp"

namespace tessera {

struct LJCut {
  static constexpr const char* name = "lj/cut";
  static constexpr int ncoeff = 2;
  static constexpr const char* coeff_names[ncoeff] = {"epsilon", "sigma"};

  // T: double; float for the device's mixed precision (narrow_params.hpp).
  template <class T>
  struct ParamsT {
    T lj1, lj2;  // 48 eps sigma^12, 24 eps sigma^6: force prefactors
    T lj3, lj4;  // 4 eps sigma^12, 4 eps sigma^6: energy prefactors
    T offset;
    T cutsq;
  };
  using Params = ParamsT<double>;

  static PairCoeffs mix(const PairCoeffs& a, const PairCoeffs& b, Mixing rule) {
    PairCoeffs m;
    m.c[0] = std::sqrt(a.c[0] * b.c[0]);
    m.c[1] = rule == Mixing::kGeometric ? std::sqrt(a.c[1] * b.c[1]) : 0.5 * (a.c[1] + b.c[1]);
    m.cutoff = rule == Mixing::kGeometric ? std::sqrt(a.cutoff * b.cutoff) : 0.5 * (a.cutoff + b.cutoff);
    return m;
  }

  static const char* check(const PairCoeffs& pc) {
    if (pc.c[0] < 0) return "epsilon must not be negative";
    if (!(pc.c[1] > 0)) return "sigma must be positive";
    return nullptr;
  }

  static Params params(const PairCoeffs& pc, bool shift) {
    const double eps = pc.c[0], sigma = pc.c[1];
    const double s6 = std::pow(sigma, 6.0);
    Params p{};
    p.lj1 = 48.0 * eps * s6 * s6;
    p.lj2 = 24.0 * eps * s6;
    p.lj3 = 4.0 * eps * s6 * s6;
    p.lj4 = 4.0 * eps * s6;
    p.cutsq = pc.cutoff * pc.cutoff;
    p.offset = 0.0;
    if (shift) {
      const double r6 = 1.0 / (p.cutsq * p.cutsq * p.cutsq);
      p.offset = r6 * (p.lj3 * r6 - p.lj4);
    }
    return p;
  }

  /// fpair = |F|/r (so F_vec = fpair * r_vec), energy = E(r). Needs r2 < cutsq.
  /// Real: double, or float for the pair math of `precision: mixed`; P:
  /// Params, or ParamsT<float> there.
  template <class Real, class P>
  TESSERA_HD static void eval(Real r2, const P& p, Real& fpair, Real& energy) {
    const Real r2inv = Real(1) / r2;
    const Real r6inv = r2inv * r2inv * r2inv;
    fpair = r6inv * (Real(p.lj1) * r6inv - Real(p.lj2)) * r2inv;
    energy = r6inv * (Real(p.lj3) * r6inv - Real(p.lj4)) - Real(p.offset);
  }
};

}  // namespace tessera
