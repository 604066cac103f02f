#include "neighbor/verlet_builder.hpp"

#include <algorithm>
#include <numeric>

namespace tessera {

namespace {
constexpr int kReach = 2;  // cells of width reach/2: a 5x5x5 stencil, fewer candidates than 3x3x3 of width reach

std::vector<int> make_stencil(const CellGrid& g) {
  std::vector<int> s;
  double size[3];
  for (int d = 0; d < 3; ++d) size[d] = 1.0 / g.inv_size[d];
  auto gap = [](int k, double w) { return k == 0 ? 0.0 : (std::abs(k) - 1) * w; };
  // Drop stencil corners whose nearest point is farther than the reach.
  const double reach = kReach * std::min({size[0], size[1], size[2]});
  for (int dz = -kReach; dz <= kReach; ++dz)
    for (int dy = -kReach; dy <= kReach; ++dy)
      for (int dx = -kReach; dx <= kReach; ++dx) {
        const double gx = gap(dx, size[0]), gy = gap(dy, size[1]), gz = gap(dz, size[2]);
        if (gx * gx + gy * gy + gz * gz < reach * reach * (1 + 1e-12)) {
          s.push_back(dx);
          s.push_back(dy);
          s.push_back(dz);
        }
      }
  return s;
}
}  // namespace

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
  stencil_ = make_stencil(g);
  const int nst = static_cast<int>(stencil_.size() / 3);
  const double reach_sq = reach * reach;

  nl.count.resize(nlocal);
  if (nl.stride == 0) nl.stride = 64;
  for (;;) {
    nl.index.resize(static_cast<std::size_t>(nlocal) * nl.stride);
    int needed = 0;
    const int stride = nl.stride;
#pragma omp parallel for schedule(static) reduction(max : needed)
    for (int i = 0; i < nlocal; ++i) {
      const double xi = a.x[i], yi = a.y[i], zi = a.z[i];
      const int cx = g.coord(0, xi), cy = g.coord(1, yi), cz = g.coord(2, zi);
      int* list = nl.index.data() + static_cast<long>(i) * stride;
      int k = 0;
      for (int s = 0; s < nst; ++s) {
        const int ox = cx + stencil_[3 * s], oy = cy + stencil_[3 * s + 1], oz = cz + stencil_[3 * s + 2];
        if (ox < 0 || oy < 0 || oz < 0 || ox >= g.n[0] || oy >= g.n[1] || oz >= g.n[2]) continue;
        const int c = g.index(ox, oy, oz);
        const double* p = bins_.xyz.data();
        for (int m = bins_.start[c]; m < bins_.start[c + 1]; ++m) {
          const double dx = xi - p[4 * m], dy = yi - p[4 * m + 1], dz = zi - p[4 * m + 2];
          if (dx * dx + dy * dy + dz * dz < reach_sq) {
            const int j = bins_.atoms[m];
            if (j == i) continue;
            if (k < stride) list[k] = j;
            ++k;
          }
        }
      }
      nl.count[i] = k;
      needed = std::max(needed, k);
    }
    if (needed <= nl.stride) break;
    nl.stride = needed + needed / 8 + 8;  // room to grow before the next overflow
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
