// The body of every CPU EAM kernel variant (contract in cpu_eam_kernel.hpp),
// included after cpu_pair_kernel_impl.hpp in the same namespace, whose lane
// machinery it shares. Only the data movement differs between variants (the
// transposes of load_rows4, the gather of F'); the arithmetic is in plain
// lane loops, as the pair kernel's.
#ifndef TESSERA_SIMD_NS
#error "define TESSERA_SIMD_NS before including cpu_eam_kernel_impl.hpp"
#endif
#include "backend/cpu_eam_kernel.hpp"

namespace tessera {
namespace TESSERA_SIMD_NS {

// EamView's layout (manybody/eam_tables.hpp), not included here: its inline
// functions must not get a copy compiled for this unit's CPU.
constexpr int kEamC = 7;

// out[l] = base[idx[l]]. Data movement only, so the variants may differ.
inline void gather_lanes(const double* base, const int* idx, double* out) {
#if defined(__AVX512F__)
  _mm512_store_pd(out,
                  _mm512_i32gather_pd(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(idx)), base, sizeof(double)));
#elif defined(__AVX2__)
  for (int h = 0; h < W; h += 4)
    _mm256_store_pd(out + h, _mm256_i32gather_pd(base, _mm_loadu_si128(reinterpret_cast<const __m128i*>(idx + h)),
                                                 static_cast<int>(sizeof(double))));
#else
  for (int l = 0; l < W; ++l) out[l] = base[idx[l]];
#endif
}

// What both passes know of a block: the separations and the place of r on
// the grid (EamView::r_knot, lane by lane).
struct EamLanes {
  alignas(64) double xj[W], yj[W], zj[W], tj[W];
  alignas(64) double dx[W], dy[W], dz[W], r2[W], r[W], p[W];
  alignas(64) LaneInt m[W];
};

// The separations only (dx ... r2).
inline void separations(const EamKernelArgs& a, const int* idx, double xi, double yi, double zi, EamLanes& b) {
  load_lanes(a.pos, idx, b.xj, b.yj, b.zj, b.tj);
#pragma omp simd
  for (int l = 0; l < W; ++l) {
    b.dx[l] = xi - b.xj[l];
    b.dy[l] = yi - b.yj[l];
    b.dz[l] = zi - b.zj[l];
    b.r2[l] = b.dx[l] * b.dx[l] + b.dy[l] * b.dy[l] + b.dz[l] * b.dz[l];
  }
}

inline void eam_lanes(const EamKernelArgs& a, const int* idx, double xi, double yi, double zi, EamLanes& b) {
  separations(a, idx, xi, yi, zi, b);
  const double rdr = a.rdr;
  const LaneInt last = a.nr - 1;
#pragma omp simd
  for (int l = 0; l < W; ++l) {
    b.r[l] = std::sqrt(b.r2[l]);
    double p = b.r[l] * rdr + 1.0;
    LaneInt m = static_cast<LaneInt>(p);
    m = m < last ? m : last;
    p -= m;
    b.p[l] = p < 1.0 ? p : 1.0;
    b.m[l] = m;
  }
}

// Offsets of each lane's piece in the tables `type2` picks for (ti, tj)
// (kJI: for (tj, ti)), as EamView::r_piece.
template <bool kOneType, bool kJI = false>
inline void piece_offsets(const EamKernelArgs& a, const int* type2, int ti, const EamLanes& b, LaneInt* off) {
  const LaneInt knots = a.nr + 1;
  if constexpr (kOneType) {
    const LaneInt base = type2[a.ntp + 1] * knots;
#pragma omp simd
    for (int l = 0; l < W; ++l) off[l] = (base + b.m[l]) * kEamC;
  } else {
    for (int l = 0; l < W; ++l) {
      const int tj = static_cast<int>(b.tj[l]);
      off[l] = (type2[kJI ? tj * a.ntp + ti : ti * a.ntp + tj] * knots + b.m[l]) * kEamC;
    }
  }
}

template <bool kOneType>
__attribute__((flatten)) void density_rows(const EamKernelArgs& a, int begin, int end) {
  for (int i = begin; i < end; ++i) {
    const double* pi = a.pos + 4L * i;
    const int ti = static_cast<int>(pi[3]);
    // The neighbours inside the cutoff first, so that the spline work runs
    // over those only.
    int* kept = a.kept + i * a.kept_stride;
    int nkept = 0;
    const double cutsq = a.cutsq;
    for_lane_blocks(a.nbr + i * a.stride, a.nbr_count[i], a.padded, i, [&](const int* idx, int nvalid) {
      EamLanes b;
      separations(a, idx, pi[0], pi[1], pi[2], b);
      alignas(64) LaneInt in[W];
#pragma omp simd
      for (LaneInt l = 0; l < W; ++l) in[l] = (l < nvalid) & (b.r2[l] < cutsq);
      // Stores every lane and advances past the kept ones: no branch.
      for (int l = 0; l < W; ++l) {
        kept[nkept] = idx[l];
        nkept += static_cast<int>(in[l]);
      }
    });
    for (int l = 0; l < W; ++l) kept[nkept + l] = i;
    a.kept_count[i] = nkept;
    alignas(64) double rho[W] = {};
    for_lane_blocks(kept, nkept, true, i, [&](const int* idx, int nvalid) {
      EamLanes b;
      eam_lanes(a, idx, pi[0], pi[1], pi[2], b);
      alignas(64) LaneInt off[W];
      alignas(64) double c3[W], c4[W], c5[W], c6[W];
      // The density i gains from j: table type2rhor[tj][ti].
      piece_offsets<kOneType, true>(a, a.type2rhor, ti, b, off);
      load_rows4([&](int l) { return a.rhor + 3 + off[l]; }, c3, c4, c5, c6);
#pragma omp simd
      for (LaneInt l = 0; l < W; ++l) {
        const double p = b.p[l];
        const double v = ((c3[l] * p + c4[l]) * p + c5[l]) * p + c6[l];
        rho[l] += l < nvalid ? v : 0.0;
      }
    });
    a.rho[i] = reduce_lanes(rho);
  }
}

template <bool kOneType, bool kTensor>
__attribute__((flatten)) void force_rows(const EamKernelArgs& a, int begin, int end) {
  alignas(64) double cut[W];
  for (int l = 0; l < W; ++l) cut[l] = a.cutsq;
  for (int i = begin; i < end; ++i) {
    const double* pi = a.pos + 4L * i;
    const int ti = static_cast<int>(pi[3]);
    const double fpi = a.fp[i];
    LaneSums s = {};
    LaneTensor vt;
    if constexpr (kTensor) vt = {};
    for_lane_blocks(a.kept + i * a.kept_stride, a.kept_count[i], true, i, [&](const int* idx, int nvalid) {
      EamLanes b;
      eam_lanes(a, idx, pi[0], pi[1], pi[2], b);
      alignas(64) LaneInt oij[W], oji[W], oz[W];
      alignas(64) double c0[W], c1[W], c2[W], c3[W], rhoip[W], rhojp[W], fpj[W], z2p[W], z2[W], f[W], e[W];
      // d rho_j/dr (table type2rhor[ti][tj]) and d rho_i/dr (type2rhor[tj][ti]):
      // gathered once when every lane's two are the same table.
      piece_offsets<kOneType>(a, a.type2rhor, ti, b, oij);
      load_rows4([&](int l) { return a.rhor + oij[l]; }, c0, c1, c2, c3);
#pragma omp simd
      for (int l = 0; l < W; ++l) rhoip[l] = (c0[l] * b.p[l] + c1[l]) * b.p[l] + c2[l];
      bool same = kOneType;
      if constexpr (!kOneType) {
        piece_offsets<kOneType, true>(a, a.type2rhor, ti, b, oji);
        same = true;
        for (int l = 0; l < W; ++l) same &= oij[l] == oji[l];
      }
      if (same) {
        for (int l = 0; l < W; ++l) rhojp[l] = rhoip[l];
      } else {
        load_rows4([&](int l) { return a.rhor + oji[l]; }, c0, c1, c2, c3);
#pragma omp simd
        for (int l = 0; l < W; ++l) rhojp[l] = (c0[l] * b.p[l] + c1[l]) * b.p[l] + c2[l];
      }
      piece_offsets<kOneType>(a, a.type2z2r, ti, b, oz);
      load_rows4([&](int l) { return a.z2r + oz[l]; }, c0, c1, c2, c3);
#pragma omp simd
      for (int l = 0; l < W; ++l) z2p[l] = (c0[l] * b.p[l] + c1[l]) * b.p[l] + c2[l];
      // c4 c5 c6, and into e (written below) the next knot's c0: inside the table, whose
      // last piece is knot nr - 1 of nr + 1.
      load_rows4([&](int l) { return a.z2r + 4 + oz[l]; }, c0, c1, c2, e);
#pragma omp simd
      for (int l = 0; l < W; ++l) z2[l] = ((c3[l] * b.p[l] + c0[l]) * b.p[l] + c1[l]) * b.p[l] + c2[l];
      gather_lanes(a.fp, idx, fpj);
#pragma omp simd
      for (int l = 0; l < W; ++l) {
        const double recip = 1.0 / b.r[l];
        const double phi = z2[l] * recip;
        const double phip = z2p[l] * recip - phi * recip;
        const double psip = fpi * rhojp[l] + fpj[l] * rhoip[l] + phip;
        f[l] = -psip * recip;
        e[l] = phi;
      }
      add_lane_sums<kTensor>(nvalid, b.dx, b.dy, b.dz, b.r2, cut, f, e, s, vt);
    });
    store_lane_sums<kTensor>(a, i, s, vt, a.embed);
  }
}

inline void eam_density_of(const EamKernelArgs& a, int begin, int end) {
  if (a.one_type)
    density_rows<true>(a, begin, end);
  else
    density_rows<false>(a, begin, end);
}

inline void eam_forces_of(const EamKernelArgs& a, int begin, int end) {
  if (a.tensor[0]) {
    if (a.one_type)
      force_rows<true, true>(a, begin, end);
    else
      force_rows<false, true>(a, begin, end);
  } else if (a.one_type) {
    force_rows<true, false>(a, begin, end);
  } else {
    force_rows<false, false>(a, begin, end);
  }
}

}  // namespace TESSERA_SIMD_NS
}  // namespace tessera
