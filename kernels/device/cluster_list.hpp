#pragma once
// A lean neighbour list for the device (`neighbor.layout: clusters`): atoms
// (locals and ghosts) grouped into clusters of up to 8, and per cluster the
// clusters near it. One 4-byte index and a 1-byte mask per cluster pair,
// shared by the 8 atoms of the cluster, is about a tenth of the memory of a
// full per-atom list (78 neighbours of 4 bytes each at LJ density); the price
// is more distance tests in the force loop (cluster_forces.hpp).
//
// Clusters are compact because atoms are sorted by column (a 2-D grid in x, y,
// columns about one cluster wide) and by z within a column, and a cluster is
// 8 consecutive atoms of one column (the GPU layout of GROMACS's nbnxm, in a
// simpler form). Every step is a sort, a scan or one thread per item with no
// atomics, so the list is a function of the positions alone.
#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#include <cmath>
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "device/device_atoms.hpp"
#include "device/neighbor_lists.hpp"
#include "domain/box.hpp"
#include "neighbor/neighbor_list.hpp"

namespace tessera::device {
inline namespace TESSERA_DEVICE_SYSTEM_NS {

// Columns over [lo, hi) in x and y; z is only quantised for the sort key.
struct ColumnGrid {
  double lo[3] = {0, 0, 0};
  double inv[2] = {1, 1};
  int n[2] = {1, 1};
  double z_scale = 1;  // key units per length along z

  // Columns about `width` wide, at most 2^22 of them.
  static ColumnGrid cover(const double lo_in[3], const double hi_in[3], double width) {
    ColumnGrid g;
    for (;;) {
      double cols = 1;
      for (int d = 0; d < 2; ++d) {
        const double len = hi_in[d] - lo_in[d];
        cols *= len > width ? std::floor(len / width) : 1.0;
      }
      if (cols <= double(1 << 22)) break;
      width *= 2;
    }
    for (int d = 0; d < 2; ++d) {
      const double len = hi_in[d] - lo_in[d];
      g.n[d] = len > width ? static_cast<int>(std::floor(len / width)) : 1;
      g.inv[d] = g.n[d] / len;
    }
    for (int d = 0; d < 3; ++d) g.lo[d] = lo_in[d];
    const double zlen = hi_in[2] - lo_in[2];
    g.z_scale = 4294967295.0 / (zlen > 0 ? zlen : 1.0);
    return g;
  }
  TESSERA_HD int coord(int d, double v) const {
    // Clamped before the conversion, as CellGrid::coord.
    const double t = (v - lo[d]) * inv[d];
    if (!(t >= 0)) return 0;
    return t >= n[d] ? n[d] - 1 : static_cast<int>(t);
  }
  TESSERA_HD std::uint64_t key(double x, double y, double z) const {
    const std::uint64_t col = static_cast<std::uint64_t>(coord(1, y)) * n[0] + coord(0, x);
    double q = (z - lo[2]) * z_scale;
    q = q > 0 ? (q < 4294967295.0 ? q : 4294967295.0) : 0;  // NaN too: 0
    return col << 32 | static_cast<std::uint64_t>(q);
  }
  int count() const { return n[0] * n[1]; }
};

namespace detail {

// Whether row r reads a ghost: a listed cluster with a ghost among the
// slots its mask lets through.
struct RowReadsGhost {
  const int* slot_atom;
  const int* first;
  const int* count;
  const int* cj;
  const std::uint8_t* jmask;
  int stride;
  int nlocal;
  TESSERA_HD bool operator()(int r) const {
    const long row = static_cast<long>(r) * stride;
    for (int k = 0; k < count[r]; ++k) {
      const unsigned m = jmask[row + k];
      const int s0 = first[cj[row + k]];
      for (int jj = 0; jj < kClusterSize; ++jj)
        if ((m >> jj & 1u) && slot_atom[s0 + jj] >= nlocal) return true;
    }
    return false;
  }
};

struct Key {
  ColumnGrid g;
  const double* x;
  const double* y;
  const double* z;
  TESSERA_HD std::uint64_t operator()(int i) const { return g.key(x[i], y[i], z[i]); }
};

struct ColumnFirstKey {
  TESSERA_HD std::uint64_t operator()(std::uint64_t c) const { return c << 32; }
};

struct ClustersInColumn {
  const int* col_start;
  TESSERA_HD int operator()(int c) const {
    return (col_start[c + 1] - col_start[c] + kClusterSize - 1) / kClusterSize;
  }
};

// Writes the first slot of each cluster of column c.
struct ClusterFirsts {
  const int* col_start;
  const int* col_cluster;
  int* first;
  TESSERA_HD void operator()(int c) const {
    int k = col_cluster[c];
    for (int s = col_start[c]; s < col_start[c + 1]; s += kClusterSize) first[k++] = s;
  }
};

struct Bounds {
  double lo[3], hi[3];
};

struct ClusterBounds {
  const int* first;
  const int* slot_atom;
  const double* x;
  const double* y;
  const double* z;
  Bounds* out;
  TESSERA_HD void operator()(int c) const {
    Bounds b;
    for (int d = 0; d < 3; ++d) {
      b.lo[d] = 1e300;
      b.hi[d] = -1e300;
    }
    for (int s = first[c]; s < first[c + 1]; ++s) {
      const int a = slot_atom[s];
      const double p[3] = {x[a], y[a], z[a]};
      for (int d = 0; d < 3; ++d) {
        b.lo[d] = p[d] < b.lo[d] ? p[d] : b.lo[d];
        b.hi[d] = p[d] > b.hi[d] ? p[d] : b.hi[d];
      }
    }
    out[c] = b;
  }
};

struct HoldsLocal {
  const int* first;
  const int* slot_atom;
  int nlocal;
  TESSERA_HD bool operator()(int c) const {
    for (int s = first[c]; s < first[c + 1]; ++s)
      if (slot_atom[s] < nlocal) return true;
    return false;
  }
};

TESSERA_HD inline double gap_sq(const Bounds& a, const Bounds& b) {
  double s = 0;
  for (int d = 0; d < 3; ++d) {
    const double g = a.lo[d] > b.hi[d] ? a.lo[d] - b.hi[d] : (b.lo[d] > a.hi[d] ? b.lo[d] - a.hi[d] : 0.0);
    s += g * g;
  }
  return s;
}

// Lists the clusters near row r's cluster; counts all of them but writes only
// those that fit, so an overflow is measured, not guessed.
struct ScanClusters {
  ColumnGrid g;
  const int* col_cluster;    // per column: its first cluster, plus the end
  const int* first;
  const int* slot_atom;
  const int* row_cluster;
  const Bounds* bounds;
  const double* x;
  const double* y;
  const double* z;
  double reach;
  int reach_cols[2];  // columns to search on each side
  int stride;
  int* cj;
  std::uint8_t* jmask;
  int* count;

  TESSERA_HD void operator()(int r) const {
    const int ci = row_cluster[r];
    const Bounds bi = bounds[ci];
    // The column of the cluster's first atom is the cluster's (the sort key's).
    const int a0 = slot_atom[first[ci]];
    const int cx = g.coord(0, x[a0]), cy = g.coord(1, y[a0]);
    const double reach_sq = reach * reach;
    int k = 0;
    for (int oy = cy - reach_cols[1]; oy <= cy + reach_cols[1]; ++oy) {
      if (oy < 0 || oy >= g.n[1]) continue;
      for (int ox = cx - reach_cols[0]; ox <= cx + reach_cols[0]; ++ox) {
        if (ox < 0 || ox >= g.n[0]) continue;
        const int c = oy * g.n[0] + ox;
        // Clusters of a column go up in z: skip those wholly below, stop at
        // the first wholly above (with a margin for the key's rounding).
        // Two key steps of margin: a later cluster's atoms are at most one
        // key step below an earlier one's.
        const double margin = 2.0 / g.z_scale;
        const double zfrom = bi.lo[2] - reach - margin, zto = bi.hi[2] + reach + margin;
        int lo = col_cluster[c], hi = col_cluster[c + 1];
        while (lo < hi) {
          const int mid = lo + (hi - lo) / 2;
          if (bounds[mid].hi[2] < zfrom)
            lo = mid + 1;
          else
            hi = mid;
        }
        for (int cj_ = lo; cj_ < col_cluster[c + 1]; ++cj_) {
          const Bounds& bj = bounds[cj_];
          if (bj.lo[2] > zto) break;
          if (gap_sq(bi, bj) >= reach_sq) continue;
          unsigned m = 0;
          for (int s = first[cj_], jj = 0; s < first[cj_ + 1]; ++s, ++jj) {
            const int a = slot_atom[s];
            const Bounds p{{x[a], y[a], z[a]}, {x[a], y[a], z[a]}};
            if (gap_sq(bi, p) < reach_sq) m |= 1u << jj;
          }
          if (m == 0) continue;
          if (k < stride) {
            cj[static_cast<long>(r) * stride + k] = cj_;
            jmask[static_cast<long>(r) * stride + k] = static_cast<std::uint8_t>(m);
          }
          ++k;
        }
      }
    }
    count[r] = k;
  }
};

}  // namespace detail

class ClusterListBuilder {
 public:
  explicit ClusterListBuilder(DeviceStream s) : stream_(s) {}

  // Every pair of atoms closer than `reach`, one of them local, lies in a
  // listed cluster pair (with the bit of the other atom set). Local atoms
  // are [0, nlocal) of a; ghosts are searched in the region sd widened by reach.
  // Returns how many times the rows had to grow.
  int build(const DeviceAtoms& a, const SubDomain& sd, double reach, DeviceClusterList& cl) {
    double lo[3], hi[3], volume = 1;
    for (int d = 0; d < 3; ++d) {
      lo[d] = sd.lo[d] - reach;
      hi[d] = sd.hi[d] + reach;
      volume *= hi[d] - lo[d];
    }
    const int nall = a.nall();
    // Columns as wide as a cube holding one cluster at the mean density.
    const double width = std::cbrt(kClusterSize * volume / (nall > 0 ? nall : 1));
    const ColumnGrid g = ColumnGrid::cover(lo, hi, width);
    const int ncols = g.count();

    // The keys, then the clusters' bounds, in the stage scratch (exec_policy.hpp).
    const auto keys = stage_scratch<std::uint64_t>(stream_, nall);
    resize_for_overwrite(stream_, cl.slot_atom, nall);
    thrust::transform(policy(stream_), thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(nall), keys,
                      detail::Key{g, raw(a.x), raw(a.y), raw(a.z)});
    thrust::sequence(policy(stream_), cl.slot_atom.begin(), cl.slot_atom.end());
    thrust::stable_sort_by_key(policy(stream_), keys, keys + nall, cl.slot_atom.begin());

    resize_for_overwrite(stream_, col_start_, static_cast<std::size_t>(ncols) + 1);
    const auto col_keys = thrust::make_transform_iterator(thrust::counting_iterator<std::uint64_t>(0),
                                                          detail::ColumnFirstKey{});
    thrust::lower_bound(policy(stream_), keys, keys + nall, col_keys, col_keys + (ncols + 1),
                        col_start_.begin());
    resize_for_overwrite(stream_, col_cluster_, static_cast<std::size_t>(ncols) + 1);
    thrust::transform(policy(stream_), thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(ncols),
                      col_cluster_.begin(), detail::ClustersInColumn{raw(col_start_)});
    thrust::exclusive_scan(policy(stream_), col_cluster_.begin(), col_cluster_.end(), col_cluster_.begin());
    // The one value the host needs (sizes), once the scan has run.
    const int nclusters = read_element(stream_, col_cluster_, static_cast<std::size_t>(ncols));

    resize_for_overwrite(stream_, cl.first, static_cast<std::size_t>(nclusters) + 1);
    for_each_index(stream_, ncols, detail::ClusterFirsts{raw(col_start_), raw(col_cluster_), raw(cl.first)});
    write_element(stream_, cl.first, static_cast<std::size_t>(nclusters), nall);
    detail::Bounds* const bounds = thrust::raw_pointer_cast(stage_scratch<detail::Bounds>(stream_, nclusters));
    for_each_index(stream_, nclusters,
                   detail::ClusterBounds{raw(cl.first), raw(cl.slot_atom), raw(a.x), raw(a.y), raw(a.z), bounds});

    resize_for_overwrite(stream_, cl.row_cluster, nclusters);
    const auto rows_end =
        thrust::copy_if(policy(stream_), thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(nclusters),
                        cl.row_cluster.begin(), detail::HoldsLocal{raw(cl.first), raw(cl.slot_atom), a.nlocal});
    cl.nrows = static_cast<int>(rows_end - cl.row_cluster.begin());
    resize(stream_, cl.row_cluster, cl.nrows);

    detail::ScanClusters scan{g, raw(col_cluster_), raw(cl.first), raw(cl.slot_atom), raw(cl.row_cluster),
                              bounds, raw(a.x), raw(a.y), raw(a.z), reach, {0, 0}, 0, nullptr, nullptr, nullptr};
    for (int d = 0; d < 2; ++d) scan.reach_cols[d] = static_cast<int>(std::floor(reach * g.inv[d])) + 1;
    if (cl.next_stride > 0) cl.stride = cl.next_stride;
    if (cl.stride <= 0) cl.stride = 64;
    resize_for_overwrite(stream_, cl.count, cl.nrows);
    int grows = 0;
    for (;;) {
      const std::size_t n = static_cast<std::size_t>(cl.nrows) * cl.stride;
      resize_for_overwrite(stream_, cl.cj, n);
      resize_for_overwrite(stream_, cl.jmask, n);
      scan.stride = cl.stride;
      scan.cj = raw(cl.cj);
      scan.jmask = raw(cl.jmask);
      scan.count = raw(cl.count);
      for_each_index(stream_, cl.nrows, scan);
      const int needed = thrust::reduce(policy(stream_), cl.count.begin(), cl.count.end(), 0, MaxOf{});
      needed_ = needed;
      if (needed <= cl.stride) break;
      cl.stride = needed + needed / 8 + 4;
      ++grows;
    }
    // The next build starts from the stride this one needed, so rows do not
    // stay padded for a denser past (their storage is kept all the same).
    cl.next_stride = needed_ + needed_ / 8 + 4;
    return grows;
  }

 private:
  DeviceStream stream_;
  dvec<int> col_start_, col_cluster_;
  int needed_ = 0;
};

// The per-atom rows of a cluster list, for the host's readers of
// NeighborList (the summary, the RDF): each local atom's neighbours closer
// than `reach` now, in the cluster list's order. Output only: this copies the
// list and the positions to the host (device -> host copies), once what `s`
// queued has run.
inline void download_rows(const DeviceStream& s, const DeviceClusterList& cl, const DeviceAtoms& a, double reach,
                          NeighborList& l) {
  const auto host = [&s](const auto& d) {
    std::vector<typename std::decay_t<decltype(d)>::value_type> h;
    to_host(s, d, d.size(), h);
    return h;
  };
  const auto slot_atom = host(cl.slot_atom), first = host(cl.first), rows = host(cl.row_cluster),
             count = host(cl.count);
  const auto cj = host(cl.cj);
  const auto jmask = host(cl.jmask);
  const auto x = host(a.x), y = host(a.y), z = host(a.z);
  const std::size_t nlocal = static_cast<std::size_t>(a.nlocal);
  std::vector<std::vector<int>> nbrs(nlocal);
  for (int r = 0; r < cl.nrows; ++r) {
    const int ci = rows[r];
    for (int s = first[ci]; s < first[ci + 1]; ++s) {
      const int i = slot_atom[s];
      if (i >= a.nlocal) continue;
      for (int k = 0; k < count[r]; ++k) {
        const long e = static_cast<long>(r) * cl.stride + k;
        for (int jj = 0, t = first[cj[e]]; t < first[cj[e] + 1]; ++jj, ++t) {
          const int j = slot_atom[t];
          const double dx = x[i] - x[j], dy = y[i] - y[j], dz = z[i] - z[j];
          if ((jmask[e] >> jj & 1) && j != i && dx * dx + dy * dy + dz * dz < reach * reach) nbrs[i].push_back(j);
        }
      }
    }
  }
  std::size_t stride = 1;
  for (const auto& n : nbrs) stride = n.size() > stride ? n.size() : stride;
  l.stride = static_cast<int>(stride);
  l.pad = 1;
  l.count.assign(nlocal, 0);
  l.index.assign(nlocal * stride, 0);
  for (std::size_t i = 0; i < nlocal; ++i) {
    l.count[i] = static_cast<int>(nbrs[i].size());
    std::copy(nbrs[i].begin(), nbrs[i].end(), l.index.begin() + static_cast<long>(i * stride));
  }
}

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
