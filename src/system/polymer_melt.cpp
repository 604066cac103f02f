#include "system/polymer_melt.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/error.hpp"
#include "random/philox.hpp"
#include "system/build_system.hpp"

namespace tessera {
namespace {

using Index = std::int64_t;

// A cubic cell grid over the periodic box [0, L)^3 with cells at least
// `reach` wide, so that every pair closer than reach lies in neighbouring
// cells. The number of cells is capped near the number of beads: a dilute
// melt gets wider cells, not billions of empty ones.
struct CellGrid {
  double L = 0, inv_L = 0, inv_cell = 0;
  int n = 1;                    // cells per side
  std::vector<int> neighbours;  // 27 (or fewer, padded with -1) per cell: itself and its distinct neighbours

  CellGrid(double side, double reach, Index natoms) : L(side), inv_L(1.0 / side) {
    const double by_reach = std::floor(side / reach);
    const double by_count = std::floor(std::cbrt(static_cast<double>(std::max<Index>(27, 2 * natoms))));
    n = static_cast<int>(std::max(1.0, std::min(by_reach, by_count)));
    inv_cell = n / side;
    // Along a side with fewer than 3 cells, -1 and +1 are one cell (2) or
    // the cell itself (1): each neighbour is listed once.
    std::vector<int> offsets =
        n >= 3 ? std::vector<int>{-1, 0, 1} : (n == 2 ? std::vector<int>{0, 1} : std::vector<int>{0});
    const std::size_t ncell = static_cast<std::size_t>(n) * n * n;
    neighbours.assign(ncell * 27, -1);
    for (int cz = 0; cz < n; ++cz)
      for (int cy = 0; cy < n; ++cy)
        for (int cx = 0; cx < n; ++cx) {
          int* out = &neighbours[static_cast<std::size_t>((cz * n + cy) * n + cx) * 27];
          int k = 0;
          for (int dz : offsets)
            for (int dy : offsets)
              for (int dx : offsets) out[k++] = ((cz + dz + n) % n * n + (cy + dy + n) % n) * n + (cx + dx + n) % n;
        }
  }
  std::size_t cells() const { return static_cast<std::size_t>(n) * n * n; }
  int coord(double x) const {
    const double w = x - L * std::floor(x * inv_L);
    const int c = static_cast<int>(w * inv_cell);
    return c < 0 ? 0 : (c >= n ? n - 1 : c);
  }
  int cell_of(double x, double y, double z) const { return (coord(z) * n + coord(y)) * n + coord(x); }
  const int* around(int cell) const { return &neighbours[static_cast<std::size_t>(cell) * 27]; }
  // The minimum-image component of a separation.
  double image(double d) const { return d - L * std::floor(d * inv_L + 0.5); }
  // The same for two positions inside [0, L), with no floor (a library call
  // on baseline x86-64) in the push-off's inner loop.
  double image_wrapped(double d) const { return d > 0.5 * L ? d - L : (d < -0.5 * L ? d + L : d); }
};

// A unit vector from two uniform words, or false when the pair falls
// outside the unit disc (Marsaglia 1972): no sin, cos or acos, so the
// direction is the same bit for bit under any libm.
bool unit_vector(std::uint32_t a, std::uint32_t b, double d[3]) {
  const double u = 2 * uniform_open01(a) - 1, v = 2 * uniform_open01(b) - 1;
  const double s = u * u + v * v;
  if (!(s < 1)) return false;
  const double f = 2 * std::sqrt(1 - s);
  d[0] = u * f;
  d[1] = v * f;
  d[2] = 1 - 2 * s;
  return true;
}

struct Melt {
  const PolymerMeltSpec& spec;
  Index nchain, nbead, natoms;
  double L;
  std::vector<double> x, y, z;  // unwrapped after the walk; wrapped into [0, L) by wrap_all
  std::vector<int> ix, iy, iz;  // image counts once wrapped: x + ix L is continuous along each chain

