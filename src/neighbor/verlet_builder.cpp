#include "neighbor/verlet_builder.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "atoms/molecular_fields.hpp"
#include "backend/cpu_pair_kernel.hpp"
#include "neighbor/row_stride.hpp"

namespace tessera {

namespace {
constexpr int kMaxReach = 2;

// Per-axis distance from coordinate v (in cell c) to the cells c-r .. c+r,
// squared, shrunk by a hair so that rounding in the cell bounds never prunes
// a cell that holds a neighbour (pruning is only a shortcut: the distance
// test below decides membership).
void cell_gaps(const CellGrid& g, int d, double v, int c, int r, double* gap2) {
  const double w = 1.0 / g.inv_size[d], slack = 1e-9 * w;
  for (int o = -r; o <= r; ++o) {
    double gap = 0;
    if (o < 0) gap = v - (g.lo[d] + (c + o + 1) * w);
    if (o > 0) gap = (g.lo[d] + (c + o) * w) - v;
    gap = gap > slack ? gap - slack : 0.0;
    gap2[o + r] = gap * gap;
  }
}

// A half list's slabs (NeighborList::half), from each atom's position at
// this build; the list holds only pairs closer than `reach` then, so a
// pair's slabs differ by at most colors - 1. Along z, the spatial sort's
// slowest axis, so that a slab's rows and most of its partners are close
// in memory (along x, the rows of one slab are spread over the whole list
// and the kernel waits on memory: 4x slower at 32k atoms); along the
// longest axis only when z is too thin for four slabs a colour.
void assign_slabs(const AtomStore& a, const SubDomain& sd, double reach, std::vector<int>& slab, NeighborList& nl) {
  int axis = 2;
  if (half_list_slabs(sd.hi[2] - sd.lo[2], reach) < 4 * kHalfListColors)
    for (int d = 0; d < 2; ++d)
      if (sd.hi[d] - sd.lo[d] > sd.hi[axis] - sd.lo[axis]) axis = d;
  const double lo = sd.lo[axis], extent = sd.hi[axis] - sd.lo[axis];
  const int nslab = half_list_slabs(extent, reach);
  const double per_width = nslab / extent;
  const std::vector<double>& x = axis == 0 ? a.x : axis == 1 ? a.y : a.z;
  const int nlocal = static_cast<int>(a.nlocal);
  slab.resize(static_cast<std::size_t>(nlocal));
  nl.colors = kHalfListColors;
  nl.slab_start.assign(static_cast<std::size_t>(nslab) + 1, 0);
  // A local just outside its sub-box (it moved since the wrap) counts in the
  // end slab: that only brings it closer to its partners' slabs.
  for (int i = 0; i < nlocal; ++i) {
    const int s = std::min(std::max(static_cast<int>((x[i] - lo) * per_width), 0), nslab - 1);
    slab[i] = s;
    ++nl.slab_start[s + 1];
  }
  for (int s = 0; s < nslab; ++s) nl.slab_start[s + 1] += nl.slab_start[s];
  nl.slab_atoms.resize(static_cast<std::size_t>(nlocal));
  std::vector<int> next(nl.slab_start.begin(), nl.slab_start.end() - 1);
  for (int i = 0; i < nlocal; ++i) nl.slab_atoms[next[slab[i]]++] = i;
}

// Keeps, of atom i's neighbours found[0..k), those of its half row, in
// order; returns the new count.
int keep_half(int i, const int* slab, int nlocal, int* found, int k) {
  const int si = slab[i];
  int kept = 0;
  for (int p = 0; p < k; ++p) {
    const int j = found[p];
    found[kept] = j;
    kept += j >= nlocal || slab[j] > si || (slab[j] == si && j > i);
  }
  return kept;
}

}  // namespace

// List order: cell rows by (z, y) offset, then x, then bin order within a
// cell, i.e. increasing bin position along each row. The order fixes the
// force summation order, so it depends only on the positions and the
// region searched (which also sets the cell width, reach_in_cells).
void VerletBuilder::build(const AtomStore& a, const SubDomain& sd, double reach, NeighborList& nl, bool half) {
  double lo[3], hi[3];
  for (int d = 0; d < 3; ++d) {
    lo[d] = sd.lo[d] - reach;
    hi[d] = sd.hi[d] + reach;
  }
  const int nall = static_cast<int>(a.nall());
  const int kReach = reach_in_cells(nall, lo, hi, reach);
  const CellGrid g = CellGrid::cover(lo, hi, reach / kReach);
  const int nlocal = static_cast<int>(a.nlocal);
  bin_atoms(g, a.x.data(), a.y.data(), a.z.data(), nall, bins_);
  gather_binned_positions(a.x.data(), a.y.data(), a.z.data(), bins_);
  const double reach_sq = reach * reach;
  const int* start = bins_.start.data();
  const NeighborScanFn scan = neighbor_scan_for(simd_level());
  const CandidateCopyFn copy = copy_candidates_for(simd_level());
  // Excluded pairs (special neighbours with factor 0: LAMMPS's special_bonds
  // lj 0 ...) never enter a row, so no shifted or huge overlap energy is ever
  // added and taken back. The scan leaves them out by id, every image of the
  // partner alike, comparing the candidates' ids in bin order.
  const bool specials = molecular_fields_on();
  const MolecularArrays mol = specials ? molecular_arrays(a) : MolecularArrays{};
  if (specials) gather_binned_ids(a.id.data(), bins_);
  const CandidatesIn from{bins_.x.data(), bins_.y.data(), bins_.z.data(), bins_.atoms.data(),
                          specials ? bins_.id.data() : nullptr};

  nl.half = half;
  if (half) {
    assign_slabs(a, sd, reach, slab_, nl);
  } else {
    nl.colors = 0;
    nl.slab_start.clear();
    nl.slab_atoms.clear();
  }
  const int* slab = slab_.data();

  nl.count.resize(nlocal);
  auto whole_blocks = [](int n) { return (n + kPairLanes - 1) / kPairLanes * kPairLanes; };
  // The last build's longest row plus room to grow, as after an overflow
  // below (neighbor/row_stride.hpp; the copy into rows 64 wide was 6 % of a
  // 1-thread in.chain run, 2026-11-28). The stride only lays the rows out:
  // the lists and forces are the same. The first build starts at 64, not at
  // the density's estimate as the device does: a 2M-atom LJ melt's loop took
  // 17.5 s instead of 13.5 s that way (2026-11-29; not fully traced: part
  // of it was the storage, sized exactly at the first build and reallocated
  // when the melt's rows outgrew it, where from 64 it grows once, to twice
  // its capacity).
  nl.stride = whole_blocks(nl.widest > 0 ? next_row_stride(nl.widest) : std::max(nl.stride, 64));
  nl.pad = kPairLanes;
  for (;;) {
    nl.index.resize(static_cast<std::size_t>(nlocal) * nl.stride);
    int needed = 0;
    const int stride = nl.stride;
#pragma omp parallel reduction(max : needed)
    {
      std::vector<int> found;  // one atom's neighbours, before the stride check
      // Atom i's k neighbours in found, to its row of the list.
      auto finish = [&](int i, int k) {
        if (half) k = keep_half(i, slab, nlocal, found.data(), k);
        // Padding with i itself, whose distance is 0: never a neighbour, but
        // a valid index for a kernel that loads whole lane blocks.
        const int padded = std::min(whole_blocks(k), stride);
        if (found.size() < static_cast<std::size_t>(padded)) found.resize(padded);
        for (int p = k; p < padded; ++p) found[p] = i;
        // Block by block in fixed-size copies: a row is a few blocks, and
        // memmove's set-up cost more than the copy (4.6 % of a 1-thread
        // in.chain run, 2026-11-29).
        int* row = nl.index.data() + static_cast<long>(i) * stride;
        for (int b = 0; b < padded; b += kPairLanes) std::memcpy(row + b, found.data() + b, sizeof(int) * kPairLanes);
        nl.count[i] = k;
        needed = std::max(needed, k);
      };
      if (kReach == 1) {
        // Cells reach wide hold few atoms each: the 9 rows of a cell's 27
        // neighbours are gathered once into one run of candidates, which
        // each of its atoms then scans in one vector pass. The candidates
        // are in the row order of the per-atom search below, and pruning a
        // row only skips atoms out of reach, so the lists are the same.
        std::vector<double> cx, cy, cz;
        std::vector<int> ca;
        std::vector<AtomId> cid;
#pragma omp for schedule(dynamic, 16)  // per-atom results: any schedule gives the same list
        for (int cell = 0; cell < g.count(); ++cell) {
          const int b0 = start[cell], b1 = start[cell + 1];
          bool has_local = false;
          for (int m = b0; m < b1 && !has_local; ++m) has_local = bins_.atoms[m] < nlocal;
          if (!has_local) continue;
          const int ox = cell % g.n[0], oy0 = (cell / g.n[0]) % g.n[1], oz0 = cell / (g.n[0] * g.n[1]);
          const int x0 = std::max(ox - 1, 0), x1 = std::min(ox + 1, g.n[0] - 1);
          int nc = 0;
          for (int oz = std::max(oz0 - 1, 0); oz <= std::min(oz0 + 1, g.n[2] - 1); ++oz)
            for (int oy = std::max(oy0 - 1, 0); oy <= std::min(oy0 + 1, g.n[1] - 1); ++oy) {
              const int m0 = start[g.index(x0, oy, oz)], m1 = start[g.index(x1, oy, oz) + 1];
              const std::size_t room = static_cast<std::size_t>(nc + m1 - m0 + 8);  // whole vectors stored
              if (ca.size() < room) {
                for (auto* v : {&cx, &cy, &cz}) v->resize(2 * room);
                ca.resize(2 * room);
                if (specials) cid.resize(2 * room);
              }
              copy(from, m0, m1 - m0, CandidatesOut{cx.data(), cy.data(), cz.data(), ca.data(), cid.data()}, nc);
              nc += m1 - m0;
            }
          if (found.size() < static_cast<std::size_t>(nc + 16)) found.resize(2 * (nc + 16));
          for (int m = b0; m < b1; ++m) {
            const int i = bins_.atoms[m];
            if (i >= nlocal) continue;
            const ExcludedIds ex(mol.special, i);
            finish(i, scan(cx.data(), cy.data(), cz.data(), ca.data(), nc, a.x[i], a.y[i], a.z[i], reach_sq, i,
                           ScanExclusions{cid.data(), ex.id, ex.n}, found.data()));
          }
        }
      } else {
#pragma omp for schedule(dynamic, 64)  // per-atom results: any schedule gives the same list
        for (int i = 0; i < nlocal; ++i) {
          const double xi = a.x[i], yi = a.y[i], zi = a.z[i];
          const int c[3] = {g.coord(0, xi), g.coord(1, yi), g.coord(2, zi)};
          double gx[2 * kMaxReach + 1], gy[2 * kMaxReach + 1], gz[2 * kMaxReach + 1];
          cell_gaps(g, 0, xi, c[0], kReach, gx);
          cell_gaps(g, 1, yi, c[1], kReach, gy);
          cell_gaps(g, 2, zi, c[2], kReach, gz);
          const ExcludedIds ex(mol.special, i);
          int k = 0;
          for (int dz = -kReach; dz <= kReach; ++dz) {
            const int oz = c[2] + dz;
            if (oz < 0 || oz >= g.n[2] || gz[dz + kReach] >= reach_sq) continue;
            for (int dy = -kReach; dy <= kReach; ++dy) {
              const int oy = c[1] + dy;
              const double gyz = gz[dz + kReach] + gy[dy + kReach];
              if (oy < 0 || oy >= g.n[1] || gyz >= reach_sq) continue;
              // The cells of this row that can hold neighbours are contiguous
              // in x, so their atoms are one run of the bins.
              int x0 = std::max(c[0] - kReach, 0), x1 = std::min(c[0] + kReach, g.n[0] - 1);
              while (x0 < c[0] && gyz + gx[x0 - c[0] + kReach] >= reach_sq) ++x0;
              while (x1 > c[0] && gyz + gx[x1 - c[0] + kReach] >= reach_sq) --x1;
              const int m0 = start[g.index(x0, oy, oz)], m1 = start[g.index(x1, oy, oz) + 1];
              const std::size_t room = k + (m1 - m0) + 16;
              if (found.size() < room) found.resize(2 * room);
              const ScanExclusions row_ex{specials ? bins_.id.data() + m0 : nullptr, ex.id, ex.n};
              k += scan(bins_.x.data() + m0, bins_.y.data() + m0, bins_.z.data() + m0, bins_.atoms.data() + m0,
                        m1 - m0, xi, yi, zi, reach_sq, i, row_ex, found.data() + k);
            }
          }
          finish(i, k);
        }
      }
    }
    nl.widest = needed;
    if (needed <= nl.stride) break;
    // Room to grow before the next overflow, in whole lane blocks.
    nl.stride = whole_blocks(next_row_stride(needed));
  }
  nl.clustered = false;
  note_build(a, nl);
}

void note_build(const AtomStore& a, NeighborList& nl) {
  const auto nlocal = static_cast<std::ptrdiff_t>(a.nlocal);
  nl.x0.assign(a.x.begin(), a.x.begin() + nlocal);
  nl.y0.assign(a.y.begin(), a.y.begin() + nlocal);
  nl.z0.assign(a.z.begin(), a.z.begin() + nlocal);
  ++nl.builds;
}

void ClusterListBuilder::build(const AtomStore& a, const SubDomain& sd, double reach, NeighborList& nl) {
  clusters_.build(a, sd, reach, nl.clusters);
  nl.clustered = true;
  nl.half = false;
  nl.count.clear();
  nl.index.clear();
  note_build(a, nl);
}

void sort_atoms_spatially(AtomStore& a, const SubDomain& sd, double cell_size) {
  const CellGrid g = CellGrid::cover(sd.lo, sd.hi, cell_size);
  CellBins bins;
  bin_atoms(g, a.x.data(), a.y.data(), a.z.data(), static_cast<int>(a.nlocal), bins);
  std::vector<std::size_t> order(bins.atoms.begin(), bins.atoms.end());
  a.permute_local(order);
}

double max_displacement_sq(const AtomStore& a, const NeighborList& nl) {
  double m = 0;
  const long n = static_cast<long>(a.nlocal);
#pragma omp parallel for schedule(static) reduction(max : m)
  for (long i = 0; i < n; ++i) {
    const double dx = a.x[i] - nl.x0[i], dy = a.y[i] - nl.y0[i], dz = a.z[i] - nl.z0[i];
    m = std::max(m, dx * dx + dy * dy + dz * dz);
  }
  return m;
}

}  // namespace tessera
