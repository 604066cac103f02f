// The mixed-precision form of the row kernel (precision: mixed on full
// rows, PairKernelArgs::mixed), included by cpu_pair_kernel_impl.hpp into
// the same namespace of each variant.
//
// Why integers: a neighbour is then one 16-byte record (x y z type, int32;
// cpu_positions.hpp), half the double row kernel's 32 bytes, and 16 of them
// fill the lanes of one AVX-512 vector; a separation is an exact integer
// difference (modulo 2^32, of quanta of about 1e-8 cutoffs), rounded once
// when converted to float, so its error does not grow with the size of the
// box as plain float coordinates' would.
//
// Summation order (every variant the same, bitwise): lane l of 16 takes
// neighbours l, l + 16, ...; each lane sums its forces in float over the
// row and its energy and virial in double pair by pair; the lanes are then
// reduced in double as h[l] = lane l + lane l + 8, then the row kernel's
// 8-lane tree of h. Separations, r^2 (in quanta squared, then scaled by
// quantum^2, exact), eval and the force products are float; the force sums
// are per quantum of separation, scaled by the quantum once a row in double
// (exact too). r^2 and the force sums take fused multiply-adds (std::fma:
// one rounding, the same in every variant, in software in the scalar one;
// 3 % of the kernel's time as a compiler contraction, 2026-11-30). A lane
// out of the cutoff is evaluated at the cutoff and adds zero, so padding
// never produces an inf, a NaN or a float underflow.
#ifndef TESSERA_SIMD_NS
#error "include cpu_pair_kernel_mixed_impl.hpp through cpu_pair_kernel_impl.hpp"
#endif

namespace tessera {
namespace TESSERA_SIMD_NS {

constexpr int WF = 2 * W;  // float lanes

struct MixedLaneSums {
  alignas(64) float fx[WF], fy[WF], fz[WF];
  alignas(64) double e[WF], w[WF];
};
struct MixedLaneTensor {
  alignas(64) double t[6][WF];
};

// The record (4 ints) at byte offset `offset` of rec: the rows hold record
// offsets (NeighborList::entry_shift), an address's base plus index as is.
inline const int* record_at(const int* rec, int offset) {
  return reinterpret_cast<const int*>(reinterpret_cast<const char*>(rec) + offset);
}

// The records at offsets idx[0, N) into lane arrays: in AVX-512 four
// vectors of four records, transposed in 128-bit lanes; record idx[4k + m]
// goes into vector m's lane k, so that the transpose leaves lane l holding
// idx[l]. This is data movement only, so the variants may differ here.
template <int N>
inline void load_records(const int* rec, const int* idx, int* xj, int* yj, int* zj, int* tj) {
  static_assert(N == WF || N == W, "whole blocks or half blocks");
#if defined(__AVX512F__)
  if constexpr (N == WF) {
    const auto at = [&](int l) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(record_at(rec, idx[l]))); };
    const auto four = [&](int m) {
      const __m512i v = _mm512_castsi128_si512(at(m));
      return _mm512_inserti32x4(_mm512_inserti32x4(_mm512_inserti32x4(v, at(m + 4), 1), at(m + 8), 2), at(m + 12), 3);
    };
    const __m512i a = four(0), b = four(1), c = four(2), d = four(3);
    const __m512i ab0 = _mm512_unpacklo_epi32(a, b), ab1 = _mm512_unpackhi_epi32(a, b);
    const __m512i cd0 = _mm512_unpacklo_epi32(c, d), cd1 = _mm512_unpackhi_epi32(c, d);
    _mm512_store_si512(xj, _mm512_unpacklo_epi64(ab0, cd0));
    _mm512_store_si512(yj, _mm512_unpackhi_epi64(ab0, cd0));
    _mm512_store_si512(zj, _mm512_unpacklo_epi64(ab1, cd1));
    _mm512_store_si512(tj, _mm512_unpackhi_epi64(ab1, cd1));
    return;
  }
#endif
#if defined(__AVX2__)  // also an AVX-512 unit's half blocks
  for (int h = 0; h < N; h += 8) {
    const auto at = [&](int l) {
      return _mm_loadu_si128(reinterpret_cast<const __m128i*>(record_at(rec, idx[h + l])));
    };
    const auto two = [&](int m) { return _mm256_inserti128_si256(_mm256_castsi128_si256(at(m)), at(m + 4), 1); };
    const __m256i a = two(0), b = two(1), c = two(2), d = two(3);
    const __m256i ab0 = _mm256_unpacklo_epi32(a, b), ab1 = _mm256_unpackhi_epi32(a, b);
    const __m256i cd0 = _mm256_unpacklo_epi32(c, d), cd1 = _mm256_unpackhi_epi32(c, d);
    _mm256_store_si256(reinterpret_cast<__m256i*>(xj + h), _mm256_unpacklo_epi64(ab0, cd0));
    _mm256_store_si256(reinterpret_cast<__m256i*>(yj + h), _mm256_unpackhi_epi64(ab0, cd0));
    _mm256_store_si256(reinterpret_cast<__m256i*>(zj + h), _mm256_unpacklo_epi64(ab1, cd1));
    _mm256_store_si256(reinterpret_cast<__m256i*>(tj + h), _mm256_unpackhi_epi64(ab1, cd1));
  }
#else
  for (int l = 0; l < N; ++l) {
    const int* r = record_at(rec, idx[l]);
    xj[l] = r[0];
    yj[l] = r[1];
    zj[l] = r[2];
    tj[l] = r[3];
  }
#endif
}

