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
};
constexpr ClusterMasks make_cluster_masks() {
  ClusterMasks m{};
  for (int s = 0; s < kCL; ++s) {
    m.all[s] = 1.0;
    m.upper[s] = s % kCS > s / kCS ? 1.0 : 0.0;
  }
  return m;
}
inline constexpr ClusterMasks kClusterMasks = make_cluster_masks();

// Four values of slot run p broadcast over the lanes as p[s % kCS]: one
// 32-byte load that the lanes of all four row atoms share.
inline void spread_partner(const double* p, double* out) {
#pragma omp simd
  for (int s = 0; s < kCL; ++s) out[s] = p[s % kCS];
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
      if (cj < nlc) {
#pragma omp simd
        for (int j = 0; j < kCS; ++j) {
          a.fx[oj + j] -= (fxs[j] + fxs[kCS + j]) + (fxs[2 * kCS + j] + fxs[3 * kCS + j]);
          a.fy[oj + j] -= (fys[j] + fys[kCS + j]) + (fys[2 * kCS + j] + fys[3 * kCS + j]);
          a.fz[oj + j] -= (fzs[j] + fzs[kCS + j]) + (fzs[2 * kCS + j] + fzs[3 * kCS + j]);
        }
      }
    }
    auto reduce = [](const double* v, int i) {
      return (v[kCS * i] + v[kCS * i + 1]) + (v[kCS * i + 2] + v[kCS * i + 3]);
    };
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

template <class Pot>
void cluster_kernel_of(const ClusterKernelArgs<typename Pot::Params>& a, int begin, int end) {
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
