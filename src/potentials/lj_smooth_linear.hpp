#pragma once
/// Lennard-Jones 12-6, force-shifted so that both the force and the energy go
/// to zero at r_c:
///
///   E(r) = E_LJ(r) - E_LJ(r_c) - (r - r_c) E_LJ'(r_c),   r < r_c
///   F(r) = F_LJ(r) - F_LJ(r_c)
///
/// Unlike lj/cut (whose force jumps at r_c even when its energy is shifted),
/// a pair crossing the cutoff costs velocity Verlet nothing, so NVE runs
/// conserve energy far better (benchmarks/nve-conservation). The price is a
/// slightly different potential: the tail is pulled up by the linear term.
///
/// Coefficients epsilon and sigma, as lj/cut's (reduced LJ units).
/// Reference: LAMMPS pair_style lj/smooth/linear (the same function);
/// Toxvaerd & Dyre, J. Chem. Phys. 134, 081102 (2011) on shifted-force LJ.
#include <cmath>

#include "core/host_device.hpp"
#include "core/real_math.hpp"
#include "potentials/lj_cut.hpp"
#include "potentials/pair_coeffs.hpp"

namespace tessera {

struct LJSmoothLinear {
  static constexpr const char* name = "lj/smooth/linear";
  static constexpr int ncoeff = 2;
  static constexpr const char* coeff_names[ncoeff] = {"epsilon", "sigma"};

  // T: double; float for the device's mixed precision (narrow_params.hpp).
  template <class T>
  struct ParamsT {
    T lj1, lj2, lj3, lj4;  // as LJCut's
    T ecut;                // E_LJ(r_c)
    T fcut;                // F_LJ(r_c) = -E_LJ'(r_c)
    T rc;
    T cutsq;
  };
  using Params = ParamsT<double>;

  // The coefficients are lj/cut's, mixed and checked the same way.
  static PairCoeffs mix(const PairCoeffs& a, const PairCoeffs& b, Mixing rule) { return LJCut::mix(a, b, rule); }
  static const char* check(const PairCoeffs& pc) { return LJCut::check(pc); }

  // `shift` changes nothing: the energy is already zero at the cutoff.
  static Params params(const PairCoeffs& pc, bool /*shift*/) {
    const LJCut::Params lj = LJCut::params(pc, true);  // offset: E_LJ(r_c)
    Params p{lj.lj1, lj.lj2, lj.lj3, lj.lj4, lj.offset, 0.0, pc.cutoff, lj.cutsq};
    const double r6 = 1.0 / (p.cutsq * p.cutsq * p.cutsq);
    p.fcut = r6 * (p.lj1 * r6 - p.lj2) / p.rc;
    return p;
  }

  /// fpair = |F|/r (so F_vec = fpair * r_vec), energy = E(r). Needs r2 < cutsq.
  /// Real: double, or float for the pair math of `precision: mixed`; P:
  /// Params, or ParamsT<float> there.
  template <class Real, class P>
  TESSERA_HD static void eval(Real r2, const P& p, Real& fpair, Real& energy) {
    const Real r = real_sqrt(r2);
    const Real rinv = Real(1) / r;
    const Real r2inv = rinv * rinv;
    const Real r6inv = r2inv * r2inv * r2inv;
    const Real fcut = Real(p.fcut);
    fpair = (r6inv * (Real(p.lj1) * r6inv - Real(p.lj2)) * rinv - fcut) * rinv;
    energy = r6inv * (Real(p.lj3) * r6inv - Real(p.lj4)) - Real(p.ecut) + (r - Real(p.rc)) * fcut;
  }
};

}  // namespace tessera