// Atom i's (record ri) pairs with atoms idx[0, nvalid) into the lane sums,
// lanes [0, N); lanes [nvalid, N) read valid atoms and add nothing.
template <class Pot, bool kOneType, bool kTensor, bool kEnergy, int N>
inline void mixed_block(const PairKernelArgs<typename Pot::Params>& a, const typename Pot::template ParamsT<float>* row,
                        const int* idx, int nvalid, const int* ri, MixedLaneSums& s, MixedLaneTensor& vt) {
  using P = typename Pot::template ParamsT<float>;
  alignas(64) int xj[WF], yj[WF], zj[WF], tj[WF];
  load_records<N>(a.pos_fixed, idx, xj, yj, zj, tj);
  const float q = a.quantum, q2 = q * q;
  // Coordinates are kept modulo 2^32: a difference is taken unsigned and
  // read as an int (modulo, as GCC and Clang define the conversion).
  const unsigned xi = ri[0], yi = ri[1], zi = ri[2];
  alignas(64) float dx[WF], dy[WF], dz[WF], r2[WF], f[WF], e[WF], cut[WF];
#pragma omp simd
  for (int l = 0; l < N; ++l) {
    dx[l] = static_cast<float>(static_cast<int>(xi - static_cast<unsigned>(xj[l])));
    dy[l] = static_cast<float>(static_cast<int>(yi - static_cast<unsigned>(yj[l])));
    dz[l] = static_cast<float>(static_cast<int>(zi - static_cast<unsigned>(zj[l])));
    r2[l] = std::fma(dz[l], dz[l], std::fma(dy[l], dy[l], dx[l] * dx[l])) * q2;
  }
  if constexpr (kOneType) {
    const P& p = row[1];
#pragma omp simd
    for (int l = 0; l < N; ++l) {
      cut[l] = p.cutsq;
      Pot::eval(r2[l] < p.cutsq ? r2[l] : p.cutsq, p, f[l], e[l]);
    }
  } else {
    for (int l = 0; l < N; ++l) {
      const P& p = row[tj[l]];
      cut[l] = p.cutsq;
      Pot::eval(r2[l] < p.cutsq ? r2[l] : p.cutsq, p, f[l], e[l]);
    }
  }
  alignas(64) float fm[WF];
#pragma omp simd
  for (int l = 0; l < N; ++l) {
    const bool in = (l < nvalid) & (r2[l] < cut[l]);
    fm[l] = in ? f[l] : 0.0f;
    // Separations in quanta: the row's force is q times these sums, taken
    // at its end (q a power of two, so the same bits as scaling each term).
    s.fx[l] = std::fma(dx[l], fm[l], s.fx[l]);
    s.fy[l] = std::fma(dy[l], fm[l], s.fy[l]);
    s.fz[l] = std::fma(dz[l], fm[l], s.fz[l]);
    if constexpr (kEnergy) {
      s.e[l] += static_cast<double>(in ? e[l] : 0.0f);
      s.w[l] += static_cast<double>(r2[l] * fm[l]);
    }
  }
  if constexpr (kTensor) {
#pragma omp simd
    for (int l = 0; l < N; ++l) {
      const float fq = fm[l] * q, ux = dx[l] * q, uy = dy[l] * q, uz = dz[l] * q;
      const float fxl = dx[l] * fq, fyl = dy[l] * fq, fzl = dz[l] * fq;
      vt.t[0][l] += static_cast<double>(ux * fxl);
      vt.t[1][l] += static_cast<double>(uy * fyl);
      vt.t[2][l] += static_cast<double>(uz * fzl);
      vt.t[3][l] += static_cast<double>(ux * fyl);
      vt.t[4][l] += static_cast<double>(ux * fzl);
      vt.t[5][l] += static_cast<double>(uy * fzl);
    }
  }
}

