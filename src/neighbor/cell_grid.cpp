#include "neighbor/cell_grid.hpp"

namespace tessera {

void bin_atoms(const CellGrid& g, const double* x, const double* y, const double* z, int n, CellBins& bins) {
  const int nc = g.count();
  bins.cell.resize(n);
  bins.atoms.resize(n);
  bins.start.assign(nc + 1, 0);
#pragma omp parallel for schedule(static)
  for (int i = 0; i < n; ++i) bins.cell[i] = g.cell_of(x[i], y[i], z[i]);
  for (int i = 0; i < n; ++i) ++bins.start[bins.cell[i] + 1];
  for (int c = 0; c < nc; ++c) bins.start[c + 1] += bins.start[c];
  std::vector<int> fill(bins.start.begin(), bins.start.end() - 1);
  for (int i = 0; i < n; ++i) bins.atoms[fill[bins.cell[i]]++] = i;
}

void gather_binned_positions(const double* x, const double* y, const double* z, CellBins& bins) {
  const long n = static_cast<long>(bins.atoms.size());
  bins.x.resize(n);
  bins.y.resize(n);
  bins.z.resize(n);
#pragma omp parallel for schedule(static)
  for (long m = 0; m < n; ++m) {
    const int i = bins.atoms[m];
    bins.x[m] = x[i];
    bins.y[m] = y[i];
    bins.z[m] = z[i];
  }
}

void gather_binned_ids(const AtomId* id, CellBins& bins) {
  const long n = static_cast<long>(bins.atoms.size());
  bins.id.resize(n);
#pragma omp parallel for schedule(static)
  for (long m = 0; m < n; ++m) bins.id[m] = id[bins.atoms[m]];
}

}  // namespace tessera
