#include <omp.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <set>

#include "core/error.hpp"
#include "neighbor/cell_grid.hpp"
#include "neighbor/verlet_builder.hpp"
#include "run/simulation.hpp"
#include "test_support.hpp"

using namespace tessera;

namespace {

// The list of `sim` holds exactly each local atom's neighbours within the
// reach, every periodic image counted, by brute force; returns how many.
std::size_t require_exact_list(Simulation& sim) {
  auto& a = sim.atoms();
  const Box& box = sim.box();
  const double reach = sim.reach();
  const NeighborList nl = test::list_with_shift(sim.neighbor_list(), 0);
  std::size_t checked = 0;
  for (std::size_t i = 0; i < a.nlocal; ++i) {
    std::multiset<std::pair<AtomId, long>> expect, got;
    for (std::size_t j = 0; j < a.nlocal; ++j) {
      // Every periodic image of j within reach of i (the box is > 2 reach wide, so at most one per axis).
      for (int sx = -1; sx <= 1; ++sx)
        for (int sy = -1; sy <= 1; ++sy)
          for (int sz = -1; sz <= 1; ++sz) {
            if (i == j && sx == 0 && sy == 0 && sz == 0) continue;
            const double dx = a.x[i] - (a.x[j] + sx * box.length(0));
            const double dy = a.y[i] - (a.y[j] + sy * box.length(1));
            const double dz = a.z[i] - (a.z[j] + sz * box.length(2));
            if (dx * dx + dy * dy + dz * dz < reach * reach)
              expect.insert({a.id[j], std::lround(1e6 * (dx * dx + dy * dy + dz * dz))});
          }
    }
    for (int k = 0; k < nl.count[i]; ++k) {
      const int j = nl.index[i * nl.stride + k];
      const double dx = a.x[i] - a.x[j], dy = a.y[i] - a.y[j], dz = a.z[i] - a.z[j];
      got.insert({a.id[j], std::lround(1e6 * (dx * dx + dy * dy + dz * dz))});
    }
    REQUIRE(got == expect);
    checked += got.size();
  }
  return checked;
}

}  // namespace

TEST_CASE("Verlet list holds exactly the pairs within cutoff + skin (brute force)", "[neighbor]") {
  // Dense (cells half the reach wide, blocks of 2 x 2 x 2 sharing their
  // candidates) and sparse (cells a reach wide, reach_in_cells).
  const double density = GENERATE(0.8442, 0.3);
  const int cells = density > 0.5 ? 5 : 7;
  std::string yaml = test::lj_lattice_yaml(cells, 1.0, 0, "{style: nve, dt: 0.005}");
  yaml.replace(yaml.find("density: 0.8442"), 15, "density: " + std::to_string(density));
  Simulation sim(test::deck_from(yaml));
  const Box& box = sim.box();
  const double lo[3] = {0, 0, 0}, hi[3] = {box.length(0), box.length(1), box.length(2)};
  CHECK(reach_in_cells(static_cast<int>(sim.atoms().nlocal), lo, hi, sim.reach()) == (density > 0.5 ? 2 : 1));
  auto& a = sim.atoms();
  for (std::size_t i = 0; i < a.nlocal; ++i) {  // random-ish displacements, some across the box faces
    a.x[i] += 0.6 * std::sin(12.9898 * a.id[i]);
    a.y[i] += 0.6 * std::sin(78.233 * a.id[i]);
    a.z[i] += 0.6 * std::sin(37.719 * a.id[i]);
  }
  sim.setup();
  // About 78 (dense) and 28 (sparse) an atom within the reach.
  CHECK(require_exact_list(sim) > (density > 0.5 ? 50 : 20) * sim.atoms().nlocal);
}