  // Into [0, L) with the image count, so that w + image L is u.
  void wrap(double u, double& w, int& image) const {
    double q = std::floor(u / L);
    w = u - q * L;
    if (w < 0) {
      w += L;
      q -= 1;
    }
    if (w >= L) {
      w -= L;
      q += 1;
    }
    if (w < 0 || w >= L) w = 0;
    image = static_cast<int>(q);
  }
  void wrap_all() {
    ix.assign(natoms, 0);
    iy.assign(natoms, 0);
    iz.assign(natoms, 0);
    for (Index i = 0; i < natoms; ++i) {
      wrap(x[i], x[i], ix[i]);
      wrap(y[i], y[i], iy[i]);
      wrap(z[i], z[i], iz[i]);
    }
  }
  // After a move of less than L: back into [0, L).
  void rewrap(double& w, int& image) const {
    if (w >= L) {
      w -= L;
      ++image;
    } else if (w < 0) {
      w += L;
      --image;
      if (w >= L) w = 0;  // -1e-17 + L rounds to L
    }
  }

  bool bonded(Index i, Index j) const { return (i - j == 1 || j - i == 1) && i / nbead == j / nbead; }
  std::string name(Index i) const {
    return fmt::format("bead {} of chain {} (atom {})", i % nbead + 1, i / nbead + 1, i + 1);
  }

  // The non-overlapping random walks, chain by chain.
  void walk(PolymerMeltReport& report) {
    const CellGrid grid(L, spec.walk_min_distance, natoms);
    std::vector<Index> head(grid.cells(), -1), next(natoms, -1);
    std::vector<int> cell(natoms, 0);
    double dmin = spec.walk_min_distance, dmin2 = dmin * dmin;  // lowered for a chain that is stuck
    const double b = spec.bond_length;

    // Whether (px, py, pz) keeps walk_min_distance from every placed bead but `skip`.
    auto free_at = [&](double px, double py, double pz, Index skip) {
      const int* around = grid.around(grid.cell_of(px, py, pz));
      for (int q = 0; q < 27 && around[q] >= 0; ++q)
        for (Index j = head[around[q]]; j >= 0; j = next[j]) {
          if (j == skip) continue;
          const double dx = grid.image(px - x[j]), dy = grid.image(py - y[j]), dz = grid.image(pz - z[j]);
          if (dx * dx + dy * dy + dz * dz < dmin2) return false;
        }
      return true;
    };
    auto place = [&](Index i, double px, double py, double pz) {
      x[i] = px;
      y[i] = py;
      z[i] = pz;
      cell[i] = grid.cell_of(px, py, pz);
      next[i] = head[cell[i]];
      head[cell[i]] = i;
    };
    // Beads leave in the reverse order of their placement, so each is the
    // head of its cell's list when it leaves.
    auto remove = [&](Index i) { head[cell[i]] = next[i]; };

    for (Index c = 0; c < nchain; ++c) {
      const Index first = c * nbead;
      std::uint64_t draw = 0;  // the chain's own counter: chains draw independently
      int backtracks = 0;
      dmin = spec.walk_min_distance;
      dmin2 = dmin * dmin;
      Index k = 0;  // beads of this chain placed so far
      while (k < nbead) {
        const Index i = first + k;
        bool placed = false;
        for (int t = 0; t < spec.walk_tries && !placed; ++t) {
          const Philox4x32 w = random_words(spec.seed, RandomStream::kPolymer, draw++, c);
          if (k == 0) {
            const double px = L * uniform_open01(w.v[0]), py = L * uniform_open01(w.v[1]),
                         pz = L * uniform_open01(w.v[2]);
            if (free_at(px, py, pz, -1)) {
              place(i, px, py, pz);
              placed = true;
            }
            continue;
          }
          double d[3];
          if (!unit_vector(w.v[0], w.v[1], d) && !unit_vector(w.v[2], w.v[3], d)) continue;
          const double px = x[i - 1] + b * d[0], py = y[i - 1] + b * d[1], pz = z[i - 1] + b * d[2];
          if (free_at(px, py, pz, i - 1)) {
            place(i, px, py, pz);
            placed = true;
          }
        }
        if (placed) {
          ++k;
          continue;
        }
        if (++backtracks > spec.walk_backtracks && dmin > spec.walk_lowest_distance) {
          // Stuck at this distance (the last chains of a dense melt): the
          // rest of the chain may come closer, and the push-off separates it.
          dmin = std::max(spec.walk_lowest_distance, dmin - 0.05);
          if (dmin < spec.walk_lowest_distance + 1e-9) dmin = spec.walk_lowest_distance;
          dmin2 = dmin * dmin;
          backtracks = 0;
          ++report.walk_lowered;
        }
        if (backtracks > spec.walk_backtracks)
          throw InputError(
              fmt::format("polymer_melt: cannot place {} at least {:.3g} from every other bead ({} tries, {} "
                          "backtracks): {} chains of {} beads at density {} are too dense for non-overlapping random "
                          "walks; lower the density",
                          name(i), dmin, spec.walk_tries, spec.walk_backtracks, nchain, nbead, spec.density));
        // Dead end: take back up to 4 beads and grow again from there (all
        // of them: a new first bead; a first bead that found no room just
        // draws again).
        const Index back = std::min<Index>(k, 4);
        for (Index q = 0; q < back; ++q) remove(first + k - 1 - q);
        k -= back;
        ++report.walk_backtracks;
        if (k == 0 && back > 0) ++report.walk_restarts;
      }
    }
  }

