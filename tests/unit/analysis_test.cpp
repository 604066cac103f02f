// In-engine analysis (deck `analysis`): g(r) and the MSD against cases whose
// answer is known exactly (a perfect lattice, hand-made displacements across
// periodic boundaries), against an independent O(N^2) minimum-image count,
// and against the statistics of uniform random points; the deck keys, the
// checkpointed MSD origin and the H5MD series.

#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include <fmt/format.h>

#include "analysis/analysis.hpp"
#include "analysis/msd.hpp"
#include "analysis/rdf.hpp"
#include "neighbor/verlet_builder.hpp"
#include "core/error.hpp"
#include "core/units.hpp"
#include "io/checkpoint.hpp"
#include "io/h5.hpp"
#include "io/h5md_writer.hpp"
#include "run/simulation.hpp"
#include "test_support.hpp"

using namespace tessera;

namespace {

// A lattice with no forces (epsilon 0): only the positions matter here.
std::string lattice_yaml(const std::string& lattice, int ntypes, double cutoff = 2.5) {
  std::string coeffs;
  for (int t = 1; t <= ntypes; ++t) coeffs += fmt::format("    - {{types: [{0}, {0}], epsilon: 0.0, sigma: 1.0}}\n", t);
  return fmt::format(R"(system:
  lattice: {}
  types: {}
potential:
  style: lj/cut
  cutoff: {}
  coeffs:
{}neighbor: {{skin: 0.3}}
integrator: {{style: nve, dt: 0.005}}
run: {{steps: 0}}
)",
                     lattice, ntypes, cutoff, coeffs);
}

// Global atoms per type (index 0: all) of a one-rank simulation.
std::vector<long long> atoms_of_type(const AtomStore& a) {
  std::vector<long long> n(static_cast<std::size_t>(a.ntypes) + 1, 0);
  for (std::size_t i = 0; i < a.nlocal; ++i) {
    ++n[0];
    ++n[a.type[i]];
  }
  return n;
}

// Neighbours per centre atom in bins [lo, hi) of row `row`: the integral of
// rho' 4 pi r^2 g(r) dr over the bins' exact shell volumes, rho' = (number of
// possible neighbours) / V. With g = count / expectation it gives
// count / N_centre, independently of how g was normalised.
double coordination(const std::vector<double>& g, const RdfLayout& l, int row, const std::vector<long long>& n,
                    double volume, int lo, int hi) {
  const int c = row == 0 ? 0 : l.pairs[row - 1][0], b = row == 0 ? 0 : l.pairs[row - 1][1];
  const double rho = static_cast<double>(n[b] - (c == b ? 1 : 0)) / volume;
  const double dr = l.width();
  double sum = 0;
  for (int k = lo; k < hi; ++k)
    sum += rho * g[static_cast<std::size_t>(row) * l.bins + k] * 4.0 * M_PI / 3.0 *
           (std::pow((k + 1) * dr, 3) - std::pow(k * dr, 3));
  return sum;
}

int bin_of(double r, const RdfLayout& l) { return static_cast<int>(r / l.width()); }

// Moves every atom by `shift` (then setup() wraps them), so that lattice
// neighbours straddle the box faces instead of sitting on them.
void shift_atoms(Simulation& sim, const double shift[3]) {
  AtomStore& a = sim.atoms();
  for (std::size_t i = 0; i < a.nlocal; ++i) {
    a.x[i] += shift[0];
    a.y[i] += shift[1];
    a.z[i] += shift[2];
  }
}

using test::Scratch;

}  // namespace