// The rows are as wide as the last build's longest row needs (plus room to
// grow), not a fixed 64: a short cutoff's 12-20 neighbours get a narrow
// stride from the second build on, and the list stays exact.
TEST_CASE("the list's stride follows the longest row of the last build", "[neighbor]") {
  std::string yaml = test::lj_lattice_yaml(5, 1.44, 0, "{style: nve, dt: 0.005}");
  const std::string cut = "cutoff: 2.5";
  REQUIRE(yaml.find(cut) != std::string::npos);
  yaml.replace(yaml.find(cut), cut.size(), "cutoff: 1.122462048309373");
  Simulation sim(test::deck_from(yaml));
  sim.setup();
  const NeighborList& nl = sim.neighbor_list();
  CHECK(nl.widest == 12);  // the fcc lattice's nearest shell
  CHECK(nl.stride >= 64);   // nothing known before the first build
  const long builds0 = nl.builds;
  sim.run(200, nullptr);
  REQUIRE(nl.builds > builds0);
  sim.setup();  // a build at the current positions, which the check reads
  CHECK(nl.widest >= 12);
  CHECK(nl.widest <= 30);
  CHECK(nl.stride >= nl.widest);
  CHECK(nl.stride <= nl.widest + nl.widest / 8 + 8 + 7);
  CHECK(nl.stride % 8 == 0);
  CHECK(require_exact_list(sim) > 10 * sim.atoms().nlocal);
}

TEST_CASE("spatial sort keeps every atom and groups neighbours in memory", "[neighbor]") {
  Simulation sim(test::deck_from(test::lj_lattice_yaml(6, 1.0, 0, "{style: nve, dt: 0.005}")));
  std::vector<AtomId> before(sim.atoms().id.begin(), sim.atoms().id.begin() + sim.atoms().nlocal);
  sim.setup();
  const auto& a = sim.atoms();
  std::vector<AtomId> after(a.id.begin(), a.id.begin() + a.nlocal);
  CHECK(before != after);  // the lattice order is not cell order
  std::sort(after.begin(), after.end());
  std::sort(before.begin(), before.end());
  CHECK(before == after);
  // Consecutive atoms are close in space after the sort.
  double mean_gap = 0;
  for (std::size_t i = 1; i < a.nlocal; ++i)
    mean_gap += std::sqrt(std::pow(a.x[i] - a.x[i - 1], 2) + std::pow(a.y[i] - a.y[i - 1], 2) +
                          std::pow(a.z[i] - a.z[i - 1], 2));
  mean_gap /= a.nlocal - 1;
  CHECK(mean_gap < 0.25 * sim.box().length(0));
}

TEST_CASE("lists are rebuilt only when an atom moved more than half the skin", "[neighbor]") {
  Simulation sim(test::deck_from(test::lj_lattice_yaml(5, 1.44, 0, "{style: nve, dt: 0.005}")));
  sim.setup();
  const long builds0 = sim.neighbor_list().builds;
  // Each step moves atoms by dt |v| ~ 0.01; the first rebuild needs > 0.15.
  sim.run(3, nullptr);
  CHECK(sim.neighbor_list().builds == builds0);
  sim.run(200, nullptr);
  CHECK(sim.neighbor_list().builds > builds0 + 3);
  CHECK(sim.neighbor_list().builds < builds0 + 100);
}

TEST_CASE("a cell coordinate is clamped to the grid before it becomes an int, NaN and huge values too",
          "[neighbor]") {
  const double lo[3] = {0, 0, 0}, hi[3] = {10, 10, 10};
  const CellGrid g = CellGrid::cover(lo, hi, 2.5);
  REQUIRE(g.n[0] == 4);
  CHECK(g.coord(0, 0.0) == 0);
  CHECK(g.coord(0, 2.4) == 0);
  CHECK(g.coord(0, 2.6) == 1);
  CHECK(g.coord(0, 9.9) == 3);
  CHECK(g.coord(0, 10.0) == 3);   // on the upper edge: the last cell
  CHECK(g.coord(0, -0.1) == 0);   // rounding below the edge
  CHECK(g.coord(0, 1e300) == 3);  // far out of int's range: still the last cell
  CHECK(g.coord(0, -1e300) == 0);
  CHECK(g.coord(0, std::nan("")) == 0);
}

