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

// A block's lanes live in plain arrays of the function that uses them, as
// the pair kernel's (eval_lanes): filled through a struct of them, GCC kept
// every array on the stack.

// The separations of atom i (at xi, yi, zi) from atoms idx[0, W): dx ... r2,
// and the partners' types.
inline void separations(const EamKernelArgs& a, const int* idx, double xi, double yi, double zi, double* dx,
                        double* dy, double* dz, double* r2, double* tj) {
  alignas(64) double xj[W], yj[W], zj[W];
  load_lanes(a.pos, idx, xj, yj, zj, tj);
#pragma omp simd
  for (int l = 0; l < W; ++l) {
    dx[l] = xi - xj[l];
    dy[l] = yi - yj[l];
    dz[l] = zi - zj[l];
    r2[l] = dx[l] * dx[l] + dy[l] * dy[l] + dz[l] * dz[l];
  }
}

// r and its place on the grid (EamView::r_knot, lane by lane): knot m and
// the fraction p past it.
inline void grid_places(const EamKernelArgs& a, const double* r2, double* r, double* p, LaneInt* m) {
  const double rdr = a.rdr;
  const LaneInt last = a.nr - 1;
#pragma omp simd
  for (int l = 0; l < W; ++l) {
    r[l] = std::sqrt(r2[l]);
    double pl = r[l] * rdr + 1.0;
    LaneInt ml = static_cast<LaneInt>(pl);
    ml = ml < last ? ml : last;
    pl -= ml;
    p[l] = pl < 1.0 ? pl : 1.0;
    m[l] = ml;
  }
}

// Offsets of each lane's piece in the tables `type2` picks for (ti, tj)
// (kJI: for (tj, ti)), as EamView::r_piece.
template <bool kOneType, bool kJI = false>
inline void piece_offsets(const EamKernelArgs& a, const int* type2, int ti, const double* tjs, const LaneInt* m,
                          LaneInt* off) {
  const LaneInt knots = a.nr + 1;
  if constexpr (kOneType) {
    const LaneInt base = type2[a.ntp + 1] * knots;
#pragma omp simd
    for (int l = 0; l < W; ++l) off[l] = (base + m[l]) * kEamC;
  } else {
    for (int l = 0; l < W; ++l) {
      const int tj = static_cast<int>(tjs[l]);
      off[l] = (type2[kJI ? tj * a.ntp + ti : ti * a.ntp + tj] * knots + m[l]) * kEamC;
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
      alignas(64) double dx[W], dy[W], dz[W], r2[W], tj[W];
      separations(a, idx, pi[0], pi[1], pi[2], dx, dy, dz, r2, tj);
      alignas(64) LaneInt in[W];
#pragma omp simd
      for (LaneInt l = 0; l < W; ++l) in[l] = (l < nvalid) & (r2[l] < cutsq);
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
      alignas(64) double dx[W], dy[W], dz[W], r2[W], tj[W], r[W], p[W];
      alignas(64) LaneInt m[W];
      separations(a, idx, pi[0], pi[1], pi[2], dx, dy, dz, r2, tj);
      grid_places(a, r2, r, p, m);
      alignas(64) LaneInt off[W];
      alignas(64) double c3[W], c4[W], c5[W], c6[W];
      // The density i gains from j: table type2rhor[tj][ti].
      piece_offsets<kOneType, true>(a, a.type2rhor, ti, tj, m, off);
      load_rows4([&](int l) { return a.rhor + 3 + off[l]; }, c3, c4, c5, c6);
#pragma omp simd
      for (LaneInt l = 0; l < W; ++l) {
        const double pl = p[l];
        const double v = ((c3[l] * pl + c4[l]) * pl + c5[l]) * pl + c6[l];
        rho[l] += l < nvalid ? v : 0.0;
      }
    });
    a.rho[i] = reduce_lanes(rho);
  }
}