TEST_CASE("g(r) of a perfect fcc lattice integrates to its coordination shells", "[analysis][rdf]") {
  // Density 1: a = 4^(1/3). Shells at a/sqrt(2) (12), a (6), a sqrt(3/2) (24),
  // a sqrt(2) (12); the next, a sqrt(5/2) = 2.51, lies past r_max = 2.4.
  Simulation sim(test::deck_from(lattice_yaml("{style: fcc, density: 1.0, cells: [6, 6, 6]}", 1)));
  const double a = std::cbrt(4.0);
  const double shift[3] = {0.31 * a, 0.17 * a, 0.73 * a};
  shift_atoms(sim, shift);
  sim.setup();
  RdfLayout l;
  l.bins = 120;
  l.r_max = 2.4;
  const auto counts = rdf_histogram(sim.atoms(), sim.neighbor_list(), l);
  const auto n = atoms_of_type(sim.atoms());
  const double volume = sim.box().volume();
  const auto g = rdf_normalise(counts, l, n, volume);
  const double shells[] = {a / std::sqrt(2.0), a, a * std::sqrt(1.5), a * std::sqrt(2.0)};
  const double neighbours[] = {12, 6, 24, 12};
  long long listed = 0;
  for (int s = 0; s < 4; ++s) {
    INFO("shell at " << shells[s]);
    // Every pair of the shell lands in the one bin holding its distance.
    const int b = bin_of(shells[s], l);
    CHECK(counts[b] == static_cast<long long>(neighbours[s]) * n[0]);
    listed += counts[b];
    // Integrated between the midpoints of neighbouring shells.
    const int lo = s == 0 ? 0 : bin_of(0.5 * (shells[s - 1] + shells[s]), l);
    const int hi = s == 3 ? l.bins : bin_of(0.5 * (shells[s] + shells[s + 1]), l);
    CHECK(coordination(g, l, 0, n, volume, lo, hi) == Approx(neighbours[s]).epsilon(1e-12));
  }
  long long all = 0;
  for (int b = 0; b < l.bins; ++b) all += counts[b];
  CHECK(all == listed);  // nothing between the shells
}

TEST_CASE("g(r) per type pair of an ordered binary lattice (L1_2, Cu3Au)", "[analysis][rdf]") {
  // Type 2 on the cube corners, type 1 on the face centres. Nearest
  // neighbours (a/sqrt(2)): a type-2 atom has 12 of type 1 and none of its
  // own; a type-1 atom has 4 of type 2 and 8 of type 1. At a: type 2 has 6
  // of type 2, type 1 has 6 of type 1.
  Simulation sim(
      test::deck_from(lattice_yaml("{style: fcc, density: 1.0, cells: [5, 5, 5], basis_types: [2, 1, 1, 1]}", 2, 2.0)));
  const double a = std::cbrt(4.0);
  const double shift[3] = {0.4 * a, 0.9 * a, 0.05 * a};
  shift_atoms(sim, shift);
  sim.setup();
  RdfLayout l;
  l.bins = 72;
  l.r_max = 1.8;  // below the third shell, a sqrt(3/2) = 1.94
  l.ntypes = 2;
  l.pairs = {{2, 1}, {1, 2}, {1, 1}, {2, 2}};
  const auto n = atoms_of_type(sim.atoms());
  REQUIRE(n[1] == 3 * n[2]);
  const auto g = rdf_normalise(rdf_histogram(sim.atoms(), sim.neighbor_list(), l), l, n, sim.box().volume());
  const int mid = bin_of(0.5 * (a / std::sqrt(2.0) + a), l);
  const double first[] = {12, 12, 4, 8, 0};  // rows: all, [2,1], [1,2], [1,1], [2,2]
  const double second[] = {6, 0, 0, 6, 6};
  for (int row = 0; row < l.rows(); ++row) {
    INFO("row " << row);
    CHECK(coordination(g, l, row, n, sim.box().volume(), 0, mid) == Approx(first[row]).margin(1e-12));
    CHECK(coordination(g, l, row, n, sim.box().volume(), mid, l.bins) == Approx(second[row]).margin(1e-12));
  }
}

