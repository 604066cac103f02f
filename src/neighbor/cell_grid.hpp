#pragma once
#include <cmath>
#include <vector>

#include "core/host_device.hpp"
#include "core/types.hpp"

namespace tessera {

// A regular grid of cells over an axis-aligned region. Cells are at least
// min_size wide, so a search reaching `reach` cells out finds every atom
// within reach * min_size.
struct CellGrid {
  double lo[3] = {0, 0, 0};
  double inv_size[3] = {1, 1, 1};
  int n[3] = {1, 1, 1};

  // At most kMaxCells cells: a huge, nearly empty box gets wider cells
  // (still correct, only more candidates per cell) instead of an index that
  // overflows or a bin array that does not fit in memory.
  static constexpr double kMaxCells = 1 << 24;
  static CellGrid cover(const double lo_in[3], const double hi_in[3], double min_size) {
    CellGrid g;
    double size = min_size;
    for (;;) {
      double cells = 1;
      for (int d = 0; d < 3; ++d) {
        const double len = hi_in[d] - lo_in[d];
        cells *= len > size ? std::floor(len / size) : 1.0;
      }
      if (cells <= kMaxCells) break;
      size *= 2;
    }
    for (int d = 0; d < 3; ++d) {
      const double len = hi_in[d] - lo_in[d];
      g.n[d] = len > size ? static_cast<int>(std::floor(len / size)) : 1;
      g.lo[d] = lo_in[d];
      g.inv_size[d] = g.n[d] / len;
    }
    return g;
  }

  TESSERA_HD int coord(int d, double v) const {
    // Atoms sitting exactly on the upper edge (or rounding past it) belong
    // to the last cell. Clamped before the conversion: out of int's range,
    // or NaN, it is undefined, and CPUs and GPUs give different cells.
    const double t = (v - lo[d]) * inv_size[d];
    if (!(t >= 0)) return 0;
    return t >= n[d] ? n[d] - 1 : static_cast<int>(t);
  }
  TESSERA_HD int index(int cx, int cy, int cz) const { return (cz * n[1] + cy) * n[0] + cx; }
  TESSERA_HD int cell_of(double x, double y, double z) const { return index(coord(0, x), coord(1, y), coord(2, z)); }
  int count() const { return n[0] * n[1] * n[2]; }
};

// How many cells out a list search reaches, for `natoms` atoms (ghosts
// included) over the region [lo, hi): cells reach/2 wide (2) waste less of
// the searched volume on corners than cells reach wide (1), but only pay when
// a cell holds atoms enough; at fewer than one atom per half-width cell (a
// WCA melt: 0.37), the device's per-atom search pays more for 25 short
// rows than it saves over the 9 rows of wider cells (benchmarks/NOTES.md,
// chain race). The CPU's builder (verlet_builder.cpp), which shares one run
// among a block of cells, and the device's
// (kernels/device/neighbor_build.hpp) both ask it: the cell width fixes the
// list order, and so the sums, on both.
inline int reach_in_cells(int natoms, const double lo[3], const double hi[3], double reach) {
  constexpr double kFineCellAtoms = 1.0;
  const double volume = (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
  const double half = 0.5 * reach;
  return volume > 0 && natoms / volume * half * half * half >= kFineCellAtoms ? 2 : 1;
}

// Atoms grouped by cell: the atoms of cell c are atoms[start[c] .. start[c+1]),
// in increasing atom index (a stable counting sort), so list order and hence
// force summation order are deterministic.
struct CellBins {
  std::vector<int> start;
  std::vector<int> atoms;
  std::vector<int> cell;  // per atom
  std::vector<int> fill;  // per cell: the next free slot while placing (scratch)
  // Positions in bin order, so that a search over a row of cells reads three
  // contiguous arrays (vector loads) instead of gathering by atom index.
  std::vector<double> x, y, z;
  std::vector<AtomId> id;  // ids in bin order, for molecules' excluded pairs only
};

// Fills bins.x, y, z from bins.atoms.
void gather_binned_positions(const double* x, const double* y, const double* z, CellBins& bins);
// Fills bins.id from bins.atoms.
void gather_binned_ids(const AtomId* id, CellBins& bins);

void bin_atoms(const CellGrid& g, const double* x, const double* y, const double* z, int n, CellBins& bins);

}  // namespace tessera