// h[l] = lane l + lane l + 8, in double.
template <class T>
inline void fold_lanes(const T* v, double* h) {
#pragma omp simd
  for (int l = 0; l < W; ++l) h[l] = static_cast<double>(v[l]) + static_cast<double>(v[l + W]);
}

#if defined(__AVX512F__)
// The same sums as fold_lanes then reduce_lanes, two rows of lanes at once:
// tree(a) in lane 0 and tree(b) in lane 4 of the result. Done through
// memory, the row-end reduction held a fifth of the kernel's samples.
inline __m512d fold_lanes(__m512 v) {
  return _mm512_add_pd(_mm512_cvtps_pd(_mm512_castps512_ps256(v)), _mm512_cvtps_pd(_mm512_extractf32x8_ps(v, 1)));
}
inline __m512d reduce_two(__m512d a, __m512d b) {
  // [a0+a4 .. a3+a7, b0+b4 .. b3+b7]
  const __m512d h = _mm512_add_pd(_mm512_shuffle_f64x2(a, b, _MM_SHUFFLE(1, 0, 1, 0)),
                                  _mm512_shuffle_f64x2(a, b, _MM_SHUFFLE(3, 2, 3, 2)));
  // (a0+a4)+(a2+a6), (a1+a5)+(a3+a7) in lanes 0 and 1; the same for b in 4, 5
  const __m512d q = _mm512_add_pd(h, _mm512_shuffle_f64x2(h, h, _MM_SHUFFLE(2, 3, 0, 1)));
  return _mm512_add_pd(q, _mm512_permute_pd(q, 0x55));
}
inline double lane0(__m512d v) { return _mm512_cvtsd_f64(v); }
inline double lane4(__m512d v) { return _mm_cvtsd_f64(_mm512_extractf64x2_pd(v, 2)); }
#endif

#if defined(__AVX512F__)
// reduce_lanes for eight rows at once, component by component: p[r] holds
// row r's 8 lanes; row r's sum lands in out[r]. Level by level the pairs
// are reduce_lanes's, (l, l + 4), then (0, 2) and (1, 3), then (0, 1), so
// the bits are the same; a row no longer ends on its tree's latency, and
// 8 rows' three components take 21 vector additions and 42 shuffles where
// reduce_two, a row at a time, took 48 and 64 (the row-end reduction was
// 12 % of this kernel's time, 32k frozen lattice, 1 thread, 2026-11-29).
inline void reduce_eight(const __m512d* p, double* out) {
  __m512d h[4], q[2];
  for (int k = 0; k < 4; ++k)
    h[k] = _mm512_add_pd(_mm512_shuffle_f64x2(p[2 * k], p[2 * k + 1], _MM_SHUFFLE(1, 0, 1, 0)),
                         _mm512_shuffle_f64x2(p[2 * k], p[2 * k + 1], _MM_SHUFFLE(3, 2, 3, 2)));
  for (int k = 0; k < 2; ++k)
    q[k] = _mm512_add_pd(_mm512_shuffle_f64x2(h[2 * k], h[2 * k + 1], _MM_SHUFFLE(2, 0, 2, 0)),
                         _mm512_shuffle_f64x2(h[2 * k], h[2 * k + 1], _MM_SHUFFLE(3, 1, 3, 1)));
  // [row 0, row 4, row 1, row 5, row 2, row 6, row 3, row 7]
  alignas(64) double t[8];
  _mm512_store_pd(t, _mm512_add_pd(_mm512_unpacklo_pd(q[0], q[1]), _mm512_unpackhi_pd(q[0], q[1])));
  for (int k = 0; k < 4; ++k) {
    out[k] = t[2 * k];
    out[k + 4] = t[2 * k + 1];
  }
}
#endif

