#include "neighbor/cluster_pairs.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>
#include <omp.h>

#include "atoms/atom_store.hpp"
#include "backend/cpu_cluster_kernel.hpp"
#include "domain/box.hpp"

namespace tessera {

namespace {

// Columns over [lo, lo + len) in x and y, x the slower index.
struct Columns {
  double lo[2], w[2], inv[2];
  int n[2];
  int of(double x, double y) const {
    const double v[2] = {x, y};
    int c[2];
    for (int d = 0; d < 2; ++d) {
      // Clamped before the conversion (a ghost beyond the region's edge, or
      // NaN, lands in an edge column: farther from every local than the
      // column's rectangle, so the search's pruning stays conservative).
      const double t = (v[d] - lo[d]) * inv[d];
      c[d] = !(t >= 0) ? 0 : t >= n[d] ? n[d] - 1 : static_cast<int>(t);
    }
    return c[0] * n[1] + c[1];
  }
};

// Squared gap between [a0, a1] and [b0, b1] (0 when they overlap).
inline double gap_sq(double a0, double a1, double b0, double b1) {
  const double g = b0 > a1 ? b0 - a1 : a0 > b1 ? a0 - b1 : 0.0;
  return g * g;
}

}  // namespace

void ClusterBuilder::build(const AtomStore& a, const SubDomain& sd, double reach, ClusterPairs& out) {
  const int nlocal = static_cast<int>(a.nlocal), nall = static_cast<int>(a.nall());
  constexpr int S = kClusterSize;

  // Columns about as wide as a cluster of locals is tall, so clusters are
  // near cubes (the fewest pairs beyond the cutoff inside the blocks).
  double volume = 1;
  for (int d = 0; d < 3; ++d) volume *= sd.hi[d] - sd.lo[d];
  const double density = nlocal > 0 && volume > 0 ? nlocal / volume : 1.0;
  const double width = std::cbrt(S / density);
  Columns g;
  for (int d = 0; d < 2; ++d) {
    g.lo[d] = sd.lo[d] - reach;
    const double len = sd.hi[d] - sd.lo[d] + 2 * reach;
    g.n[d] = std::max(1, std::min(1 << 11, static_cast<int>(std::floor(len / width))));
    g.w[d] = len / g.n[d];
    g.inv[d] = g.n[d] / len;
  }
  const int ncol = g.n[0] * g.n[1];

  // Buckets: locals by column, then ghosts by column; a stable counting
  // sort, then each bucket by z (ties by index).
  const int nbucket = 2 * ncol;
  col_.resize(static_cast<std::size_t>(nall));
  col_start_.assign(static_cast<std::size_t>(nbucket) + 1, 0);
  for (int i = 0; i < nall; ++i) {
    col_[i] = g.of(a.x[i], a.y[i]) + (i < nlocal ? 0 : ncol);
    ++col_start_[col_[i] + 1];
  }
  for (int b = 0; b < nbucket; ++b) col_start_[b + 1] += col_start_[b];
  order_.resize(static_cast<std::size_t>(nall));
  next_.assign(col_start_.begin(), col_start_.end() - 1);
  for (int i = 0; i < nall; ++i) order_[next_[col_[i]]++] = i;
  const double* z = a.z.data();
#pragma omp parallel for schedule(dynamic, 64)
  for (int b = 0; b < nbucket; ++b)
    std::sort(order_.begin() + col_start_[b], order_.begin() + col_start_[b + 1],
              [z](int p, int q) { return z[p] < z[q] || (z[p] == z[q] && p < q); });

  // Clusters: each bucket's atoms in runs of S.
  col_clusters_.resize(static_cast<std::size_t>(nbucket) + 1);
  col_clusters_[0] = 0;
  for (int b = 0; b < nbucket; ++b)
    col_clusters_[b + 1] = col_clusters_[b] + (col_start_[b + 1] - col_start_[b] + S - 1) / S;
  const int nclusters = col_clusters_[nbucket];
  out.nclusters = nclusters;
  out.nlocal_clusters = col_clusters_[ncol];
  out.atom.assign(static_cast<std::size_t>(nclusters) * S, -1);
  bb_.resize(static_cast<std::size_t>(nclusters) * 6);
  pos_.assign(static_cast<std::size_t>(nclusters) * 3 * S, 1e30);  // padding: far from every atom
#pragma omp parallel for schedule(dynamic, 64)
  for (int b = 0; b < nbucket; ++b) {
    const int m0 = col_start_[b], m1 = col_start_[b + 1];
    for (int c = col_clusters_[b]; c < col_clusters_[b + 1]; ++c) {
      double* box = bb_.data() + 6L * c;
      for (int d = 0; d < 3; ++d) {
        box[d] = HUGE_VAL;
        box[3 + d] = -HUGE_VAL;
      }
      const int k0 = m0 + (c - col_clusters_[b]) * S;
      for (int k = 0; k < S && k0 + k < m1; ++k) {
        const int i = order_[k0 + k];
        out.atom[static_cast<std::size_t>(c) * S + k] = i;
        for (int d = 0; d < 3; ++d) pos_[(3L * c + d) * S + k] = d == 0 ? a.x[i] : d == 1 ? a.y[i] : a.z[i];
        const double p[3] = {a.x[i], a.y[i], a.z[i]};
        for (int d = 0; d < 3; ++d) {
          box[d] = std::min(box[d], p[d]);
          box[3 + d] = std::max(box[3 + d], p[d]);
        }
      }
    }
  }

  // Slabs: strips of whole columns along x. A listed pair's boxes are
  // closer than reach, so their columns differ by at most span along x
  // (atoms of a local cluster lie in its column at a build); strips
  // ceil(span / 2) columns wide keep the partners within the next two.
  const int span = static_cast<int>(std::floor(reach / g.w[0] * (1 + 1e-9))) + 1;
  const int strip = std::max(1, (span + 1) / 2);
  const int nslab = (g.n[0] + strip - 1) / strip;
  out.slab_start.resize(static_cast<std::size_t>(nslab) + 1);
  for (int s = 0; s < nslab; ++s) out.slab_start[s] = col_clusters_[std::min(s * strip, g.n[0]) * g.n[1]];
  out.slab_start[nslab] = out.nlocal_clusters;

  // Rows: each local cluster's own cluster, then its local partners above
  // it, then its ghosts, each kind in one fixed order (columns x then y,
  // increasing z within a column).
  const double reach_sq = reach * reach;
  const int nlc = out.nlocal_clusters;
  const int span_y = static_cast<int>(std::floor(reach / g.w[1] * (1 + 1e-9))) + 1;
  // Whether any atom pair of the two clusters is closer than reach: boxes
  // alone keep about twice the pairs (corners), each costing a whole block.
  const double* px = pos_.data();
  const ClusterNearFn near = clusters_near_for(simd_level());
  auto any_within = [&](int ci, int cj) { return near(px + 3L * S * ci, px + 3L * S * cj, reach_sq); };
  // A row: its own cluster (which holds at least one atom, at distance 0
  // from itself), local partners, then ghosts from where mark() is called.
  auto visit = [&](int ci, auto&& emit, auto&& mark) {
    const double* bi = bb_.data() + 6L * ci;
    const int col =
        g.of(a.x[out.atom[static_cast<std::size_t>(ci) * S]], a.y[out.atom[static_cast<std::size_t>(ci) * S]]);
    const int cx = col / g.n[1], cy = col % g.n[1];
    emit(ci);
    for (int ghost = 0; ghost < 2; ++ghost) {
      if (ghost) mark();
      for (int jx = std::max(cx - span, 0); jx <= std::min(cx + span, g.n[0] - 1); ++jx) {
        const double gx = gap_sq(bi[0], bi[3], g.lo[0] + jx * g.w[0], g.lo[0] + (jx + 1) * g.w[0]);
        if (gx >= reach_sq) continue;
        for (int jy = std::max(cy - span_y, 0); jy <= std::min(cy + span_y, g.n[1] - 1); ++jy) {
          const double gxy = gx + gap_sq(bi[1], bi[4], g.lo[1] + jy * g.w[1], g.lo[1] + (jy + 1) * g.w[1]);
          if (gxy >= reach_sq) continue;
          {
            const int b = jx * g.n[1] + jy + ghost * ncol;
            int c0 = col_clusters_[b];
            const int c1 = col_clusters_[b + 1];
            if (!ghost) c0 = std::max(c0, ci + 1);  // a local pair in the lower cluster's row
            // A column's clusters are in increasing z, their boxes' tops too.
            const double zmin = bi[2] - reach, zmax = bi[5] + reach;
            int lo = c0, hi = c1;
            while (lo < hi) {
              const int mid = (lo + hi) / 2;
              if (bb_[6L * mid + 5] <= zmin)
                lo = mid + 1;
              else
                hi = mid;
            }
            for (int cj = lo; cj < c1; ++cj) {
              const double* bj = bb_.data() + 6L * cj;
              if (bj[2] >= zmax) break;
              const double d2 = gap_sq(bi[0], bi[3], bj[0], bj[3]) + gap_sq(bi[1], bi[4], bj[1], bj[4]) +
                                gap_sq(bi[2], bi[5], bj[2], bj[5]);
              if (d2 < reach_sq && any_within(ci, cj)) emit(cj);
            }
          }
        }
      }
    }
  };
  // One pass: each thread's contiguous run of rows into its own buffer,
  // then the runs one after another (a row depends on the positions alone,
  // so the list is the same for any thread count).
  out.row_start.resize(static_cast<std::size_t>(nlc) + 1);
  out.row_start[0] = 0;
  out.ghost_start.resize(static_cast<std::size_t>(nlc));
  slab_of_.resize(static_cast<std::size_t>(nlc));
  int* const slab_of = slab_of_.data();
  for (int s = 0; s < nslab; ++s)
    for (int c = out.slab_start[s]; c < out.slab_start[s + 1]; ++c) slab_of[c] = s;
  int bad = -1;
  std::vector<int>& run_end = run_end_;
#pragma omp parallel reduction(max : bad)
  {
    const int nt = omp_get_num_threads(), t = omp_get_thread_num();
#pragma omp single
    {
      runs_.resize(static_cast<std::size_t>(nt));
      run_end.assign(static_cast<std::size_t>(nt) + 1, 0);
    }
    const int c0 = static_cast<int>(static_cast<long>(nlc) * t / nt);
    const int c1 = static_cast<int>(static_cast<long>(nlc) * (t + 1) / nt);
    std::vector<int>& buf = runs_[t];
    buf.clear();
    for (int ci = c0; ci < c1; ++ci) {
      visit(
          ci,
          [&](int cj) {
            buf.push_back(cj);
            if (cj < nlc && slab_of[cj] - slab_of[ci] >= kClusterColors) bad = std::max(bad, ci);
          },
          [&] { out.ghost_start[ci] = static_cast<int>(buf.size()); });
      out.row_start[ci + 1] = static_cast<int>(buf.size());
    }
    run_end[t + 1] = static_cast<int>(buf.size());
#pragma omp barrier
#pragma omp single
    {
      for (int k = 0; k < nt; ++k) run_end[k + 1] += run_end[k];
      out.partner.resize(static_cast<std::size_t>(run_end[nt]));
    }
    for (int ci = c0; ci < c1; ++ci) {
      out.row_start[ci + 1] += run_end[t];
      out.ghost_start[ci] += run_end[t];
    }
    std::copy(buf.begin(), buf.end(), out.partner.begin() + run_end[t]);
  }
  if (bad >= 0)
    throw std::logic_error(
        fmt::format("cluster list: local cluster {} has a partner {} or more slabs on", bad, kClusterColors));
}

}  // namespace tessera
