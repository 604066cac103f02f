#include "neighbor/verlet_builder.hpp"

#include <algorithm>
#include <numeric>

#include "atoms/molecular_fields.hpp"
#include "backend/cpu_pair_kernel.hpp"

namespace tessera {

namespace {
// Cells at least reach/2 wide: atoms within reach lie at most 2 cells away.
// Smaller cells than reach waste less of the searched volume on corners.
constexpr int kReach = 2;

// Per-axis distance from coordinate v (in cell c) to the cells c-2 .. c+2,
// squared, shrunk by a hair so that rounding in the cell bounds never prunes
// a cell that holds a neighbour (pruning is only a shortcut: the distance
// test below decides membership).
void cell_gaps(const CellGrid& g, int d, double v, int c, double gap2[2 * kReach + 1]) {
  const double w = 1.0 / g.inv_size[d], slack = 1e-9 * w;
  for (int o = -kReach; o <= kReach; ++o) {
    double gap = 0;
    if (o < 0) gap = v - (g.lo[d] + (c + o + 1) * w);
    if (o > 0) gap = (g.lo[d] + (c + o) * w) - v;
    gap = gap > slack ? gap - slack : 0.0;
    gap2[o + kReach] = gap * gap;
  }
}

// Removes from one atom's neighbours (found[0..k)) those it is excluded
// from (special neighbours with factor 0: LAMMPS's special_bonds lj 0 ...),
// keeping the others in order; returns the new count. Excluded pairs never
// reach the force sum, so no shifted or huge overlap energy is ever added
// and taken back.
int drop_excluded(const MolecularArrays& m, std::size_t i, const AtomId* id, int* found, int k) {
  AtomId excluded[kMaxSpecial];
  int ne = 0;
  for (int s = 0; s < kMaxSpecial && m.special[s][i] != 0; ++s)
    if (special_excluded(m.special[s][i])) excluded[ne++] = special_partner(m.special[s][i]);
  if (ne == 0) return k;
  int kept = 0;
  for (int p = 0; p < k; ++p) {
    const AtomId j = id[found[p]];
    bool drop = false;
    for (int e = 0; e < ne; ++e) drop = drop || excluded[e] == j;
    if (!drop) found[kept++] = found[p];
  }
  return kept;
}

}  // namespace

// List order: cell rows by (z, y) offset, then x, then bin order within a
// cell, i.e. increasing bin position along each row. The order fixes the
// force summation order, so it depends only on the positions.
void VerletBuilder::build(const AtomStore& a, const SubDomain& sd, double reach, NeighborList& nl) {
  double lo[3], hi[3];
  for (int d = 0; d < 3; ++d) {
    lo[d] = sd.lo[d] - reach;
    hi[d] = sd.hi[d] + reach;
  }
  const CellGrid g = CellGrid::cover(lo, hi, reach / kReach);
  const int nall = static_cast<int>(a.nall());
  const int nlocal = static_cast<int>(a.nlocal);
  bin_atoms(g, a.x.data(), a.y.data(), a.z.data(), nall, bins_);
  gather_binned_positions(a.x.data(), a.y.data(), a.z.data(), bins_);
  const double reach_sq = reach * reach;
  const int* start = bins_.start.data();
  const NeighborScanFn scan = neighbor_scan_for(simd_level());
  const bool specials = molecular_fields_on();
  const MolecularArrays mol = specials ? molecular_arrays(a) : MolecularArrays{};

  nl.count.resize(nlocal);
  auto whole_blocks = [](int n) { return (n + kPairLanes - 1) / kPairLanes * kPairLanes; };
  nl.stride = whole_blocks(std::max(nl.stride, 64));
  nl.pad = kPairLanes;
  for (;;) {
    nl.index.resize(static_cast<std::size_t>(nlocal) * nl.stride);
    int needed = 0;
    const int stride = nl.stride;
#pragma omp parallel reduction(max : needed)
    {
      std::vector<int> found;          // one atom's neighbours, before the stride check
#pragma omp for schedule(dynamic, 64)  // per-atom results: any schedule gives the same list
      for (int i = 0; i < nlocal; ++i) {
        const double xi = a.x[i], yi = a.y[i], zi = a.z[i];
        const int c[3] = {g.coord(0, xi), g.coord(1, yi), g.coord(2, zi)};
        double gx[2 * kReach + 1], gy[2 * kReach + 1], gz[2 * kReach + 1];
        cell_gaps(g, 0, xi, c[0], gx);
        cell_gaps(g, 1, yi, c[1], gy);
        cell_gaps(g, 2, zi, c[2], gz);
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
            k += scan(bins_.x.data() + m0, bins_.y.data() + m0, bins_.z.data() + m0, bins_.atoms.data() + m0, m1 - m0,
                      xi, yi, zi, reach_sq, i, found.data() + k);
          }
        }
        if (specials && mol.special[0][i] != 0) k = drop_excluded(mol, static_cast<std::size_t>(i), a.id.data(), found.data(), k);
        // Padding with i itself, whose distance is 0: never a neighbour, but
        // a valid index for a kernel that loads whole lane blocks.
        const int padded = std::min(whole_blocks(k), stride);
        if (found.size() < static_cast<std::size_t>(padded)) found.resize(padded);
        for (int p = k; p < padded; ++p) found[p] = i;
        std::copy(found.begin(), found.begin() + padded, nl.index.begin() + static_cast<long>(i) * stride);
        nl.count[i] = k;
        needed = std::max(needed, k);
      }
    }
    if (needed <= nl.stride) break;
    // Room to grow before the next overflow, in whole lane blocks.
    nl.stride = whole_blocks(needed + needed / 8 + 8);
  }
  nl.x0.assign(a.x.begin(), a.x.begin() + nlocal);
  nl.y0.assign(a.y.begin(), a.y.begin() + nlocal);
  nl.z0.assign(a.z.begin(), a.z.begin() + nlocal);
  ++nl.builds;
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