#if defined(__AVX512F__)
// Forces only (most steps), AVX-512: rows' force lanes, folded to 8
// doubles a component, wait in groups of eight for reduce_eight, then go
// out as store_lane_sums writes them. (The double row kernel's rows, twice
// as long, showed no gain from it: 32k frozen lattice, 1 thread, Pair
// 0.558-0.593 s against 0.565-0.578 s.)
struct PendingRows {
  static constexpr int kRows = 8;
  __m512d f[3][kRows];
  int first = 0, n = 0;
  template <class Args>
  void add(const Args& a, int i, __m512d fx, __m512d fy, __m512d fz) {
    if (n == 0) first = i;
    f[0][n] = fx;
    f[1][n] = fy;
    f[2][n] = fz;
    if (++n == kRows) flush(a);
  }
  template <class Args>
  void flush(const Args& a) {
    if (n == 0) return;
    for (int c = 0; c < 3; ++c)
      for (int r = n; r < kRows; ++r) f[c][r] = _mm512_setzero_pd();
    double* out[3] = {a.fx, a.fy, a.fz};
    const double q = a.quantum;  // the lanes summed forces per quantum
    for (int c = 0; c < 3; ++c) {
      double sum[kRows];
      reduce_eight(f[c], sum);
      for (int r = 0; r < n; ++r) {
        const double v = sum[r] * q;
        out[c][first + r] = a.accumulate ? out[c][first + r] + v : v;
      }
    }
    // No energy or virial in these lanes: zero, as store_lane_sums writes.
    for (double* o : {a.pe, a.virial})
      for (int r = 0; r < n; ++r) o[first + r] = a.accumulate ? o[first + r] + 0.0 : 0.0;
    n = 0;
  }
};
constexpr bool kPendingRows = true;
#else
struct PendingRows {
  template <class Args>
  void flush(const Args&) {}
};
constexpr bool kPendingRows = false;
#endif

// Atom i's lane sums into the outputs (store_lane_sums's rule).
template <bool kTensor, bool kEnergy, class Args>
inline void store_mixed_sums(const Args& a, int i, const MixedLaneSums& s, const MixedLaneTensor& vt) {
#if defined(__AVX512F__)
  if constexpr (!kTensor) {
    const __m512d xy = reduce_two(fold_lanes(_mm512_load_ps(s.fx)), fold_lanes(_mm512_load_ps(s.fy)));
    const __m512d fz = fold_lanes(_mm512_load_ps(s.fz));
    // The lanes summed forces per quantum of separation (mixed_block).
    const double q = a.quantum;
    double f[5] = {lane0(xy) * q, lane4(xy) * q, 0.0, 0.0, 0.0};
    if constexpr (kEnergy) {
      const auto fold = [](const double* v) { return _mm512_add_pd(_mm512_load_pd(v), _mm512_load_pd(v + W)); };
      const __m512d zw = reduce_two(fz, fold(s.w)), e = reduce_two(fold(s.e), fold(s.e));
      f[2] = lane0(zw) * q;
      f[3] = 0.5 * lane0(e);
      f[4] = 0.5 * lane4(zw);
    } else {
      f[2] = lane0(reduce_two(fz, fz)) * q;
    }
    double* out[5] = {a.fx, a.fy, a.fz, a.pe, a.virial};
    for (int c = 0; c < 5; ++c) out[c][i] = a.accumulate ? out[c][i] + f[c] : f[c];
    return;
  }
#endif
  LaneSums ls;
  LaneTensor lt;
  fold_lanes(s.fx, ls.fx);
  fold_lanes(s.fy, ls.fy);
  fold_lanes(s.fz, ls.fz);
  // Per quantum of separation (mixed_block): scaled by a power of two, the
  // sums keep the bits of the AVX-512 path, which scales them at the end.
  const double q = a.quantum;
  for (int l = 0; l < W; ++l) {
    ls.fx[l] *= q;
    ls.fy[l] *= q;
    ls.fz[l] *= q;
  }
  if constexpr (kEnergy) {
    fold_lanes(s.e, ls.e);
    fold_lanes(s.w, ls.w);
  }
  if constexpr (kTensor)
    for (int c = 0; c < 6; ++c) fold_lanes(vt.t[c], lt.t[c]);
  store_lane_sums<kTensor, Args, false, kEnergy>(a, i, ls, lt, nullptr);
}