// One block of atom i's kept neighbours idx[0, nvalid) into its lane sums.
template <bool kOneType, bool kTensor>
inline void force_block(const EamKernelArgs& a, const int* idx, int nvalid, const double* pi, int ti, double fpi,
                        const double* cut, LaneSums& s, LaneTensor& vt) {
  alignas(64) double dx[W], dy[W], dz[W], r2[W], tj[W], r[W], p[W];
  alignas(64) LaneInt m[W];
  separations(a, idx, pi[0], pi[1], pi[2], dx, dy, dz, r2, tj);
  grid_places(a, r2, r, p, m);
  alignas(64) LaneInt oij[W], oji[W], oz[W];
  alignas(64) double c0[W], c1[W], c2[W], c3[W], rhoip[W], rhojp[W], fpj[W], z2p[W], z2[W], f[W], e[W];
  // d rho_j/dr (table type2rhor[ti][tj]) and d rho_i/dr (type2rhor[tj][ti]):
  // gathered once when every lane's two are the same table.
  piece_offsets<kOneType>(a, a.type2rhor, ti, tj, m, oij);
  load_rows4([&](int l) { return a.rhor + oij[l]; }, c0, c1, c2, c3);
#pragma omp simd
  for (int l = 0; l < W; ++l) rhoip[l] = (c0[l] * p[l] + c1[l]) * p[l] + c2[l];
  bool same = kOneType;
  if constexpr (!kOneType) {
    piece_offsets<kOneType, true>(a, a.type2rhor, ti, tj, m, oji);
    same = true;
    for (int l = 0; l < W; ++l) same &= oij[l] == oji[l];
  }
  if (same) {
    for (int l = 0; l < W; ++l) rhojp[l] = rhoip[l];
  } else {
    load_rows4([&](int l) { return a.rhor + oji[l]; }, c0, c1, c2, c3);
#pragma omp simd
    for (int l = 0; l < W; ++l) rhojp[l] = (c0[l] * p[l] + c1[l]) * p[l] + c2[l];
  }
  piece_offsets<kOneType>(a, a.type2z2r, ti, tj, m, oz);
  load_rows4([&](int l) { return a.z2r + oz[l]; }, c0, c1, c2, c3);
#pragma omp simd
  for (int l = 0; l < W; ++l) z2p[l] = (c0[l] * p[l] + c1[l]) * p[l] + c2[l];
  // c4 c5 c6, and into e (written below) the next knot's c0: inside the table, whose
  // last piece is knot nr - 1 of nr + 1.
  load_rows4([&](int l) { return a.z2r + 4 + oz[l]; }, c0, c1, c2, e);
#pragma omp simd
  for (int l = 0; l < W; ++l) z2[l] = ((c3[l] * p[l] + c0[l]) * p[l] + c1[l]) * p[l] + c2[l];
  gather_lanes(a.fp, idx, fpj);
#pragma omp simd
  for (int l = 0; l < W; ++l) {
    const double recip = 1.0 / r[l];
    const double phi = z2[l] * recip;
    const double phip = z2p[l] * recip - phi * recip;
    const double psip = fpi * rhojp[l] + fpj[l] * rhoip[l] + phip;
    f[l] = -psip * recip;
    e[l] = phi;
  }
  add_lane_sums<kTensor>(nvalid, dx, dy, dz, r2, cut, f, e, s, vt);
}

template <bool kOneType, bool kTensor>
__attribute__((flatten)) void force_rows(const EamKernelArgs& a, int begin, int end) {
  alignas(64) double cut[W];
  for (int l = 0; l < W; ++l) cut[l] = a.cutsq;
  for (int i = begin; i < end; ++i) {
    const double* pi = a.pos + 4L * i;
    const int ti = static_cast<int>(pi[3]);
    const double fpi = a.fp[i];
    LaneSums s;  // zeroed by a lane loop, as pair_rows's
#pragma omp simd
    for (int l = 0; l < W; ++l) s.fx[l] = s.fy[l] = s.fz[l] = s.e[l] = s.w[l] = 0.0;
    LaneTensor vt;
    if constexpr (kTensor) vt = {};
    // The blocks in a plain loop, as pair_rows's (through for_lane_blocks's
    // lambda the double pair rows took 2-9 % longer). The kept rows are
    // padded (density_rows), so the last block is read in place.
    const int* list = a.kept + i * a.kept_stride;
    const int n = a.kept_count[i];
    for (int k = 0; k < n; k += W)
      force_block<kOneType, kTensor>(a, list + k, n - k < W ? n - k : W, pi, ti, fpi, cut, s, vt);
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