// Large lists' rows go out by streaming stores (VerletBuilder::
// kStreamRowsFrom); the lists must be those of plain stores, full and half,
// on any thread count.
TEST_CASE("rows written by streaming stores are the rows of plain stores", "[neighbor]") {
  std::string yaml = test::lj_lattice_yaml(6, 1.44, 0, "{style: nve, dt: 0.005}");
  Simulation sim(test::deck_from(yaml));
  sim.setup();
  sim.run(50, nullptr);  // a melt's uneven rows, ghosts in place
  const AtomStore& a = sim.atoms();
  const SubDomain sd = SubDomain::whole(sim.box());
  const bool half = GENERATE(false, true);
  const int threads = GENERATE(1, 3);
  const int saved = omp_get_max_threads();
  omp_set_num_threads(threads);
  VerletBuilder plain, streamed;
  plain.set_stream_rows_from(std::size_t(-1));
  streamed.set_stream_rows_from(0);
  NeighborList p, s;
  plain.build(a, sd, sim.reach(), p, half);
  streamed.build(a, sd, sim.reach(), s, half);
  omp_set_num_threads(saved);
  REQUIRE(reinterpret_cast<std::uintptr_t>(s.index.data()) % 16 == 0);  // else the plain path ran
  REQUIRE(p.stride == s.stride);
  REQUIRE(p.count == s.count);
  long listed = 0;
  for (std::size_t i = 0; i < a.nlocal; ++i) {
    const int padded = (p.count[i] + p.pad - 1) / p.pad * p.pad;
    for (int k = 0; k < padded; ++k) REQUIRE(p.index[i * p.stride + k] == s.index[i * s.stride + k]);
    listed += p.count[i];
  }
  CHECK(listed > (half ? 30 : 60) * static_cast<long>(a.nlocal));
}

// Rows of record offsets (NeighborList::entry_shift, what the pair styles'
// row kernels read) are the rows of atom indices shifted, padding included;
// rows_with_shift converts either way; a pair style's run builds them in
// either precision, on full rows only (an EAM run's hold atom indices:
// eam_test).
TEST_CASE("rows of record offsets are the rows of atom indices, shifted", "[neighbor]") {
  std::string yaml = test::lj_lattice_yaml(6, 1.44, 0, "{style: nve, dt: 0.005}");
  Simulation sim(test::deck_from(yaml));
  sim.setup();
  sim.run(50, nullptr);
  REQUIRE(sim.neighbor_list().entry_shift == kRecordShift);
  const AtomStore& a = sim.atoms();
  const SubDomain sd = SubDomain::whole(sim.box());
  const bool streamed = GENERATE(false, true);
  VerletBuilder b;
  if (streamed) b.set_stream_rows_from(0);
  NeighborList p, o;
  b.build(a, sd, sim.reach(), p);
  b.build(a, sd, sim.reach(), o, false, kRecordShift);
  REQUIRE(p.entry_shift == 0);
  REQUIRE(o.entry_shift == kRecordShift);
  REQUIRE(p.stride == o.stride);
  REQUIRE(p.count == o.count);
  for (std::size_t i = 0; i < a.nlocal; ++i) {
    const int padded = (p.count[i] + p.pad - 1) / p.pad * p.pad;
    for (int k = 0; k < padded; ++k) REQUIRE(o.index[i * o.stride + k] == 16 * p.index[i * p.stride + k]);
  }
  // Converted either way: each row's entries and padding (the rest of a
  // row's stride is never written, nor read).
  std::vector<int> scratch;
  const auto same_rows = [&](const NeighborList& want, const int* got) {
    for (std::size_t i = 0; i < a.nlocal; ++i) {
      const int padded = (want.count[i] + want.pad - 1) / want.pad * want.pad;
      for (int k = 0; k < padded; ++k) REQUIRE(got[i * want.stride + k] == want.index[i * want.stride + k]);
    }
  };
  same_rows(o, rows_with_shift(p, kRecordShift, scratch));
  same_rows(p, rows_with_shift(o, 0, scratch));
  REQUIRE(rows_with_shift(o, kRecordShift, scratch) == o.index.data());  // no copy when it holds them

  REQUIRE_THROWS_WITH(b.build(a, sd, sim.reach(), o, true, kRecordShift), "a half list's rows hold atom indices");
  // An atom index whose offset would not fit an int.
  NeighborList big = p;
  big.index[0] = 1 << (31 - kRecordShift);  // the 134217729th atom
  REQUIRE_THROWS_WITH(rows_with_shift(big, kRecordShift, scratch),
                      Catch::Contains("at most 134217728 atoms") && Catch::Contains("run on more ranks"));

  std::string mixed = yaml + "precision: mixed\n";
  Simulation ms(test::deck_from(mixed));
  ms.setup();
  ms.run(20, nullptr);
  CHECK(ms.neighbor_list().entry_shift == kRecordShift);
  std::string half = yaml;
  const std::string skin = "neighbor: {skin: 0.3}";
  REQUIRE(half.find(skin) != std::string::npos);
  half.replace(half.find(skin), skin.size(), "neighbor: {skin: 0.3, list: half}");
  Simulation hs(test::deck_from(half));
  hs.setup();
  hs.run(20, nullptr);
  CHECK(hs.neighbor_list().half);
  CHECK(hs.neighbor_list().entry_shift == 0);

  // A rank whose atoms outgrow the offsets (2^27, lowered here) stops the
  // run with a message saying how many it holds and what to do; one on half
  // rows, which hold atom indices, runs on.
  Simulation over(test::deck_from(yaml));
  over.set_record_offset_atoms_for_test(100);
  std::string stopped = "(did not stop)";
  try {
    over.setup();
  } catch (const SimulationError& e) {
    stopped = e.what();
  }
  INFO(stopped);
  CHECK(stopped.rfind("step 0: ", 0) == 0);
  CHECK(stopped.find("at most 100 atoms") != std::string::npos);
  CHECK(stopped.find("run on more ranks") != std::string::npos);
  Simulation half_over(test::deck_from(half));
  half_over.set_record_offset_atoms_for_test(100);
  half_over.setup();
  half_over.run(5, nullptr);
  CHECK(half_over.neighbor_list().entry_shift == 0);
}