template <class Pot, bool kOneType, bool kTensor, bool kEnergy>
__attribute__((flatten)) void mixed_rows(const PairKernelArgs<typename Pot::Params>& a, int begin, int end) {
  using P = typename Pot::template ParamsT<float>;
  const P* params = static_cast<const P*>(a.float_params);
  // Energy and virial rows sum more and come only on the steps that read
  // them: they keep the one-row path.
  constexpr bool kBatch = kPendingRows && !kTensor && !kEnergy;
  PendingRows pending;
  for (int i = begin; i < end; ++i) {
    const int* ri = a.pos_fixed + 4L * i;
    const P* row = params + static_cast<long>(ri[3]) * a.type_stride;
    // Zeroed by lane loops: `= {}` of the whole struct became a `rep stos`
    // that cost 3.5 % of the kernel.
    MixedLaneSums s;
#pragma omp simd
    for (int l = 0; l < WF; ++l) s.fx[l] = s.fy[l] = s.fz[l] = 0.0f;
    if constexpr (kEnergy)
#pragma omp simd
      for (int l = 0; l < WF; ++l) s.e[l] = s.w[l] = 0.0;
    MixedLaneTensor vt;
    if constexpr (kTensor) vt = {};
    const int* list = a.nbr + i * a.stride;
    const int n = a.nbr_count[i];
    prefetch_row_ahead(a, i, end);
    // The last block goes through the same call as the others, its lanes
    // past the row's end reading atom i (or the padding) and adding +0,
    // which leaves a lane's sum as it was: with a separate call for it,
    // the lane sums went to the stack at the loop's end and came back
    // through store forwarding (a quarter of this kernel's samples, 32k
    // melt, 1 thread).
    alignas(64) int copy[WF];
    for (int k = 0; k < n; k += WF) {
      const int rest = n - k;
      // A padded row holds valid atoms up to the next multiple of W only.
      const int* idx =
          rest >= WF || (a.padded && rest > W) ? list + k : row_tail<WF>(list, k, n, false, i << kRecordShift, copy);
      mixed_block<Pot, kOneType, kTensor, kEnergy, WF>(a, row, idx, rest < WF ? rest : WF, ri, s, vt);
    }
#if defined(__AVX512F__)
    if constexpr (kBatch) {
      pending.add(a, i, fold_lanes(_mm512_load_ps(s.fx)), fold_lanes(_mm512_load_ps(s.fy)),
                  fold_lanes(_mm512_load_ps(s.fz)));
      continue;
    }
#endif
    store_mixed_sums<kTensor, kEnergy>(a, i, s, vt);
  }
  if constexpr (kBatch) pending.flush(a);
}

template <class Pot, bool kTensor, bool kEnergy>
void mixed_kernel_in(const PairKernelArgs<typename Pot::Params>& a, int begin, int end) {
  if (a.one_type)
    mixed_rows<Pot, true, kTensor, kEnergy>(a, begin, end);
  else
    mixed_rows<Pot, false, kTensor, kEnergy>(a, begin, end);
}

template <class Pot>
void mixed_kernel_of(const PairKernelArgs<typename Pot::Params>& a, int begin, int end) {
  if (a.tensor[0])
    mixed_kernel_in<Pot, true, true>(a, begin, end);
  else if (a.energy)
    mixed_kernel_in<Pot, false, true>(a, begin, end);
  else
    mixed_kernel_in<Pot, false, false>(a, begin, end);
}

}  // namespace TESSERA_SIMD_NS
}  // namespace tessera