TEST_CASE("g(r) of uniform random points: the minimum-image count and g = 1 within noise", "[analysis][rdf]") {
  Simulation sim(
      test::deck_from(lattice_yaml("{style: fcc, density: 1.0, cells: [10, 10, 10], basis_types: [1, 2, 1, 1]}", 2)));
  AtomStore& a = sim.atoms();
  const Box box = sim.box();
  std::mt19937_64 rng(20240611);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (std::size_t i = 0; i < a.nlocal; ++i) {
    a.x[i] = box.lo[0] + u(rng) * box.length(0);
    a.y[i] = box.lo[1] + u(rng) * box.length(1);
    a.z[i] = box.lo[2] + u(rng) * box.length(2);
  }
  sim.setup();
  RdfLayout l;
  l.bins = 25;
  l.r_max = 2.5;
  l.ntypes = 2;
  l.pairs = {{1, 2}, {2, 2}};
  const auto counts = rdf_histogram(a, sim.neighbor_list(), l);
  {
    // A half list (each pair of locals once, NeighborList::half) counts the same.
    NeighborList half;
    VerletBuilder().build(a, SubDomain::whole(box), sim.reach(), half, true);
    REQUIRE(half.half);
    CHECK(rdf_histogram(a, half, l) == counts);
    // So do rows of record offsets (NeighborList::entry_shift, a mixed run's).
    NeighborList offsets;
    VerletBuilder().build(a, SubDomain::whole(box), sim.reach(), offsets, false, kRecordShift);
    REQUIRE(offsets.entry_shift == kRecordShift);
    CHECK(rdf_histogram(a, offsets, l) == counts);
  }

  // An independent count: every ordered pair once, minimum image, no lists.
  std::vector<std::int64_t> direct(counts.size(), 0);
  const std::size_t natoms = a.nlocal;
  for (std::size_t i = 0; i < natoms; ++i)
    for (std::size_t j = 0; j < natoms; ++j) {
      if (i == j) continue;
      double r2 = 0;
      const double d[3] = {a.x[j] - a.x[i], a.y[j] - a.y[i], a.z[j] - a.z[i]};
      for (int k = 0; k < 3; ++k) {
        const double m = d[k] - box.length(k) * std::round(d[k] / box.length(k));
        r2 += m * m;
      }
      if (r2 >= l.r_max * l.r_max) continue;
      const int b = std::min(static_cast<int>(std::sqrt(r2) * (l.bins / l.r_max)), l.bins - 1);
      ++direct[b];
      for (int p = 0; p < 2; ++p)
        if (a.type[i] == l.pairs[p][0] && a.type[j] == l.pairs[p][1]) ++direct[(p + 1) * l.bins + b];
    }
  CHECK(counts == direct);

  // Unordered pairs in a shell of volume v: a sum of N(N-1)/2 nearly
  // independent indicators of probability v/V, so about Poisson with mean
  // mu = N(N-1)/2 v/V; g = count / (2 mu) has standard deviation 1/sqrt(mu).
  // Bins past 0.5 (mu >= 760 here, 3.6 % at most) must lie within 5 sigma:
  // a chance failure has odds below 1e-5 over the 20 bins, and the seed is
  // fixed, so the test is reproducible either way. Normalising by N^2
  // instead of N(N-1) would shift g by only 1/N, far inside this; the lattice
  // tests above pin the normalisation exactly.
  const auto n = atoms_of_type(a);
  const auto g = rdf_normalise(counts, l, n, box.volume());
  double all_pairs = 0, all_expected = 0;
  for (int b = 5; b < l.bins; ++b) {
    const double r1 = b * l.width(), r2 = (b + 1) * l.width();
    const double mu = 0.5 * n[0] * (n[0] - 1) * 4.0 * M_PI / 3.0 * (r2 * r2 * r2 - r1 * r1 * r1) / box.volume();
    INFO("bin " << b << ", mu " << mu);
    CHECK(std::abs(g[b] - 1.0) < 5.0 / std::sqrt(mu));
    all_pairs += 0.5 * static_cast<double>(counts[b]);
    all_expected += mu;
  }
  CHECK(std::abs(all_pairs / all_expected - 1.0) < 5.0 / std::sqrt(all_expected));
  // The type rows: about 1 too, with fewer pairs (wider, 6 sigma, same formula).
  for (int p = 1; p <= 2; ++p) {
    const int c = l.pairs[p - 1][0], nb = l.pairs[p - 1][1];
    for (int b = 10; b < l.bins; ++b) {
      const double r1 = b * l.width(), r2 = (b + 1) * l.width();
      const double pairs = static_cast<double>(n[c]) * (n[nb] - (c == nb ? 1 : 0)) / (c == nb ? 2.0 : 1.0);
      const double mu = pairs * 4.0 * M_PI / 3.0 * (r2 * r2 * r2 - r1 * r1 * r1) / box.volume();
      INFO("row " << p << ", bin " << b << ", mu " << mu);
      CHECK(std::abs(g[p * l.bins + b] - 1.0) < 6.0 / std::sqrt(mu));
    }
  }
}

TEST_CASE("a type with no atoms has no g(r) (NaN), the others are unaffected", "[analysis][rdf]") {
  RdfLayout l;
  l.bins = 2;
  l.r_max = 1.0;
  l.ntypes = 2;
  l.pairs = {{1, 2}};
  const std::vector<std::int64_t> counts = {4, 6, 0, 0};
  const auto g = rdf_normalise(counts, l, {3, 3, 0}, 10.0);
  // 3 atoms, 2 others each, over V = 10: 6/10 of a pair per unit volume.
  CHECK(g[0] == Approx(4.0 / (6.0 / 10.0 * 4.0 * M_PI / 3.0 * 0.125)));
  CHECK(g[1] == Approx(6.0 / (6.0 / 10.0 * 4.0 * M_PI / 3.0 * (1.0 - 0.125))));
  CHECK(std::isnan(g[2]));
  CHECK(std::isnan(g[3]));
  CHECK(rdf_bin_centres(l) == std::vector<double>{0.25, 0.75});
}