  struct Measure {
    double min_r2;    // smallest non-bonded squared distance below the cutoff (cutoff^2 if none)
    double bond_dev;  // largest |r - bond_length| of a bond
    double min_bond, max_bond;
  };

  // The soft push-off on the wrapped positions; returns the iterations taken.
  long long push_off(PolymerMeltReport& report) {
    const double rc = spec.pushoff_cutoff, rc2 = rc * rc, b = spec.bond_length;
    // Steepest descent x += gamma F, in units where gamma K = 0.15 (a
    // stretched bond relaxes by 60% per iteration; the stiffest mode of a
    // chain's bonds is stable below gamma K = 0.25) and gamma A = 0.015:
    // the repulsion is 10 times softer than the bonds, so crowded beads
    // compress or stretch their bonds by a few hundredths at most, while
    // the closest pairs (0.6 .. 0.8 after the walks) separate in a few
    // hundred iterations at density 0.85.
    const double gK = 0.15, gA = 0.015;
    // A Verlet list with a skin, rebuilt once some bead has moved half the
    // skin since the last build; bonded neighbours are left out of it.
    const double skin = 0.3, rl2 = (rc + skin) * (rc + skin);
    const CellGrid grid(L, rc + skin, natoms);
    const std::size_t ncell = grid.cells();
    std::vector<int> cell(natoms);
    std::vector<Index> start(ncell + 1), order(natoms), nl_start(natoms + 1), nl;
    std::vector<double> dx(natoms), dy(natoms), dz(natoms), x0, y0, z0;
    const double cap2 = spec.pushoff_max_step * spec.pushoff_max_step;
    auto build_list = [&] {
      // Cell lists by counting sort: atoms in index order within a cell.
      std::fill(start.begin(), start.end(), 0);
      for (Index i = 0; i < natoms; ++i) ++start[(cell[i] = grid.cell_of(x[i], y[i], z[i])) + 1];
      for (std::size_t c = 0; c < ncell; ++c) start[c + 1] += start[c];
      std::vector<Index> fill(start.begin(), start.end() - 1);
      for (Index i = 0; i < natoms; ++i) order[fill[cell[i]]++] = i;
      // Count, then fill: each bead writes its own rows only.
      for (int pass = 0; pass < 2; ++pass) {
#pragma omp parallel for schedule(static)
        for (Index i = 0; i < natoms; ++i) {
          Index k = pass == 0 ? 0 : nl_start[i];
          const int* around = grid.around(cell[i]);
          for (int q = 0; q < 27 && around[q] >= 0; ++q)
            for (Index jj = start[around[q]]; jj < start[around[q] + 1]; ++jj) {
              const Index j = order[jj];
              if (j == i || bonded(i, j)) continue;
              const double ex = grid.image_wrapped(x[i] - x[j]), ey = grid.image_wrapped(y[i] - y[j]),
                           ez = grid.image_wrapped(z[i] - z[j]);
              if (!(ex * ex + ey * ey + ez * ez < rl2)) continue;
              if (pass == 1) nl[k] = j;
              ++k;
            }
          if (pass == 0) nl_start[i + 1] = k;
        }
        if (pass == 0) {
          nl_start[0] = 0;
          for (Index i = 0; i < natoms; ++i) nl_start[i + 1] += nl_start[i];
          nl.resize(nl_start[natoms]);
        }
      }
      x0 = x;
      y0 = y;
      z0 = z;
    };
    build_list();

    for (long long iter = 0;; ++iter) {
      // Each bead sums its own displacement in a fixed order: the result
      // does not depend on the number of threads.
      double min_r2 = rc2, dev = 0, lo = b, hi = b;
#pragma omp parallel for schedule(static) reduction(min : min_r2, lo) reduction(max : dev, hi)
      for (Index i = 0; i < natoms; ++i) {
        double fx = 0, fy = 0, fz = 0;
        for (Index jj = nl_start[i]; jj < nl_start[i + 1]; ++jj) {
          const Index j = nl[jj];
          const double ex = grid.image_wrapped(x[i] - x[j]), ey = grid.image_wrapped(y[i] - y[j]),
                       ez = grid.image_wrapped(z[i] - z[j]);
          const double r2 = ex * ex + ey * ey + ez * ez;
          if (!(r2 < rc2)) continue;
          min_r2 = std::min(min_r2, r2);
          // A (1 - r/rc)^2: force 2 A (1 - r/rc) / rc along e.
          const double r = std::sqrt(r2);
          const double f = r > 0 ? 2 * gA * (1 - r / rc) / (rc * r) : 0;
          fx += f * ex;
          fy += f * ey;
          fz += f * ez;
        }
        for (Index j : {i - 1, i + 1}) {
          if (j < 0 || j >= natoms || !bonded(i, j)) continue;
          const double ex = grid.image_wrapped(x[i] - x[j]), ey = grid.image_wrapped(y[i] - y[j]),
                       ez = grid.image_wrapped(z[i] - z[j]);
          const double r = std::sqrt(ex * ex + ey * ey + ez * ez);
          if (j == i + 1) {
            dev = std::max(dev, std::abs(r - b));
            lo = std::min(lo, r);
            hi = std::max(hi, r);
          }
          // K (r - b)^2: force -2 K (r - b) along e.
          const double f = r > 0 ? -2 * gK * (r - b) / r : 0;
          fx += f * ex;
          fy += f * ey;
          fz += f * ez;
        }
        const double d2 = fx * fx + fy * fy + fz * fz;
        const double s = d2 > cap2 ? spec.pushoff_max_step / std::sqrt(d2) : 1.0;
        dx[i] = s * fx;
        dy[i] = s * fy;
        dz[i] = s * fz;
      }
      if (iter == 0) report.walk_min_distance = std::sqrt(min_r2);
      report.min_distance = std::sqrt(min_r2);
      report.min_bond = lo;
      report.max_bond = hi;
      if (spec.pushoff_iterations == 0) return 0;  // measured only
      if (std::sqrt(min_r2) >= spec.pushoff_min_distance && dev <= spec.pushoff_bond_tolerance) return iter;
      if (iter >= spec.pushoff_iterations) {
        const auto [pi, pj] = closest_pair(grid);
        throw InputError(fmt::format(
            "polymer_melt: the push-off did not converge in {} iterations: the closest non-bonded beads, {} and "
            "{}, are {:.4f} apart (wanted {}), and the bonds span {:.4f} .. {:.4f} (wanted {} +- {}); lower the "
            "density",
            iter, name(pi), name(pj), std::sqrt(min_r2), spec.pushoff_min_distance, lo, hi, b,
            spec.pushoff_bond_tolerance));
      }
      double moved2 = 0;  // the largest squared distance from the list's positions
#pragma omp parallel for schedule(static) reduction(max : moved2)
      for (Index i = 0; i < natoms; ++i) {
        x[i] += dx[i];
        y[i] += dy[i];
        z[i] += dz[i];
        rewrap(x[i], ix[i]);
        rewrap(y[i], iy[i]);
        rewrap(z[i], iz[i]);
        const double ex = grid.image_wrapped(x[i] - x0[i]), ey = grid.image_wrapped(y[i] - y0[i]),
                     ez = grid.image_wrapped(z[i] - z0[i]);
        moved2 = std::max(moved2, ex * ex + ey * ey + ez * ez);
      }
      if (moved2 > 0.25 * skin * skin) build_list();
    }
  }

