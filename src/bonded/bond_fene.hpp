#pragma once
/// FENE bond with its WCA repulsion, as LAMMPS bond_style fene:
///
///   E(r) = -0.5 K R0^2 ln[1 - (r/R0)^2]
///          + 4 eps [(sigma/r)^12 - (sigma/r)^6] + eps,   the LJ part for r < 2^(1/6) sigma only.
///
/// Units: K energy/length^2, R0 length, eps energy, sigma length.
/// Reference: LAMMPS bond_style fene (bond_fene.cpp); Kremer & Grest,
/// J. Chem. Phys. 92, 5057 (1990).
///
/// Near and beyond R0 it follows LAMMPS: when 1 - (r/R0)^2 < SMALL (0.1)
/// LAMMPS warns and uses SMALL as the log's argument; eval does the same
/// and returns kStretched. At r >= R0 Tessera differs on purpose: eval
/// returns kBroken (issue 29 wants the run stopped), where LAMMPS goes on
/// clamping until the argument reaches -3 ("Bad FENE bond").
#include <cmath>

#include "bonded/bonded_coeffs.hpp"
#include "core/host_device.hpp"
#include "core/real_math.hpp"

namespace tessera {

struct BondFENE {
  static constexpr const char* name = "fene";
  static constexpr int ncoeff = 4;
  static constexpr const char* coeff_names[ncoeff] = {"K", "R0", "epsilon", "sigma"};
  // LAMMPS bond_fene.cpp's SMALL, measured with the LAMMPS of the
  // references (29 Sep 2021 - Update 2): at 1 - (r/R0)^2 = 0.095 and 0.05 it
  // warns "FENE bond too long" and gives E = -0.5 K R0^2 ln(0.1) and
  // fbond = -K/0.1; at 0.105 it neither warns nor clamps. So the clamp acts
  // for r > sqrt(0.9) R0 (about 0.949 R0). See tests/reference/README.md.
  static constexpr double kSmall = 0.1;

  struct Params {
    double k, r0sq, eps, sigsq;
    double wca_cutsq;  // 2^(1/3) sigma^2: LAMMPS's MY_CUBEROOT2 * sigma^2
  };

  static const char* check(const BondedCoeffs& bc) {
    if (bc.c[0] < 0) return "K must not be negative";
    if (!(bc.c[1] > 0)) return "R0 must be positive";
    if (bc.c[2] < 0) return "epsilon must not be negative";
    if (bc.c[3] < 0) return "sigma must not be negative";
    return nullptr;
  }

  static Params params(const BondedCoeffs& bc) {
    Params p{};
    p.k = bc.c[0];
    p.r0sq = bc.c[1] * bc.c[1];
    p.eps = bc.c[2];
    p.sigsq = bc.c[3] * bc.c[3];
    p.wca_cutsq = std::cbrt(2.0) * p.sigsq;
    return p;
  }

  /// fbond = -(dE/dr)/r, so the force on atom i of bond (i, j) is
  /// fbond * (x_i - x_j); energy = E(r). r2 = |x_i - x_j|^2 > 0.
  /// Branch-free (selects only), so that the CPU's bond kernels
  /// (backend/cpu_bond_kernel_impl.hpp) vectorise it across atoms; the log
  /// is det_log in double, the same bits in every kernel variant.
  template <class Real>
  TESSERA_HD static BondStatus eval(Real r2, const Params& p, Real& fbond, Real& energy) {
    // Every parameter read up front: a read inside a select's arm became a
    // masked load that GCC cannot vectorise.
    const Real k = Real(p.k), r0sq = Real(p.r0sq), eps = Real(p.eps), sigsq = Real(p.sigsq);
    const Real wca_cutsq = Real(p.wca_cutsq);
    const Real raw = Real(1) - r2 / r0sq;
    const bool broken = raw <= Real(0);
    const bool stretched = raw < Real(kSmall);
    const Real rlogarg = stretched ? Real(kSmall) : raw;
    Real f = -k / rlogarg;
    Real e = Real(-0.5) * k * r0sq * real_log(rlogarg);
    const bool wca = r2 < wca_cutsq;
    const Real sr2 = sigsq / r2;
    const Real sr6 = sr2 * sr2 * sr2;
    f = wca ? f + Real(48) * eps * sr6 * (sr6 - Real(0.5)) / r2 : f;
    e = wca ? e + (Real(4) * eps * sr6 * (sr6 - Real(1)) + eps) : e;
    fbond = broken ? Real(0) : f;
    energy = broken ? Real(0) : e;
    return broken ? BondStatus::kBroken : (stretched ? BondStatus::kStretched : BondStatus::kOk);
  }
};

}  // namespace tessera