TEST_CASE("MSD of known displacements across periodic boundaries is exact", "[analysis][msd]") {
  // Box lengths 8, 4, 2 from lo = -1 (dyadic values: every sum is exact).
  Box box;
  const double lengths[3] = {8, 4, 2};
  for (int d = 0; d < 3; ++d) {
    box.lo[d] = -1;
    box.hi[d] = -1 + lengths[d];
  }
  // Origins, and the displacements that take each atom to its wrapped
  // position and image below: atom 1 crosses +x, -y and +z once; atom 2
  // crosses -x three times, +y twice, -z three times; atom 3 stays.
  const std::vector<double> origin = {6.5, 0.25, 0.75, -0.5, 2.5, -0.75, 3.0, 1.0, 0.0};
  const std::vector<double> moved = {1.0, -1.5, 0.5, -17.0, 8.25, -4.5, 0.0, 0.0, 0.0};
  AtomStore a;
  a.ntypes = 3;
  a.resize_local(3);
  a.type = {1, 2, 1};
  // Wrapped positions and images worked out by hand.
  a.x = {-0.5, 6.5, 3.0};
  a.ix = {1, -3, 0};
  a.y = {2.75, 2.75, 1.0};
  a.iy = {-1, 2, 0};
  a.z = {-0.75, 0.75, 0.0};
  a.iz = {1, -3, 0};
  std::vector<double> position(9);
  for (std::size_t i = 0; i < 3; ++i) {
    unwrapped_position(a, i, box, &position[3 * i]);
    for (int d = 0; d < 3; ++d) CHECK(position[3 * i + d] == origin[3 * i + d] + moved[3 * i + d]);
  }
  const auto msd = msd_values(position, origin, a.type, 3);
  REQUIRE(msd.size() == 4 * kMsdColumns);
  const double atom1[3] = {1.0, 2.25, 0.25}, atom2[3] = {289.0, 68.0625, 20.25};
  for (int c = 0; c < 3; ++c) {
    CHECK(msd[c] == (atom1[c] + atom2[c] + 0.0) / 3.0);     // all atoms
    CHECK(msd[kMsdColumns + c] == (atom1[c] + 0.0) / 2.0);  // type 1: atoms 1 and 3
    CHECK(msd[2 * kMsdColumns + c] == atom2[c]);            // type 2: atom 2
    CHECK(std::isnan(msd[3 * kMsdColumns + c]));            // type 3: none
  }
  CHECK(msd[3] == (3.5 + 377.3125 + 0.0) / 3.0);
  CHECK(msd[kMsdColumns + 3] == 3.5 / 2.0);
  CHECK(msd[2 * kMsdColumns + 3] == 377.3125);
}

