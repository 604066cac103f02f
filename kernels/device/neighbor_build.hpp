#pragma once
// Full Verlet lists on the device, with the meaning of NeighborList
// (src/neighbor/neighbor_list.hpp) transposed: the neighbours (local or
// ghost) of local atom i closer than reach are index[k * pitch + i] for
// k < count[i] (neighbor_lists.hpp says why). Cells at least half the reach
// wide over the ghost-padded region, so a search of 5 x 5 x 5 cells finds
// them all (a reach wide and 3 x 3 x 3 in sparse systems, as on the CPU);
// one thread per atom, no atomics, so the list is a function of the
// positions alone.
#include <cmath>

#include <thrust/copy.h>
#include <thrust/gather.h>
#include <thrust/reduce.h>

#include "atoms/molecular_fields.hpp"
#include "device/cell_bins.hpp"
#include "device/cluster_list.hpp"
#include "device/device_atoms.hpp"
#include "device/neighbor_lists.hpp"
#include "domain/box.hpp"
#include "neighbor/row_stride.hpp"

namespace tessera::device {
inline namespace TESSERA_DEVICE_SYSTEM_NS {

namespace detail {

// Lists atom i's neighbours; counts all of them but writes only those that
// fit, so an overflow is measured, not guessed.
struct ScanNeighbors {
  CellGrid grid;
  // Cells at least reach / span wide, searched span cells each way
  // (reach_in_cells, as the CPU's builder): with half-reach cells the 125
  // cells hold about 0.58 of the candidates of 27 reach-wide ones
  // (5^3 / 2^3 = 15.6 against 27 cubic reaches).
  int span;
  const int* start;
  const int* binned;  // atom of each binned slot
  const double* bx;   // positions in binned order: one contiguous run per row of cells
  const double* by;
  const double* bz;
  const double* x;
  const double* y;
  const double* z;
  double reach_sq;
  int stride;  // room per atom
  long pitch;  // index[k * pitch + i]
  int* index;
  int* count;
  // Molecules: the ids and each local's special neighbours (null when the
  // molecular fields are off). Pairs with factor 0 are left out, as the
  // CPU's list search does (neighbor/verlet_builder.cpp).
  const AtomId* id = nullptr;
  AtomId* special[kMaxSpecial] = {};
  // Whether the row lists a ghost (index nlocal or above), for the split of
  // the locals into inner and outer: noted while the row is made, since a
  // second pass over the transposed list would read it a row at a time.
  std::uint8_t* reads_ghost;
  int nlocal;
  TESSERA_HD void operator()(int i) const {
    const double xi = x[i], yi = y[i], zi = z[i];
    const ExcludedIds excluded(special, i);
    const int cx = grid.coord(0, xi), cy = grid.coord(1, yi), cz = grid.coord(2, zi);
    int* row = index + i;
    int k = 0;
    bool ghost = false;
    for (int oz = cz - span; oz <= cz + span; ++oz) {
      if (oz < 0 || oz >= grid.n[2]) continue;
      for (int oy = cy - span; oy <= cy + span; ++oy) {
        if (oy < 0 || oy >= grid.n[1]) continue;
        // The cells of a row along x are consecutive cells, hence one run of slots.
        const int x0 = cx - span > 0 ? cx - span : 0,
                  x1 = cx + span < grid.n[0] ? cx + span : grid.n[0] - 1;
        const int m1 = start[grid.index(x1, oy, oz) + 1];
        for (int m = start[grid.index(x0, oy, oz)]; m < m1; ++m) {
          const double dx = xi - bx[m], dy = yi - by[m], dz = zi - bz[m];
          const int j = binned[m];
          if (dx * dx + dy * dy + dz * dz < reach_sq && j != i) {
            if (excluded.n > 0 && excluded.has(id[j])) continue;
            if (k < stride) row[k * pitch] = j;
            ghost = ghost || j >= nlocal;
            ++k;
          }
        }
      }
    }
    count[i] = k;
    reads_ghost[i] = ghost;
  }
};

// True when local atom i's row lists a ghost, as ScanNeighbors noted.
struct FlagSet {
  const std::uint8_t* flag;
  TESSERA_HD bool operator()(int i) const { return flag[i] != 0; }
};
template <class F>
struct Not {
  F f;
  TESSERA_HD bool operator()(int i) const { return !f(i); }
};

}  // namespace detail

class DeviceNeighborBuilder {
 public:
  explicit DeviceNeighborBuilder(DeviceStream s) : stream_(s), clusters_(s) {}

  // Every pair closer than `reach` (cutoff + skin) is listed. A list with
  // stride 0 starts with room for the mean count from the density
  // (neighbor/row_stride.hpp, as the CPU and `tessera plan`); a row that
  // does not fit grows the stride to what the longest row needs, with room
  // to spare, and the build runs again. Unlike the CPU's, the stride never
  // shrinks: the rows are stored transposed (index[k * pitch + i]), so a
  // build writes and the forces read only the counted neighbours whatever
  // the stride, and the storage, kept from build to build, is as large as
  // the widest stride ever was anyway.
  // The list's storage and the build's scratch are kept from build to build
  // (device_array.hpp): a rebuild of a settled run allocates nothing.

  void build(const DeviceAtoms& a, const SubDomain& sd, double reach, DeviceNeighborList& nl) {
    if (nl.clustered) {
      DeviceClusterList& c = nl.clusters;
      nl.grows += clusters_.build(a, sd, reach, c);
      partition(c.nrows,
                detail::RowReadsGhost{raw(c.slot_atom), raw(c.first), raw(c.count), raw(c.cj), raw(c.jmask), c.stride,
                                      a.nlocal},
                c.inner, c.outer);
    } else {
      build_rows(a, sd, reach, nl);
    }
    const int nlocal = a.nlocal;
    for (dvec<double>* p : {&nl.x0, &nl.y0, &nl.z0}) resize_for_overwrite(stream_, *p, nlocal);
    thrust::copy(policy(stream_), a.x.begin(), a.x.begin() + nlocal, nl.x0.begin());
    thrust::copy(policy(stream_), a.y.begin(), a.y.begin() + nlocal, nl.y0.begin());
    thrust::copy(policy(stream_), a.z.begin(), a.z.begin() + nlocal, nl.z0.begin());
    ++nl.builds;
    ++nl.generation;
  }

 private:
  // [0, n) split by `is_outer` into `inner` and `outer`, each in order.
  template <class F>
  void partition(int n, const F& is_outer, dvec<int>& inner, dvec<int>& outer) {
    for (auto* v : {&inner, &outer}) resize_for_overwrite(stream_, *v, n);
    const auto counting = thrust::counting_iterator<int>(0);
    const auto inner_end = thrust::copy_if(policy(stream_), counting, counting + n, inner.begin(), detail::Not<F>{is_outer});
    resize(stream_, inner, static_cast<std::size_t>(inner_end - inner.begin()));
    const auto outer_end = thrust::copy_if(policy(stream_), counting, counting + n, outer.begin(), is_outer);
    resize(stream_, outer, static_cast<std::size_t>(outer_end - outer.begin()));
  }

  void build_rows(const DeviceAtoms& a, const SubDomain& sd, double reach, DeviceNeighborList& nl) {
    double lo[3], hi[3];
    for (int d = 0; d < 3; ++d) {
      lo[d] = sd.lo[d] - reach;
      hi[d] = sd.hi[d] + reach;
    }
    // Tiles a power of two wide, between a twelfth and a sixth of the
    // reach: dc w is then exact in float (packed_positions.hpp).
    for (int d = 0; d < 3; ++d) nl.tiles.lo[d] = lo[d];
    nl.tiles.w = static_cast<float>(std::exp2(std::floor(std::log2(reach / 6))));
    const int nall = a.nall(), nlocal = a.nlocal;
    const int span = reach_in_cells(nall, lo, hi, reach);
    const CellGrid g = CellGrid::cover(lo, hi, reach / span);
    bins_.bin(stream_, g, raw(a.x), raw(a.y), raw(a.z), nall);
    bins_.find_starts(stream_, g);
    for (dvec<double>* b : {&bx_, &by_, &bz_}) resize_for_overwrite(stream_, *b, nall);
    thrust::gather(policy(stream_), bins_.atoms.begin(), bins_.atoms.end(), a.x.begin(), bx_.begin());
    thrust::gather(policy(stream_), bins_.atoms.begin(), bins_.atoms.end(), a.y.begin(), by_.begin());
    thrust::gather(policy(stream_), bins_.atoms.begin(), bins_.atoms.end(), a.z.begin(), bz_.begin());

    if (nl.stride <= 0)
      nl.stride = first_row_stride(
          mean_neighbours(nall, (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]), reach));
    nl.pitch = (static_cast<long>(nlocal) + 31) / 32 * 32;
    resize_for_overwrite(stream_, nl.count, nlocal);
    resize_for_overwrite(stream_, reads_ghost_, nlocal);
    for (;;) {
      resize_for_overwrite(stream_, nl.index, static_cast<std::size_t>(nl.pitch) * nl.stride);
      detail::ScanNeighbors scan{g,        span,             raw(bins_.start), raw(bins_.atoms), raw(bx_),  raw(by_),
                                 raw(bz_), raw(a.x),         raw(a.y),         raw(a.z),  reach * reach,
                                 nl.stride, nl.pitch,        raw(nl.index),    raw(nl.count)};
      scan.reads_ghost = raw(reads_ghost_);
      scan.nlocal = nlocal;
      if (molecular_fields_on()) {
        scan.id = raw(a.id);
        const MolecularArrays m = molecular_arrays(a, [](const auto& v) { return raw(v); });
        for (int k = 0; k < kMaxSpecial; ++k) scan.special[k] = m.special[k];
      }
      for_each_index(stream_, nlocal, scan);
      const int needed = thrust::reduce(policy(stream_), nl.count.begin(), nl.count.end(), 0, MaxOf{});
      nl.widest = needed;
      if (needed <= nl.stride) break;
      nl.stride = next_row_stride(needed);
      ++nl.grows;
    }
    partition(nlocal, detail::FlagSet{raw(reads_ghost_)}, nl.inner, nl.outer);
  }

  DeviceStream stream_;
  ClusterListBuilder clusters_;
  DeviceCellBins bins_;
  dvec<double> bx_, by_, bz_;
  dvec<std::uint8_t> reads_ghost_;  // per local: its row lists a ghost
};

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
