// The body of every CPU cluster-kernel variant (the contract is in
// cpu_cluster_kernel.hpp). Included once per translation unit inside the
// namespace TESSERA_SIMD_NS, as cpu_pair_kernel_impl.hpp and for the same
// reasons.
#ifndef TESSERA_SIMD_NS
#error "define TESSERA_SIMD_NS before including cpu_cluster_kernel_impl.hpp"
#endif
#include <type_traits>

#include "backend/cpu_cluster_kernel.hpp"

namespace tessera {
namespace TESSERA_SIMD_NS {

constexpr int kCS = kClusterSize;
constexpr int kCL = kClusterSize * kClusterSize;  // lanes of a cluster pair

// Lanes of the self pair (a row cluster with itself) that hold j > i: each
// pair of its atoms once, never an atom with itself.
struct ClusterMasks {
  alignas(64) double upper[kCL];
};
constexpr ClusterMasks make_cluster_masks() {
  ClusterMasks m{};
  for (int s = 0; s < kCL; ++s) {
    m.upper[s] = s % kCS > s / kCS ? 1.0 : 0.0;
  }
  return m;
}
inline constexpr ClusterMasks kClusterMasks = make_cluster_masks();

// Four values of slot run p broadcast over the lanes as p[s % kCS]: one
// load that the lanes of all four row atoms share. Stored in whole vectors:
// the compiler's own form of the loop stored 4 values at a time and read
// them back 16 wide, and waited on each store (the mixed kernel ran 4x
// slower). out: aligned to 64 bytes.
inline void spread_partner(const double* p, double* out) {
#if defined(__AVX512F__)
  const __m512d v = _mm512_broadcast_f64x4(_mm256_loadu_pd(p));
  _mm512_store_pd(out, v);
  _mm512_store_pd(out + 8, v);
#elif defined(__AVX2__)
  const __m256d v = _mm256_loadu_pd(p);
  for (int k = 0; k < kCL; k += 4) _mm256_store_pd(out + k, v);
#else
  for (int s = 0; s < kCL; ++s) out[s] = p[s % kCS];
#endif
}
inline void spread_partner(const float* p, float* out) {
#if defined(__AVX512F__)
  _mm512_store_ps(out, _mm512_broadcast_f32x4(_mm_loadu_ps(p)));
#elif defined(__AVX2__)
  const __m256 v = _mm256_broadcast_ps(reinterpret_cast<const __m128*>(p));
  _mm256_store_ps(out, v);
  _mm256_store_ps(out + 8, v);
#else
  for (int s = 0; s < kCL; ++s) out[s] = p[s % kCS];
#endif
}

// A block's forces on the partner's atoms, (i0 + i2) + (i1 + i3), off its
// double sums.
inline void take_off_partner(const double* fxs, const double* fys, const double* fzs, double* fx, double* fy,
                             double* fz) {
#if defined(__AVX512F__)
  auto one = [](const double* v, double* out) {
    const __m512d h = _mm512_add_pd(_mm512_load_pd(v), _mm512_load_pd(v + 2 * kCS));  // i0+i2, i1+i3
    const __m256d q = _mm256_add_pd(_mm512_castpd512_pd256(h), _mm512_extractf64x4_pd(h, 1));
    _mm256_storeu_pd(out, _mm256_sub_pd(_mm256_loadu_pd(out), q));
  };
  one(fxs, fx);
  one(fys, fy);
  one(fzs, fz);
  return;
#endif
#pragma omp simd
  for (int j = 0; j < kCS; ++j) {
    fx[j] -= (fxs[j] + fxs[2 * kCS + j]) + (fxs[kCS + j] + fxs[3 * kCS + j]);
    fy[j] -= (fys[j] + fys[2 * kCS + j]) + (fys[kCS + j] + fys[3 * kCS + j]);
    fz[j] -= (fzs[j] + fzs[2 * kCS + j]) + (fzs[kCS + j] + fzs[3 * kCS + j]);
  }
}

// The same in float, off float sums (mixed precision), into the partner's
// packed sums t (x, y, z: 12 contiguous floats). In AVX-512 the three
// components are reduced together, [x y z] in the 128-bit lanes of one
// vector, with one masked update of the 12 values: 5 shuffles and 4 adds
// instead of 6 and 9, and one load and store instead of three (the
// take-off held a quarter of the mixed kernel's samples). Each sum is
// still (i0 + i2) + (i1 + i3).
inline void take_off_partner(const float* fxs, const float* fys, const float* fzs, float* t) {
#if defined(__AVX512F__)
  const __m512 a = _mm512_load_ps(fxs), b = _mm512_load_ps(fys), c = _mm512_load_ps(fzs);
  // [a0+a2, a1+a3, b0+b2, b1+b3] and [c0+c2, c1+c3, ...] (lanes of 4 j)
  const __m512 ab = _mm512_add_ps(_mm512_shuffle_f32x4(a, b, _MM_SHUFFLE(1, 0, 1, 0)),
                                  _mm512_shuffle_f32x4(a, b, _MM_SHUFFLE(3, 2, 3, 2)));
  const __m512 cc = _mm512_add_ps(c, _mm512_shuffle_f32x4(c, c, _MM_SHUFFLE(1, 0, 3, 2)));
  const __m512 r = _mm512_add_ps(_mm512_shuffle_f32x4(ab, cc, _MM_SHUFFLE(0, 0, 2, 0)),
                                 _mm512_shuffle_f32x4(ab, cc, _MM_SHUFFLE(1, 1, 3, 1)));
  constexpr __mmask16 kXyz = 0x0FFF;
  _mm512_mask_storeu_ps(t, kXyz, _mm512_sub_ps(_mm512_maskz_loadu_ps(kXyz, t), r));
#else
  float* fx = t;
  float* fy = t + kCS;
  float* fz = t + 2 * kCS;
#pragma omp simd
  for (int j = 0; j < kCS; ++j) {
    fx[j] -= (fxs[j] + fxs[2 * kCS + j]) + (fxs[kCS + j] + fxs[3 * kCS + j]);
    fy[j] -= (fys[j] + fys[2 * kCS + j]) + (fys[kCS + j] + fys[3 * kCS + j]);
    fz[j] -= (fzs[j] + fzs[2 * kCS + j]) + (fzs[kCS + j] + fzs[3 * kCS + j]);
  }
#endif
}

// Lane sums of row atom i, (j0 + j1) + (j2 + j3).
inline double reduce_row(const double* v, int i) {
  return (v[kCS * i] + v[kCS * i + 1]) + (v[kCS * i + 2] + v[kCS * i + 3]);
}

// Rows [begin, end) in Real: double, or float for mixed precision (the
// contract in cpu_cluster_kernel.hpp). A row is its self pair first, then
// its local partners, then its ghosts (ClusterPairs::ghost_start), so that
// neither the self pair's mask, the ghosts' half weight nor the test for a
// partner's forces costs anything in the other blocks. !kEnergy: forces
// only, energy and virial stored as zero (KernelOutputs::energy).
template <class Pot, class Real, bool kOneType, bool kTensor, bool kEnergy>
__attribute__((flatten)) void cluster_rows(const ClusterKernelArgs<typename Pot::Params>& a, int begin, int end) {
  constexpr bool kMixed = std::is_same_v<Real, float>;
  using P = std::conditional_t<kMixed, typename Pot::template ParamsT<float>, typename Pot::Params>;
  const P* params;
  if constexpr (kMixed)
    params = static_cast<const P*>(a.float_params);
  else
    params = a.params;
  // Packed coordinates (cpu_cluster_kernel.hpp): x y z (double), or tile
  // centres x y z then offsets x y z (mixed).
  constexpr int kArrays = kMixed ? kClusterPackMixed : kClusterPack;
  constexpr long kPos = kArrays * kCS, kF = 3 * kCS;  // per cluster
  const Real* pos;
  // Where a block's forces on its partner go: the double sums themselves,
  // or mixed precision's float partner sums.
  Real* to;
  if constexpr (kMixed) {
    pos = a.pos32;
    to = a.partner_force;
  } else {
    pos = a.xyz;
    to = a.f;
  }
  for (int ci = begin; ci < end; ++ci) {
    const long oi = static_cast<long>(ci) * kCS;
    alignas(64) Real ci_at[kArrays][kCL];
    alignas(64) double ti[kCL];
    for (int c = 0; c < kArrays; ++c)
#pragma omp simd
      for (int s = 0; s < kCL; ++s) ci_at[c][s] = pos[ci * kPos + c * kCS + s / kCS];
#pragma omp simd
    for (int s = 0; s < kCL; ++s) ti[s] = a.type[oi + s / kCS];
    alignas(64) Real sfx[kCL] = {}, sfy[kCL] = {}, sfz[kCL] = {};
    alignas(64) double se[kCL] = {}, sw[kCL] = {};
    alignas(64) double st[6][kCL];
    if constexpr (kTensor)
      for (auto& t : st)
        for (double& v : t) v = 0.0;

    // One block with partner cluster cj. kSelf: the row's own cluster (atom
    // pairs j > i only); kGhost: a ghost cluster (half the energy and
    // virial, no forces for it). (Two blocks at once, to overlap their
    // dependency chains, measured 2-3 % slower.)
    auto block = [&](int cj, auto self_tag, auto ghost_tag) {
      constexpr bool kSelf = decltype(self_tag)::value, kGhost = decltype(ghost_tag)::value;
      const long oj = static_cast<long>(cj) * kCS;
      alignas(64) Real cj_at[kArrays][kCL];
      for (int c = 0; c < kArrays; ++c) spread_partner(pos + cj * kPos + c * kCS, cj_at[c]);
      alignas(64) Real dx[kCL], dy[kCL], dz[kCL], r2[kCL], f[kCL], e[kCL], on[kCL];
#pragma omp simd
      for (int s = 0; s < kCL; ++s) {
        if constexpr (kMixed) {
          dx[s] = (ci_at[3][s] - cj_at[3][s]) + (ci_at[0][s] - cj_at[0][s]);
          dy[s] = (ci_at[4][s] - cj_at[4][s]) + (ci_at[1][s] - cj_at[1][s]);
          dz[s] = (ci_at[5][s] - cj_at[5][s]) + (ci_at[2][s] - cj_at[2][s]);
        } else {
          dx[s] = ci_at[0][s] - cj_at[0][s];
          dy[s] = ci_at[1][s] - cj_at[1][s];
          dz[s] = ci_at[2][s] - cj_at[2][s];
        }
        r2[s] = dx[s] * dx[s] + dy[s] * dy[s] + dz[s] * dz[s];
      }
      // Lanes out of the cutoff (padding among them) and the self pair's
      // lower half are evaluated at the cutoff instead and add zero, so no
      // far lane underflows in float (r^-12 below float's normal range,
      // where each result may cost an assist). Two padding slots facing
      // each other (both clusters short) sit at distance 0 and give inf or
      // NaN, in lanes whose sums belong to no atom.
      if constexpr (kOneType) {
        const P& q = params[a.type_stride + 1];
#pragma omp simd
        for (int s = 0; s < kCL; ++s) {
          bool in = r2[s] < q.cutsq;
          if constexpr (kSelf) in = in & (kClusterMasks.upper[s] != 0.0);
          on[s] = in ? Real(1) : Real(0);
          Pot::eval(in ? r2[s] : q.cutsq, q, f[s], e[s]);
        }
      } else {
        for (int s = 0; s < kCL; ++s) {
          const P& q = params[static_cast<int>(ti[s]) * a.type_stride + static_cast<int>(a.type[oj + s % kCS])];
          bool in = r2[s] < q.cutsq;
          if constexpr (kSelf) in = in & (kClusterMasks.upper[s] != 0.0);
          on[s] = in ? Real(1) : Real(0);
          Pot::eval(in ? r2[s] : q.cutsq, q, f[s], e[s]);
        }
      }
      alignas(64) Real fxs[kCL], fys[kCL], fzs[kCL];
#pragma omp simd
      for (int s = 0; s < kCL; ++s) {
        const bool in = on[s] != Real(0);
        const Real fm = in ? f[s] : Real(0);
        fxs[s] = dx[s] * fm;
        fys[s] = dy[s] * fm;
        fzs[s] = dz[s] * fm;
        sfx[s] += fxs[s];
        sfy[s] += fys[s];
        sfz[s] += fzs[s];
        if constexpr (kEnergy) {
          const double es = static_cast<double>(in ? e[s] : Real(0)), ws = static_cast<double>(r2[s] * fm);
          se[s] += kGhost ? 0.5 * es : es;
          sw[s] += kGhost ? 0.5 * ws : ws;
        }
      }
      if constexpr (kTensor) {
#pragma omp simd
        for (int s = 0; s < kCL; ++s) {
          const double t[6] = {static_cast<double>(dx[s] * fxs[s]), static_cast<double>(dy[s] * fys[s]),
                               static_cast<double>(dz[s] * fzs[s]), static_cast<double>(dx[s] * fys[s]),
                               static_cast<double>(dx[s] * fzs[s]), static_cast<double>(dy[s] * fzs[s])};
          for (int c = 0; c < 6; ++c) st[c][s] += kGhost ? 0.5 * t[c] : t[c];
        }
      }
      if constexpr (!kGhost) {
        Real* tj = to + cj * kF;
        if constexpr (kMixed)
          take_off_partner(fxs, fys, fzs, tj);
        else
          take_off_partner(fxs, fys, fzs, tj, tj + kCS, tj + 2 * kCS);
      }
    };
    using Yes = std::true_type;
    using No = std::false_type;
    const int k0 = a.row_start[ci], kg = a.ghost_start[ci], k1 = a.row_start[ci + 1];
    block(ci, Yes{}, No{});  // a row's first partner is its own cluster
    for (int k = k0 + 1; k < kg; ++k) block(a.partner[k], No{}, No{});
    for (int k = kg; k < k1; ++k) block(a.partner[k], No{}, Yes{});

    alignas(64) double dfx[kCL], dfy[kCL], dfz[kCL];
#pragma omp simd
    for (int s = 0; s < kCL; ++s) {
      dfx[s] = sfx[s];
      dfy[s] = sfy[s];
      dfz[s] = sfz[s];
    }
    double* fi = a.f + ci * kF;
    for (int i = 0; i < kCS; ++i) {
      fi[i] += reduce_row(dfx, i);
      fi[kCS + i] += reduce_row(dfy, i);
      fi[2 * kCS + i] += reduce_row(dfz, i);
      a.pe[oi + i] = reduce_row(se, i);
      a.virial[oi + i] = reduce_row(sw, i);
      if constexpr (kTensor)
        for (int c = 0; c < 6; ++c) a.tensor[c][oi + i] = reduce_row(st[c], i);
    }
  }
}

inline bool clusters_near_impl(const double* pi, const double* pj, double reach_sq) {
  alignas(64) double xj[kCL], yj[kCL], zj[kCL];
  spread_partner(pj, xj);
  spread_partner(pj + kCS, yj);
  spread_partner(pj + 2 * kCS, zj);
  int hits = 0;
#pragma omp simd reduction(+ : hits)
  for (int s = 0; s < kCL; ++s) {
    const double dx = pi[s / kCS] - xj[s], dy = pi[kCS + s / kCS] - yj[s], dz = pi[2 * kCS + s / kCS] - zj[s];
    hits += dx * dx + dy * dy + dz * dz < reach_sq ? 1 : 0;
  }
  return hits > 0;
}

// kTensor: the energy too (3 forms, not 4).
template <class Pot, class Real, bool kTensor, bool kEnergy>
void cluster_kernel_in(const ClusterKernelArgs<typename Pot::Params>& a, int begin, int end) {
  a.one_type ? cluster_rows<Pot, Real, true, kTensor, kEnergy>(a, begin, end)
             : cluster_rows<Pot, Real, false, kTensor, kEnergy>(a, begin, end);
}

template <class Pot, class Real>
void cluster_kernel_as(const ClusterKernelArgs<typename Pot::Params>& a, int begin, int end) {
  if (a.tensor[0])
    cluster_kernel_in<Pot, Real, true, true>(a, begin, end);
  else if (a.energy)
    cluster_kernel_in<Pot, Real, false, true>(a, begin, end);
  else
    cluster_kernel_in<Pot, Real, false, false>(a, begin, end);
}

template <class Pot>
void cluster_kernel_of(const ClusterKernelArgs<typename Pot::Params>& a, int begin, int end) {
  if (a.mixed)
    cluster_kernel_as<Pot, float>(a, begin, end);
  else
    cluster_kernel_as<Pot, double>(a, begin, end);
}

}  // namespace TESSERA_SIMD_NS
}  // namespace tessera