TEST_CASE("analysis deck keys: defaults, values and refusals", "[analysis][deck]") {
  const std::string base = lattice_yaml("{style: fcc, density: 1.0, cells: [6, 6, 6], basis_types: [1, 2, 1, 2]}", 2) +
                           "output:\n  trajectory: {every: 25, file: t.h5md}\n";
  SECTION("defaults follow the trajectory and the cutoff") {
    const Deck d = test::deck_from(base + "analysis: {rdf: {}, msd: {}}\n");
    REQUIRE(d.analysis.rdf);
    REQUIRE(d.analysis.msd);
    CHECK(d.analysis.rdf->every == 25);
    CHECK(d.analysis.rdf->bins == 100);
    CHECK(d.analysis.rdf->r_max == 0);
    CHECK(d.analysis.rdf->pairs.empty());
    CHECK(d.analysis.msd->every == 25);
  }
  SECTION("given values") {
    const Deck d = test::deck_from(
        base + "analysis:\n  rdf: {every: 10, bins: 40, r_max: 2.0, pairs: [[1, 1], [2, 1]]}\n  msd: {every: 5}\n");
    CHECK(d.analysis.rdf->every == 10);
    CHECK(d.analysis.rdf->bins == 40);
    CHECK(d.analysis.rdf->r_max == 2.0);
    CHECK(d.analysis.rdf->pairs == std::vector<std::array<int, 2>>{{1, 1}, {2, 1}});
    CHECK(d.analysis.msd->every == 5);
    CHECK_FALSE(test::deck_from(base).analysis.enabled());
  }
  SECTION("refusals name file, line, column and key") {
    const auto error_of = [](const std::string& yaml) -> std::string {
      try {
        Simulation sim(test::deck_from(yaml, "bad.yaml"));
      } catch (const InputError& e) {
        return e.what();
      }
      return "no error";
    };
    const std::string no_output = lattice_yaml("{style: fcc, density: 1.0, cells: [6, 6, 6]}", 1);
    CHECK_THAT(error_of(no_output + "analysis: {msd: {}}\n"),
               Catch::Contains("bad.yaml:12:11: analysis: needs output.trajectory"));
    CHECK_THAT(error_of(base + "analysis: {}\n"), Catch::Contains("analysis: give 'rdf', 'msd' or both"));
    CHECK_THAT(error_of(base + "analysis: {vacf: {}}\n"),
               Catch::Contains("analysis.vacf: unknown key (allowed here: rdf, msd)"));
    CHECK_THAT(error_of(base + "analysis: {rdf: {r_max: 3.0}}\n"),
               Catch::Contains("bad.yaml:15:25: analysis.rdf.r_max: 3 is beyond the largest pair cutoff 2.5"));
    CHECK_THAT(error_of(base + "analysis: {rdf: {r_max: -1}}\n"),
               Catch::Contains("analysis.rdf.r_max: must be positive"));
    CHECK_THAT(error_of(base + "analysis: {rdf: {bins: 0}}\n"),
               Catch::Contains("analysis.rdf.bins: must be a positive integer"));
    CHECK_THAT(error_of(base + "analysis: {rdf: {pairs: [[1, 3]]}}\n"),
               Catch::Contains("analysis.rdf.pairs: type pair [1, 3] names a type above the 2 atom type(s)"));
    CHECK_THAT(error_of(base + "analysis: {rdf: {pairs: [[1, 2], [1, 2]]}}\n"),
               Catch::Contains("analysis.rdf.pairs[1]: type pair [1, 2] given twice"));
    CHECK_THAT(error_of(base + "analysis: {rdf: {pairs: [1, 2]}}\n"),
               Catch::Contains("analysis.rdf.pairs[0]: expected two atom types"));
    CHECK_THAT(error_of(base + "analysis: {rdf: {pairs: [[0, 1]]}}\n"),
               Catch::Contains("analysis.rdf.pairs[0]: atom types go from 1 to 1000, got 0"));
    CHECK_THAT(error_of(base + "analysis: {msd: {every: 0}}\n"),
               Catch::Contains("analysis.msd.every: must be a positive integer"));
    CHECK_THAT(error_of(base + "analysis: {msd: {every: 5, com: true}}\n"),
               Catch::Contains("analysis.msd.com: unknown key (allowed here: every)"));
  }
}

TEST_CASE("a checkpoint carries the MSD origin, and format 2 files still read", "[analysis][checkpoint]") {
  Scratch scratch("ckpt");
  Simulation sim(test::deck_from(test::lj_lattice_yaml(4, 1.0, 0, "{style: nve, dt: 0.005}")));
  sim.setup();
  CheckpointState s = sim.capture_state();
  CHECK(s.format_version == kCheckpointFormat);
  CHECK(kCheckpointFormat >= 3);  // format 3 brought the MSD origin
  for (std::size_t k = 0; k < 3 * s.id.size(); ++k) s.msd_origin.push_back(0.1 * static_cast<double>(k) - 7.3);
  s.step = 700;
  s.msd_origin_step = 500;
  write_checkpoint(scratch.file("with.h5"), s);
  const CheckpointState back = read_checkpoint(scratch.file("with.h5"));
  CHECK(back.msd_origin == s.msd_origin);
  CHECK(back.msd_origin_step == 500);
  s.msd_origin_step = 701;
  write_checkpoint(scratch.file("later.h5"), s);
  CHECK_THROWS_WITH(read_checkpoint(scratch.file("later.h5")),
                    Catch::Contains("analysis/msd_origin is of step 701, outside 0..700"));
  s.msd_origin_step = 500;
  s.msd_origin.clear();
  write_checkpoint(scratch.file("without.h5"), s);
  CHECK(read_checkpoint(scratch.file("without.h5")).msd_origin.empty());
  s.msd_origin.assign(3, 1.0);
  write_checkpoint(scratch.file("short.h5"), s);
  CHECK_THROWS_WITH(read_checkpoint(scratch.file("short.h5")),
                    Catch::Contains("analysis/msd_origin has 1 rows for 256 atoms"));
  // Format 2, as the builds before this one wrote it: no /analysis group.
  s.format_version = 2;
  write_checkpoint(scratch.file("format2.h5"), s);
  {
    h5::Handle f = h5::open_file(scratch.file("format2.h5"), true);
    REQUIRE(H5Ldelete(f, "analysis", H5P_DEFAULT) >= 0);
    f.close("close");
  }
  seal_checkpoint_file(scratch.file("format2.h5"), 2);
  const CheckpointState old = read_checkpoint(scratch.file("format2.h5"));
  CHECK(old.format_version == 2);
  CHECK(old.msd_origin.empty());
  CHECK(old.position == s.position);

  // What a restart continues from: the stored origin and its step, or none.
  const MsdOrigin none = resumed_msd_origin(&old, sim.comm());
  CHECK(none.step == -1);
  CHECK(none.position.empty());
  const MsdOrigin kept = resumed_msd_origin(&back, sim.comm());
  CHECK(kept.step == 500);
  CHECK(kept.position == back.msd_origin);
}