// Each thread counts and places a range of cells: the bins are those of a
// serial counting sort (every cell's atoms in index order) on any team.
TEST_CASE("bin_atoms gives every team the serial bins", "[neighbor]") {
  const double lo[3] = {-1.0, -1.0, -1.0}, hi[3] = {9.0, 7.0, 8.0};
  const CellGrid g = CellGrid::cover(lo, hi, 1.3);
  const int n = 5000;
  std::vector<double> x(n), y(n), z(n);
  for (int i = 0; i < n; ++i) {  // spread unevenly, in no cell order
    x[i] = lo[0] + std::fmod(i * 0.61803398875, 1.0) * (hi[0] - lo[0]);
    y[i] = lo[1] + std::fmod(i * 0.41421356237 * (1 + (i % 3)), 1.0) * (hi[1] - lo[1]);
    z[i] = lo[2] + std::fmod(i * 0.73205080757, 1.0) * (hi[2] - lo[2]) * (i % 5 == 0 ? 0.2 : 1.0);
  }
  const int nc = g.count();
  std::vector<int> start(nc + 1, 0), atoms(n);
  for (int i = 0; i < n; ++i) ++start[g.cell_of(x[i], y[i], z[i]) + 1];
  for (int c = 0; c < nc; ++c) start[c + 1] += start[c];
  std::vector<int> fill(start.begin(), start.end() - 1);
  for (int i = 0; i < n; ++i) atoms[fill[g.cell_of(x[i], y[i], z[i])]++] = i;
  const int before = omp_get_max_threads();
  for (int nt : {1, 2, 3, 8}) {
    INFO(nt << " threads");
    omp_set_num_threads(nt);
    CellBins bins;
    bin_atoms(g, x.data(), y.data(), z.data(), n, bins);
    CHECK(bins.start == start);
    CHECK(bins.atoms == atoms);
  }
  omp_set_num_threads(before);
}
