// The body of every CPU cluster-kernel variant (the contract is in
// cpu_cluster_kernel.hpp). Included once per translation unit inside the
// namespace TESSERA_SIMD_NS, as cpu_pair_kernel_impl.hpp and for the same
// reasons.
#ifndef TESSERA_SIMD_NS
#error "define TESSERA_SIMD_NS before including cpu_cluster_kernel_impl.hpp"
#endif
#include "backend/cpu_cluster_kernel.hpp"

namespace tessera {
namespace TESSERA_SIMD_NS {

constexpr int kCS = kClusterSize;
constexpr int kCL = kClusterSize * kClusterSize;  // lanes of a cluster pair

// Lanes of the self pair (a row cluster with itself) that hold j > i: each
// pair of its atoms once, never an atom with itself.
struct ClusterMasks {
  alignas(64) double all[kCL];
  alignas(64) double upper[kCL];
  alignas(64) float all_f[kCL];
  alignas(64) float upper_f[kCL];
};
constexpr ClusterMasks make_cluster_masks() {
  ClusterMasks m{};
  for (int s = 0; s < kCL; ++s) {
    m.all[s] = 1.0;
    m.upper[s] = s % kCS > s / kCS ? 1.0 : 0.0;
    m.all_f[s] = 1.0f;
    m.upper_f[s] = s % kCS > s / kCS ? 1.0f : 0.0f;
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

// A block's forces on the partner's atoms, (i0 + i2) + (i1 + i3) in the
// lanes' type, off its double sums.
template <class Real>
inline void take_off_partner(const Real* fxs, const Real* fys, const Real* fzs, double* fx, double* fy, double* fz) {
#pragma omp simd
  for (int j = 0; j < kCS; ++j) {
    fx[j] -= static_cast<double>((fxs[j] + fxs[2 * kCS + j]) + (fxs[kCS + j] + fxs[3 * kCS + j]));
    fy[j] -= static_cast<double>((fys[j] + fys[2 * kCS + j]) + (fys[kCS + j] + fys[3 * kCS + j]));
    fz[j] -= static_cast<double>((fzs[j] + fzs[2 * kCS + j]) + (fzs[kCS + j] + fzs[3 * kCS + j]));
  }
}

// The same in float, off float sums (mixed precision): two shuffles and
// adds a component in AVX-512 instead of extracting, converting and
// subtracting lane by lane (a third of the mixed kernel's instructions).
inline void take_off_partner(const float* fxs, const float* fys, const float* fzs, float* fx, float* fy, float* fz) {
#if defined(__AVX512F__)
  auto one = [](const float* v, float* out) {
    const __m512 a = _mm512_load_ps(v);
    const __m512 h = _mm512_add_ps(a, _mm512_shuffle_f32x4(a, a, _MM_SHUFFLE(1, 0, 3, 2)));  // i0+i2, i1+i3
    const __m512 q = _mm512_add_ps(h, _mm512_shuffle_f32x4(h, h, _MM_SHUFFLE(2, 3, 0, 1)));
    _mm_storeu_ps(out, _mm_sub_ps(_mm_loadu_ps(out), _mm512_castps512_ps128(q)));
  };
  one(fxs, fx);
  one(fys, fy);
  one(fzs, fz);
#else
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

template <class Pot, bool kOneType, bool kTensor>
__attribute__((flatten)) void cluster_rows(const ClusterKernelArgs<typename Pot::Params>& a, int begin, int end) {
  using P = typename Pot::Params;
  static_assert(kClusterSize == 4, "the reduction trees are written for clusters of 4");
  const int nlc = a.nlocal_clusters;
  for (int ci = begin; ci < end; ++ci) {
    const long oi = static_cast<long>(ci) * kCS;
    alignas(64) double xi[kCL], yi[kCL], zi[kCL], ti[kCL];
#pragma omp simd
    for (int s = 0; s < kCL; ++s) {
      xi[s] = a.x[oi + s / kCS];
      yi[s] = a.y[oi + s / kCS];
      zi[s] = a.z[oi + s / kCS];
      ti[s] = a.type[oi + s / kCS];
    }
    alignas(64) double sfx[kCL] = {}, sfy[kCL] = {}, sfz[kCL] = {}, se[kCL] = {}, sw[kCL] = {};
    alignas(64) double st[6][kCL];
    if constexpr (kTensor)
      for (auto& t : st)
        for (double& v : t) v = 0.0;
    for (int k = a.row_start[ci]; k < a.row_start[ci + 1]; ++k) {
      const int cj = a.partner[k];
      const long oj = static_cast<long>(cj) * kCS;
      const double wt = cj < nlc ? 1.0 : 0.5;
      const double* keep = cj == ci ? kClusterMasks.upper : kClusterMasks.all;
      alignas(64) double xj[kCL], yj[kCL], zj[kCL];
      spread_partner(a.x + oj, xj);
      spread_partner(a.y + oj, yj);
      spread_partner(a.z + oj, zj);
      alignas(64) double dx[kCL], dy[kCL], dz[kCL], r2[kCL], f[kCL], e[kCL], cut[kCL];
#pragma omp simd
      for (int s = 0; s < kCL; ++s) {
        dx[s] = xi[s] - xj[s];
        dy[s] = yi[s] - yj[s];
        dz[s] = zi[s] - zj[s];
        r2[s] = dx[s] * dx[s] + dy[s] * dy[s] + dz[s] * dz[s];
      }
      if constexpr (kOneType) {
        const P& q = a.params[a.type_stride + 1];
#pragma omp simd
        for (int s = 0; s < kCL; ++s) {
          Pot::eval(r2[s], q, f[s], e[s]);
          cut[s] = q.cutsq;
        }
      } else {
        alignas(64) double tj[kCL];
        spread_partner(a.type + oj, tj);
        for (int s = 0; s < kCL; ++s) {
          const P& q = a.params[static_cast<int>(ti[s]) * a.type_stride + static_cast<int>(tj[s])];
          Pot::eval(r2[s], q, f[s], e[s]);
          cut[s] = q.cutsq;
        }
      }
      alignas(64) double fxs[kCL], fys[kCL], fzs[kCL];
      // Lanes past the cutoff, padding and the self pair's lower half add
      // zero (the inf or NaN of r2 = 0 there is dropped, never added).
#pragma omp simd
      for (int s = 0; s < kCL; ++s) {
        const bool in = (r2[s] < cut[s]) & (keep[s] != 0.0);
        const double fm = in ? f[s] : 0.0;
        fxs[s] = dx[s] * fm;
        fys[s] = dy[s] * fm;
        fzs[s] = dz[s] * fm;
        sfx[s] += fxs[s];
        sfy[s] += fys[s];
        sfz[s] += fzs[s];
        se[s] += wt * (in ? e[s] : 0.0);
        sw[s] += wt * (r2[s] * fm);
      }
      if constexpr (kTensor) {
#pragma omp simd
        for (int s = 0; s < kCL; ++s) {
          st[0][s] += wt * (dx[s] * fxs[s]);
          st[1][s] += wt * (dy[s] * fys[s]);
          st[2][s] += wt * (dz[s] * fzs[s]);
          st[3][s] += wt * (dx[s] * fys[s]);
          st[4][s] += wt * (dx[s] * fzs[s]);
          st[5][s] += wt * (dy[s] * fzs[s]);
        }
      }
      if (cj < nlc) take_off_partner(fxs, fys, fzs, a.fx + oj, a.fy + oj, a.fz + oj);
    }
    const auto reduce = reduce_row;
    for (int i = 0; i < kCS; ++i) {
      a.fx[oi + i] += reduce(sfx, i);
      a.fy[oi + i] += reduce(sfy, i);
      a.fz[oi + i] += reduce(sfz, i);
      a.pe[oi + i] = reduce(se, i);
      a.virial[oi + i] = reduce(sw, i);
      if constexpr (kTensor)
        for (int c = 0; c < 6; ++c) a.tensor[c][oi + i] = reduce(st[c], i);
    }
  }
}

// The same in float (ClusterKernelArgs::mixed; the contract in
// cpu_cluster_kernel.hpp).
template <class Pot, bool kOneType, bool kTensor>
__attribute__((flatten)) void cluster_rows_mixed(const ClusterKernelArgs<typename Pot::Params>& a, int begin,
                                                 int end) {
  using P = typename Pot::template ParamsT<float>;
  const P* params = static_cast<const P*>(a.float_params);
  const int nlc = a.nlocal_clusters;
  const float *tx = a.tile[0], *ty = a.tile[1], *tz = a.tile[2];
  const float *ox = a.offset[0], *oy = a.offset[1], *oz = a.offset[2];
  for (int ci = begin; ci < end; ++ci) {
    const long oi = static_cast<long>(ci) * kCS;
    alignas(64) float txi[kCL], tyi[kCL], tzi[kCL], oxi[kCL], oyi[kCL], ozi[kCL];
    alignas(64) double ti[kCL];
#pragma omp simd
    for (int s = 0; s < kCL; ++s) {
      txi[s] = tx[oi + s / kCS];
      tyi[s] = ty[oi + s / kCS];
      tzi[s] = tz[oi + s / kCS];
      oxi[s] = ox[oi + s / kCS];
      oyi[s] = oy[oi + s / kCS];
      ozi[s] = oz[oi + s / kCS];
      ti[s] = a.type[oi + s / kCS];
    }
    alignas(64) float sfx[kCL] = {}, sfy[kCL] = {}, sfz[kCL] = {};
    alignas(64) double se[kCL] = {}, sw[kCL] = {};
    alignas(64) double st[6][kCL];
    if constexpr (kTensor)
      for (auto& t : st)
        for (double& v : t) v = 0.0;
    for (int k = a.row_start[ci]; k < a.row_start[ci + 1]; ++k) {
      const int cj = a.partner[k];
      const long oj = static_cast<long>(cj) * kCS;
      const double wt = cj < nlc ? 1.0 : 0.5;
      const float* keep = cj == ci ? kClusterMasks.upper_f : kClusterMasks.all_f;
      alignas(64) float txj[kCL], tyj[kCL], tzj[kCL], oxj[kCL], oyj[kCL], ozj[kCL];
      spread_partner(tx + oj, txj);
      spread_partner(ty + oj, tyj);
      spread_partner(tz + oj, tzj);
      spread_partner(ox + oj, oxj);
      spread_partner(oy + oj, oyj);
      spread_partner(oz + oj, ozj);
      alignas(64) float dx[kCL], dy[kCL], dz[kCL], r2[kCL], f[kCL], e[kCL];
#pragma omp simd
      for (int s = 0; s < kCL; ++s) {
        dx[s] = (oxi[s] - oxj[s]) + (txi[s] - txj[s]);
        dy[s] = (oyi[s] - oyj[s]) + (tyi[s] - tyj[s]);
        dz[s] = (ozi[s] - ozj[s]) + (tzi[s] - tzj[s]);
        r2[s] = dx[s] * dx[s] + dy[s] * dy[s] + dz[s] * dz[s];
      }
      // Lanes out of the cutoff, padding and the self pair's lower half are
      // evaluated at the cutoff instead and add zero: no inf, NaN or float
      // underflow in them (padding lies far off, and r^-12 of a far lane is
      // below float's normal range: each such lane cost a slow assist).
      alignas(64) float on[kCL];
      if constexpr (kOneType) {
        const P& q = params[a.type_stride + 1];
#pragma omp simd
        for (int s = 0; s < kCL; ++s) {
          const bool in = (r2[s] < q.cutsq) & (keep[s] != 0.0f);
          on[s] = in ? 1.0f : 0.0f;
          Pot::eval(in ? r2[s] : q.cutsq, q, f[s], e[s]);
        }
      } else {
        for (int s = 0; s < kCL; ++s) {
          const P& q = params[static_cast<int>(ti[s]) * a.type_stride + static_cast<int>(a.type[oj + s % kCS])];
          const bool in = (r2[s] < q.cutsq) & (keep[s] != 0.0f);
          on[s] = in ? 1.0f : 0.0f;
          Pot::eval(in ? r2[s] : q.cutsq, q, f[s], e[s]);
        }
      }
      alignas(64) float fxs[kCL], fys[kCL], fzs[kCL], fm[kCL];
#pragma omp simd
      for (int s = 0; s < kCL; ++s) {
        const bool in = on[s] != 0.0f;
        fm[s] = in ? f[s] : 0.0f;
        fxs[s] = dx[s] * fm[s];
        fys[s] = dy[s] * fm[s];
        fzs[s] = dz[s] * fm[s];
        sfx[s] += fxs[s];
        sfy[s] += fys[s];
        sfz[s] += fzs[s];
        se[s] += wt * static_cast<double>(in ? e[s] : 0.0f);
        sw[s] += wt * static_cast<double>(r2[s] * fm[s]);
      }
      if constexpr (kTensor) {
#pragma omp simd
        for (int s = 0; s < kCL; ++s) {
          st[0][s] += wt * static_cast<double>(dx[s] * fxs[s]);
          st[1][s] += wt * static_cast<double>(dy[s] * fys[s]);
          st[2][s] += wt * static_cast<double>(dz[s] * fzs[s]);
          st[3][s] += wt * static_cast<double>(dx[s] * fys[s]);
          st[4][s] += wt * static_cast<double>(dx[s] * fzs[s]);
          st[5][s] += wt * static_cast<double>(dy[s] * fzs[s]);
        }
      }
      if (cj < nlc)
        take_off_partner(fxs, fys, fzs, a.partner_force[0] + oj, a.partner_force[1] + oj, a.partner_force[2] + oj);
    }
    alignas(64) double dfx[kCL], dfy[kCL], dfz[kCL];
#pragma omp simd
    for (int s = 0; s < kCL; ++s) {
      dfx[s] = sfx[s];
      dfy[s] = sfy[s];
      dfz[s] = sfz[s];
    }
    for (int i = 0; i < kCS; ++i) {
      a.fx[oi + i] += reduce_row(dfx, i);
      a.fy[oi + i] += reduce_row(dfy, i);
      a.fz[oi + i] += reduce_row(dfz, i);
      a.pe[oi + i] = reduce_row(se, i);
      a.virial[oi + i] = reduce_row(sw, i);
      if constexpr (kTensor)
        for (int c = 0; c < 6; ++c) a.tensor[c][oi + i] = reduce_row(st[c], i);
    }
  }
}

template <class Pot>
void cluster_kernel_of(const ClusterKernelArgs<typename Pot::Params>& a, int begin, int end) {
  if (a.mixed) {
    if (a.tensor[0])
      a.one_type ? cluster_rows_mixed<Pot, true, true>(a, begin, end)
                 : cluster_rows_mixed<Pot, false, true>(a, begin, end);
    else
      a.one_type ? cluster_rows_mixed<Pot, true, false>(a, begin, end)
                 : cluster_rows_mixed<Pot, false, false>(a, begin, end);
    return;
  }
  if (a.tensor[0]) {
    if (a.one_type)
      cluster_rows<Pot, true, true>(a, begin, end);
    else
      cluster_rows<Pot, false, true>(a, begin, end);
  } else if (a.one_type) {
    cluster_rows<Pot, true, false>(a, begin, end);
  } else {
    cluster_rows<Pot, false, false>(a, begin, end);
  }
}

}  // namespace TESSERA_SIMD_NS
}  // namespace tessera
