// The body of every CPU bond-kernel variant (cpu_bond_kernel.hpp), included
// inside a namespace named by TESSERA_SIMD_NS after cpu_pair_kernel_impl.hpp
// (whose lane width W and LaneInt it shares), for the reasons given there.
#ifndef TESSERA_SIMD_NS
#error "define TESSERA_SIMD_NS before including cpu_bond_kernel_impl.hpp"
#endif
#include "backend/cpu_bond_kernel.hpp"
#include "bonded/bonded_force.hpp"

namespace tessera {
namespace TESSERA_SIMD_NS {

// Atoms in chunks of kBondChunk, lane l of a chunk being atom i0 + l. Slot
// by slot, each lane adds its atom's bond of that slot exactly as the scalar
// loop does: a lane past its atom's last bond, or with a missing partner,
// adds nothing (a select, so the inf or NaN of a stand-in partner never
// reaches a sum). The stages are separate loops over the whole chunk, as
// the pair kernel's lane loops: GCC vectorises each (one loop holding them
// all stays scalar), and a chunk of several vectors keeps the units busy
// through the evaluation's long dependency chain.
constexpr int kBondChunk = 64;

template <class Style, bool kOneType>
__attribute__((flatten)) BondKernelResult bond_rows(const BondKernelArgs<typename Style::Params>& a, long begin,
                                                    long end) {
  using Params = typename Style::Params;
  constexpr int C = kBondChunk;
  BondKernelResult res{end, end};
  const bool tensor = a.tensor[0] != nullptr;
  alignas(64) double xi[C], yi[C], zi[C], xj[C], yj[C], zj[C], dx[C], dy[C], dz[C], r2[C], fb[C], eb[C];
  alignas(64) double sfx[C], sfy[C], sfz[C], se[C], sw[C], st[6][C];
  // status: a BondStatus per lane, in the lane loops' integer width.
  alignas(64) LaneInt live[C], use[C], status[C];
  Params pl[C];
  for (long i0 = begin; i0 < end; i0 += C) {
    const int nv = end - i0 < C ? static_cast<int>(end - i0) : C;
    // A padding lane is atom i0 with no bond: in bounds, and inert.
    for (int l = 0; l < C; ++l) {
      const long i = i0 + (l < nv ? l : 0);
      xi[l] = a.x[i], yi[l] = a.y[i], zi[l] = a.z[i];
      live[l] = l < nv;
    }
#pragma omp simd
    for (LaneInt l = 0; l < C; ++l) sfx[l] = sfy[l] = sfz[l] = se[l] = sw[l] = 0;
    if (tensor)
      for (int c = 0; c < 6; ++c)
        for (int l = 0; l < C; ++l) st[c][l] = 0;
    for (int b = 0; b < kMaxBonds; ++b) {
      const int* type = a.type[b] + i0;
      const int* partner = a.partner[b] + i0;
      // The partners' positions by scalar loads: GCC's generic tuning emits
      // no gathers, and a loop that needs one stays scalar.
      LaneInt any_live = 0;
      for (int l = 0; l < C; ++l) {
        const int t = l < nv ? type[l] : 0;
        const LaneInt act = t != 0 ? live[l] : 0;
        live[l] = act;
        any_live |= act;
        const int jp = act != 0 ? partner[l] : -1;
        const long j = jp >= 0 ? jp : i0;  // a stand-in for a missing partner
        use[l] = jp >= 0;
        xj[l] = a.x[j], yj[l] = a.y[j], zj[l] = a.z[j];
        if (!kOneType) pl[l] = a.params[t != 0 ? t : 1];
      }
      if (!any_live) break;
#pragma omp simd
      for (LaneInt l = 0; l < C; ++l) {
        dx[l] = xi[l] - xj[l];
        dy[l] = yi[l] - yj[l];
        dz[l] = zi[l] - zj[l];
        r2[l] = dx[l] * dx[l] + dy[l] * dy[l] + dz[l] * dz[l];
        use[l] = use[l] & static_cast<LaneInt>(r2[l] <= a.reach_sq);
      }
      if (kOneType) {
        const Params& q = a.params[1];
#pragma omp simd
        for (LaneInt l = 0; l < C; ++l) status[l] = static_cast<LaneInt>(Style::eval(r2[l], q, fb[l], eb[l]));
      } else {
        for (int l = 0; l < C; ++l) status[l] = static_cast<LaneInt>(Style::eval(r2[l], pl[l], fb[l], eb[l]));
      }
      LaneInt any_event = 0;  // a missing or broken bond, or a clamped one
#pragma omp simd reduction(| : any_event)
      for (LaneInt l = 0; l < C; ++l) {
        Vec3<double> f;
        double eh, wh;
        bond_share_on_self(Vec3<double>{dx[l], dy[l], dz[l]}, r2[l], fb[l], eb[l], f, eh, wh);
        const bool u = use[l] != 0;
        sfx[l] += u ? f.x : 0.0;
        sfy[l] += u ? f.y : 0.0;
        sfz[l] += u ? f.z : 0.0;
        se[l] += u ? eh : 0.0;
        sw[l] += u ? wh : 0.0;
        any_event |= live[l] & (static_cast<LaneInt>(!u) | static_cast<LaneInt>(status[l] != 0));
      }
      // Rare: which atoms, in lane order.
      if (any_event)
        for (int l = 0; l < nv; ++l) {
          if (!live[l]) continue;
          const long i = i0 + l;
          const auto st_l = static_cast<BondStatus>(status[l]);
          if ((!use[l] || st_l == BondStatus::kBroken) && i < res.bad) res.bad = i;
          if (use[l] && st_l == BondStatus::kStretched && i < res.stretched) res.stretched = i;
        }
      if (tensor)
        // Steps that ask for the pressure tensor: the scalar loop's own
        // order (bonded_force.hpp's add_tensor).
        for (int l = 0; l < nv; ++l) {
          if (!live[l] || !use[l]) continue;
          const double dd[3] = {dx[l], dy[l], dz[l]}, ff[3] = {fb[l] * dx[l], fb[l] * dy[l], fb[l] * dz[l]};
          BondedSums s;
          for (int c = 0; c < 6; ++c) s.t[c] = st[c][l];
          s.add_tensor(dd, ff, 0.5);
          for (int c = 0; c < 6; ++c) st[c][l] = s.t[c];
        }
    }
    double* out[5] = {a.fx, a.fy, a.fz, a.pe, a.virial};
    const double* sum[5] = {sfx, sfy, sfz, se, sw};
    for (int c = 0; c < 5; ++c)
      for (int l = 0; l < nv; ++l) out[c][i0 + l] = a.accumulate ? out[c][i0 + l] + sum[c][l] : sum[c][l];
    for (int c = 0; c < 6 && tensor; ++c)
      for (int l = 0; l < nv; ++l) a.tensor[c][i0 + l] = a.accumulate ? a.tensor[c][i0 + l] + st[c][l] : st[c][l];
  }
  return res;
}

template <class Style>
BondKernelResult bond_kernel_of(const BondKernelArgs<typename Style::Params>& a, long begin, long end) {
  return a.one_type ? bond_rows<Style, true>(a, begin, end) : bond_rows<Style, false>(a, begin, end);
}

}  // namespace TESSERA_SIMD_NS
}  // namespace tessera