TEST_CASE("analysis series in the H5MD file: created at the first sample, trimmed and checked on resume",
          "[analysis][h5md]") {
  Scratch scratch("series");
  TrajectorySpec spec;
  spec.every = 10;
  spec.file = scratch.file("t.h5md");
  const std::vector<std::int64_t> ids = {1, 2};
  const std::vector<std::int32_t> types = {1, 2};
  ObservableSeries rdf;
  rdf.name = "rdf";
  rdf.shape = {2, 3};
  rdf.axes = {{"r", {0.5, 1.5, 2.5}, {}, 0}, {"pairs", {}, {0, 0, 1, 2}, 2}};
  const auto sample = [](long step) {
    std::vector<double> v(6);
    for (int k = 0; k < 6; ++k) v[k] = step + 0.125 * k;
    return v;
  };
  {
    H5mdWriter w(spec, units_for("lj"), 2, ids, types, "test", -1);
    const int k = w.add_series(rdf);
    CHECK(w.series_samples(k) == 0);
    for (long step = 0; step <= 40; step += 10) w.write_series(k, step, step * 0.005, sample(step));
    w.write_series(k, 40, 0.2, sample(99));  // the same step again: skipped
    CHECK(w.series_samples(k) == 5);
    CHECK_THROWS_AS(w.write_series(k, 50, 0.25, {1.0}), std::invalid_argument);
  }
  const auto read = [&](const std::string& name) {
    h5::Handle f(H5Fopen(spec.file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    h5::Handle set(H5Dopen2(f, name.c_str(), H5P_DEFAULT), H5Dclose);
    h5::Handle space(H5Dget_space(set), H5Sclose);
    std::vector<double> v(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
    H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
    return v;
  };
  CHECK(read("observables/rdf/step") == std::vector<double>{0, 10, 20, 30, 40});
  CHECK(read("observables/rdf/r") == std::vector<double>{0.5, 1.5, 2.5});
  CHECK(read("observables/rdf/pairs") == std::vector<double>{0, 0, 1, 2});
  // A run resumed at step 20 drops 30 and 40 and writes them anew.
  {
    H5mdWriter w(spec, units_for("lj"), 2, ids, types, "test", 20);
    const int k = w.add_series(rdf);
    CHECK(w.series_samples(k) == 3);
    w.write_series(k, 20, 0.1, sample(77));  // already stored: skipped
    w.write_series(k, 30, 0.15, sample(31));
  }
  CHECK(read("observables/rdf/step") == std::vector<double>{0, 10, 20, 30});
  const auto values = read("observables/rdf/value");
  REQUIRE(values.size() == 24);
  CHECK(std::vector<double>(values.begin() + 12, values.begin() + 18) == sample(20));
  CHECK(std::vector<double>(values.begin() + 18, values.end()) == sample(31));
  // Other bins or another shape under the same name are refused.
  ObservableSeries other = rdf;
  other.axes[0].real = {0.25, 0.75, 1.25};
  CHECK_THROWS_WITH(H5mdWriter(spec, units_for("lj"), 2, ids, types, "test", 30).add_series(other),
                    Catch::Contains("'observables/rdf/r' differs from this run's"));
  other = rdf;
  other.shape = {3, 3};
  CHECK_THROWS_WITH(H5mdWriter(spec, units_for("lj"), 2, ids, types, "test", 30).add_series(other),
                    Catch::Contains("holds samples of shape [2, 3], this run writes [3, 3]"));
}