  // The closest non-bonded pair (lowest indices among ties), for messages.
  std::pair<Index, Index> closest_pair(const CellGrid& grid) const {
    std::vector<std::vector<Index>> members(grid.cells());
    for (Index i = 0; i < natoms; ++i) members[grid.cell_of(x[i], y[i], z[i])].push_back(i);
    double best = INFINITY;
    std::pair<Index, Index> out{0, 0};
    for (Index i = 0; i < natoms; ++i) {
      const int* around = grid.around(grid.cell_of(x[i], y[i], z[i]));
      for (int q = 0; q < 27 && around[q] >= 0; ++q)
        for (Index j : members[around[q]]) {
          if (j <= i || bonded(i, j)) continue;
          const double ex = grid.image(x[i] - x[j]), ey = grid.image(y[i] - y[j]), ez = grid.image(z[i] - z[j]);
          const double r2 = ex * ex + ey * ey + ez * ez;
          if (r2 < best) {
            best = r2;
            out = {i, j};
          }
        }
    }
    return out;
  }
};

void check_spec(const PolymerMeltSpec& s, double L) {
  auto bad = [](const std::string& what) { throw InputError("polymer_melt: " + what); };
  if (s.chains < 1) bad(fmt::format("chains must be at least 1, got {}", s.chains));
  if (s.beads < 1) bad(fmt::format("beads must be at least 1, got {}", s.beads));
  if (!(s.density > 0) || !std::isfinite(s.density)) bad(fmt::format("density must be positive, got {}", s.density));
  if (!(s.bond_length > 0) || !std::isfinite(s.bond_length))
    bad(fmt::format("bond_length must be positive, got {}", s.bond_length));
  if (!(s.walk_lowest_distance > 0) || !(s.walk_lowest_distance <= s.walk_min_distance) ||
      !(s.pushoff_min_distance < s.pushoff_cutoff) || !(s.pushoff_bond_tolerance > 0) || !(s.pushoff_max_step > 0) ||
      s.walk_tries < 1 || s.walk_backtracks < 0 || s.pushoff_iterations < 0)
    bad("invalid walk or push-off settings");
  const double reach = std::max(s.walk_min_distance, s.pushoff_cutoff);
  if (!(L > 2 * reach))
    bad(
        fmt::format("{} chains of {} beads at density {} make a box {:.4g} across, which must be more than {:.4g} "
                    "(twice the push-off cutoff {:.4g}); give more chains or beads",
                    s.chains, s.beads, s.density, L, 2 * reach, reach));
}

}  // namespace

BuiltSystem build_polymer_melt(const PolymerMeltSpec& spec, int ntypes, const std::vector<double>& masses,
                               PolymerMeltReport* report_out) {
  if (spec.chains > 0 && spec.beads > (Index{1} << 40) / spec.chains)
    throw InputError(
        fmt::format("polymer_melt: {} chains of {} beads is more than 2^40 atoms", spec.chains, spec.beads));
  const Index natoms = spec.chains * spec.beads;
  const double L = std::cbrt(static_cast<double>(natoms) / spec.density);
  check_spec(spec, L);
  if (spec.bead_type < 1 || spec.bead_type > ntypes)
    throw InputError(fmt::format("polymer_melt: bead type {} outside 1..{}", spec.bead_type, ntypes));
  if (static_cast<int>(masses.size()) != ntypes + 1)
    throw InputError(fmt::format("polymer_melt: {} masses for {} atom types", masses.size() - 1, ntypes));

  PolymerMeltReport report;
  Melt m{spec, spec.chains, spec.beads, natoms, L, {}, {}, {}, {}, {}, {}};
  m.x.assign(natoms, 0.0);
  m.y.assign(natoms, 0.0);
  m.z.assign(natoms, 0.0);
  m.walk(report);
  m.wrap_all();
  report.pushoff_iterations = m.push_off(report);

  BuiltSystem s;
  for (int d = 0; d < 3; ++d) {
    s.box.lo[d] = 0;
    s.box.hi[d] = L;
  }
  AtomStore& a = s.atoms;
  a.ntypes = ntypes;
  a.mass_of_type = masses;
  a.resize_local(static_cast<std::size_t>(natoms));
  MolecularTopology& t = s.topology;
  t.molecule.resize(natoms);
  t.nbond_types = 1;
  t.bonds.reserve(static_cast<std::size_t>(spec.chains * (spec.beads - 1)));
  for (Index i = 0; i < natoms; ++i) {
    a.id[i] = i + 1;
    a.type[i] = spec.bead_type;
    a.x[i] = m.x[i];
    a.y[i] = m.y[i];
    a.z[i] = m.z[i];
    a.ix[i] = m.ix[i];
    a.iy[i] = m.iy[i];
    a.iz[i] = m.iz[i];
    a.vx[i] = a.vy[i] = a.vz[i] = 0;
    t.molecule[i] = i / spec.beads + 1;
    if (i % spec.beads != spec.beads - 1)
      t.bonds.push_back(MolecularTopology::Bond{static_cast<AtomId>(t.bonds.size() + 1), 1, {i + 1, i + 2}});
  }
  s.natoms_total = natoms;
  if (report_out) *report_out = report;
  return s;
}

}  // namespace tessera
