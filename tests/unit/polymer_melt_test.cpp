#include <omp.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <string>

#include "core/error.hpp"
#include "deck/deck.hpp"
#include "run/simulation.hpp"
#include "system/build_system.hpp"
#include "system/polymer_melt.hpp"
#include "test_support.hpp"

using namespace tessera;

namespace {

PolymerMeltSpec small_melt(std::uint64_t seed = 7) {
  PolymerMeltSpec s;
  s.chains = 20;
  s.beads = 50;
  s.density = 0.85;
  s.seed = seed;
  return s;
}

double unwrapped(const BuiltSystem& s, int d, std::size_t i) {
  const AtomStore& a = s.atoms;
  const double* x[3] = {a.x.data(), a.y.data(), a.z.data()};
  const int* im[3] = {a.ix.data(), a.iy.data(), a.iz.data()};
  return x[d][i] + im[d][i] * s.box.length(d);
}

// Length of the bond between atoms i and j from the unwrapped positions
// (no minimum image: the image flags must make each chain continuous).
double bond_length(const BuiltSystem& s, std::size_t i, std::size_t j) {
  double r2 = 0;
  for (int d = 0; d < 3; ++d) {
    const double e = unwrapped(s, d, i) - unwrapped(s, d, j);
    r2 += e * e;
  }
  return std::sqrt(r2);
}

// Smallest minimum-image distance between beads that are not bonded, by
// brute force over all pairs.
double min_nonbonded(const BuiltSystem& s, long long beads) {
  const AtomStore& a = s.atoms;
  const double L = s.box.length(0);
  double best = INFINITY;
  for (std::size_t i = 0; i < a.nlocal; ++i)
    for (std::size_t j = i + 1; j < a.nlocal; ++j) {
      if (j == i + 1 && static_cast<long long>(i) / beads == static_cast<long long>(j) / beads) continue;
      double r2 = 0;
      for (double e : {a.x[i] - a.x[j], a.y[i] - a.y[j], a.z[i] - a.z[j]}) {
        e -= L * std::floor(e / L + 0.5);
        r2 += e * e;
      }
      best = std::min(best, r2);
    }
  return std::sqrt(best);
}

bool same_atoms(const BuiltSystem& p, const BuiltSystem& q) {
  const AtomStore &a = p.atoms, &b = q.atoms;
  return a.x == b.x && a.y == b.y && a.z == b.z && a.ix == b.ix && a.iy == b.iy && a.iz == b.iz && a.id == b.id;
}

const std::string kMeltDeck = R"(units: lj
system:
  polymer_melt: {chains: 20, beads: 50, density: 0.85, seed: 11}
potential:
  style: lj/cut
  cutoff: 1.122462048309373
  shift: true
  coeffs:
    - {types: [1, 1], epsilon: 1.0, sigma: 1.0}
neighbor: {skin: 0.3}
integrator: {style: nve, dt: 0.01}
run: {steps: 10}
)";

std::string deck_error(const std::string& yaml) {
  try {
    Simulation sim(parse_deck(yaml, "melt.yaml"));
  } catch (const InputError& e) {
    return e.what();
  }
  FAIL("no error for deck:\n" << yaml);
  return "";
}

}  // namespace

TEST_CASE("a polymer melt has the atoms, chains and bonds it was asked for", "[polymer_melt]") {
  const PolymerMeltSpec spec = small_melt();
  PolymerMeltReport report;
  const BuiltSystem s = build_polymer_melt(spec, 2, {0.0, 1.5, 2.0}, &report);
  const AtomStore& a = s.atoms;
  const long long n = spec.chains * spec.beads;
  REQUIRE(s.natoms_total == n);
  REQUIRE(a.nlocal == static_cast<std::size_t>(n));
  CHECK(a.ntypes == 2);
  CHECK(a.mass_of_type == std::vector<double>{0.0, 1.5, 2.0});
  CHECK_FALSE(s.has_velocities);
  // A cubic box of the requested density.
  const double L = std::cbrt(n / spec.density);
  for (int d = 0; d < 3; ++d) {
    CHECK(s.box.lo[d] == 0);
    CHECK(s.box.hi[d] == Approx(L).epsilon(1e-14));
  }
  CHECK(n / s.box.volume() == Approx(spec.density).epsilon(1e-12));
  // Ids chain by chain, bead by bead; molecule id = chain.
  REQUIRE(s.topology.molecule.size() == a.nlocal);
  for (std::size_t i = 0; i < a.nlocal; ++i) {
    CHECK(a.id[i] == static_cast<AtomId>(i + 1));
    CHECK(a.type[i] == 1);
    CHECK(s.topology.molecule[i] == static_cast<AtomId>(i / spec.beads + 1));
    CHECK(a.vx[i] == 0);
    CHECK(a.vy[i] == 0);
    CHECK(a.vz[i] == 0);
    for (double x : {a.x[i], a.y[i], a.z[i]}) {
      CHECK(x >= 0);
      CHECK(x < s.box.hi[0]);
    }
  }
  // Consecutive beads bonded, type 1, ids 1.., nothing across chains.
  const auto& bonds = s.topology.bonds;
  REQUIRE(bonds.size() == static_cast<std::size_t>(spec.chains * (spec.beads - 1)));
  CHECK(s.topology.nbond_types == 1);
  CHECK(s.topology.angles.empty());
  std::size_t k = 0;
  for (long long c = 0; c < spec.chains; ++c)
    for (long long b = 0; b + 1 < spec.beads; ++b, ++k) {
      CHECK(bonds[k].id == static_cast<AtomId>(k + 1));
      CHECK(bonds[k].type == 1);
      CHECK(bonds[k].atom[0] == c * spec.beads + b + 1);
      CHECK(bonds[k].atom[1] == c * spec.beads + b + 2);
    }
  // Some chain crosses the box: the image flags are in use.
  bool crossed = false;
  for (std::size_t i = 0; i < a.nlocal; ++i) crossed = crossed || a.ix[i] != 0 || a.iy[i] != 0 || a.iz[i] != 0;
  CHECK(crossed);
}

TEST_CASE("polymer melt random walks keep the bond length and their distance", "[polymer_melt]") {
  PolymerMeltSpec spec = small_melt();
  spec.pushoff_iterations = 0;  // the walks as placed
  PolymerMeltReport report;
  const BuiltSystem s = build_polymer_melt(spec, 1, {0.0, 1.0}, &report);
  CHECK(report.walk_lowered == 0);
  for (const auto& b : s.topology.bonds)
    CHECK(bond_length(s, b.atom[0] - 1, b.atom[1] - 1) == Approx(spec.bond_length).margin(1e-12));
  CHECK(min_nonbonded(s, spec.beads) >= spec.walk_min_distance - 1e-12);
  CHECK(report.walk_min_distance >= spec.walk_min_distance - 1e-12);
  CHECK(report.walk_min_distance < spec.pushoff_min_distance);  // so the push-off has work to do
}

TEST_CASE("the polymer melt push-off separates the beads and keeps the bonds", "[polymer_melt]") {
  for (double density : {0.85, 0.5}) {
    PolymerMeltSpec spec = small_melt(3);
    spec.density = density;
    PolymerMeltReport report;
    const BuiltSystem s = build_polymer_melt(spec, 1, {0.0, 1.0}, &report);
    INFO("density " << density);
    CHECK(report.pushoff_iterations > 0);
    double lo = INFINITY, hi = 0;
    for (const auto& b : s.topology.bonds) {
      const double r = bond_length(s, b.atom[0] - 1, b.atom[1] - 1);
      lo = std::min(lo, r);
      hi = std::max(hi, r);
    }
    CHECK(lo >= spec.bond_length - spec.pushoff_bond_tolerance);
    CHECK(hi <= spec.bond_length + spec.pushoff_bond_tolerance);
    CHECK(hi < 1.2);  // far from FENE's R0 = 1.5
    CHECK(lo == Approx(report.min_bond));
    CHECK(hi == Approx(report.max_bond));
    const double closest = min_nonbonded(s, spec.beads);
    CHECK(closest >= spec.pushoff_min_distance);
    CHECK(closest == Approx(report.min_distance).epsilon(1e-9));
  }
}

TEST_CASE("a dense melt of long chains is still placed and relaxed", "[polymer_melt]") {
  // The last chains of a dense melt get stuck at 0.8 and come closer; the
  // push-off separates them all the same.
  PolymerMeltSpec spec;
  spec.chains = 8;
  spec.beads = 400;
  spec.density = 1.0;
  spec.seed = 5;
  PolymerMeltReport report;
  const BuiltSystem s = build_polymer_melt(spec, 1, {0.0, 1.0}, &report);
  CHECK(report.walk_lowered > 0);
  CHECK(report.walk_min_distance < spec.walk_min_distance);
  CHECK(min_nonbonded(s, spec.beads) >= spec.pushoff_min_distance);
  for (const auto& b : s.topology.bonds)
    CHECK(std::abs(bond_length(s, b.atom[0] - 1, b.atom[1] - 1) - spec.bond_length) <= spec.pushoff_bond_tolerance);
}

TEST_CASE("a polymer melt is the same bit for bit on every build and thread count", "[polymer_melt]") {
  const PolymerMeltSpec spec = small_melt(42);
  const int threads = omp_get_max_threads();
  const BuiltSystem p = build_polymer_melt(spec, 1, {0.0, 1.0});
  const BuiltSystem q = build_polymer_melt(spec, 1, {0.0, 1.0});
  omp_set_num_threads(threads > 1 ? 1 : 3);
  const BuiltSystem r = build_polymer_melt(spec, 1, {0.0, 1.0});
  omp_set_num_threads(threads);
  CHECK(same_atoms(p, q));
  CHECK(same_atoms(p, r));
  CHECK(p.topology.molecule == q.topology.molecule);

  const BuiltSystem other = build_polymer_melt(small_melt(43), 1, {0.0, 1.0});
  CHECK_FALSE(same_atoms(p, other));
  std::size_t same = 0;
  for (std::size_t i = 0; i < p.atoms.nlocal; ++i) same += p.atoms.x[i] == other.atoms.x[i];
  CHECK(same == 0);
}

TEST_CASE("polymer melts that cannot be built are errors naming the chain and bead", "[polymer_melt]") {
  auto error = [](const PolymerMeltSpec& s) {
    try {
      build_polymer_melt(s, 1, {0.0, 1.0});
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    FAIL("no error");
    return std::string();
  };
  PolymerMeltSpec s = small_melt();
  s.walk_min_distance = s.walk_lowest_distance = 1.1;  // no room at density 0.85
  s.walk_backtracks = 5;
  CHECK_THAT(error(s), Catch::Matches("polymer_melt: cannot place bead \\d+ of chain \\d+ \\(atom \\d+\\) at least "
                                      "1.1 from every other bead .* lower the density"));
  s = small_melt();
  s.pushoff_iterations = 2;
  CHECK_THAT(error(s), Catch::Contains("polymer_melt: the push-off did not converge in 2 iterations: the closest "
                                       "non-bonded beads, bead"));
  s = small_melt();
  s.chains = 1;
  s.beads = 5;
  CHECK_THAT(error(s), Catch::Contains("1 chains of 5 beads at density 0.85 make a box 1.805 across"));
  s = small_melt();
  s.chains = 0;
  CHECK_THAT(error(s), Catch::Contains("chains must be at least 1"));
}

TEST_CASE("system.polymer_melt in the deck", "[polymer_melt][deck]") {
  const Deck d = parse_deck(kMeltDeck, "melt.yaml");
  REQUIRE(d.system.polymer_melt);
  CHECK_FALSE(d.system.lattice);
  const PolymerMeltSpec& m = *d.system.polymer_melt;
  CHECK(m.chains == 20);
  CHECK(m.beads == 50);
  CHECK(m.density == 0.85);
  CHECK(m.bond_length == 0.97);
  CHECK(m.seed == 11);
  CHECK(d.system.ntypes == 1);
  REQUIRE(d.system.masses.size() == 2);
  CHECK(d.system.masses[1] == 1.0);
  const Deck e =
      parse_deck(test::replace(kMeltDeck, "seed: 11}", "seed: 11, bond_length: 1.0}\n  masses: [2.0]"), "melt.yaml");
  CHECK(e.system.polymer_melt->bond_length == 1.0);
  CHECK(e.system.masses == std::vector<double>{0.0, 2.0});

  // The melt's bonds need their style in the deck; with it, the melt runs
  // under FENE + WCA with an ordinary time step, no bond near R0.
  CHECK_THAT(deck_error(kMeltDeck), Catch::Contains("the system has 980 bonds; give the deck a `bonds:` section"));
  const std::string fene = test::replace(
      kMeltDeck, "neighbor:",
      "bonds: {style: fene, coeffs: [{type: 1, K: 30.0, R0: 1.5, epsilon: 1.0, sigma: 1.0}]}\n"
      "special_bonds: fene\nneighbor:");
  Simulation sim(parse_deck(fene, "melt.yaml"));
  sim.run(200, nullptr);
  CHECK(sim.step() == 200);
  CHECK(std::isfinite(sim.thermo().etotal));
}

TEST_CASE("bad system.polymer_melt values are deck errors at their key", "[polymer_melt][deck]") {
  const std::string block = "{chains: 20, beads: 50, density: 0.85, seed: 11}";
  struct Bad {
    std::string block, expect;
  };
  const std::vector<Bad> bad = {
      {"{chains: 0, beads: 50, density: 0.85, seed: 11}",
       "melt.yaml:3:26: system.polymer_melt.chains: must be a positive integer, got 0"},
      {"{chains: 20, beads: -3, density: 0.85, seed: 11}",
       "melt.yaml:3:37: system.polymer_melt.beads: must be a positive integer, got -3"},
      {"{chains: 20, beads: 2.5, density: 0.85, seed: 11}", "system.polymer_melt.beads: expected an integer"},
      {"{chains: 20, beads: 50, density: 0, seed: 11}",
       "melt.yaml:3:50: system.polymer_melt.density: must be above 0 and at most 1.0"},
      {"{chains: 20, beads: 50, density: 1.2, seed: 11}",
       "system.polymer_melt.density: must be above 0 and at most 1.0"},
      {"{chains: 20, beads: 50, density: .nan, seed: 11}", "system.polymer_melt.density: expected a finite number"},
      {"{chains: 20, beads: 50, density: 0.85, seed: 11, bond_length: 0.5}",
       "system.polymer_melt.bond_length: must be between 0.8 and 1.2 sigma"},
      {"{chains: 20, beads: 50, density: 0.85, seed: 11, bond_length: 1.5}",
       "system.polymer_melt.bond_length: must be between 0.8 and 1.2 sigma"},
      {"{chains: 20, beads: 50, density: 0.85}", "missing required key 'system.polymer_melt.seed'"},
      {"{chains: 20, beads: 50, density: 0.85, seed: 11, bead: 2}", "system.polymer_melt.bead: unknown key"},
      {"{chains: 1, beads: 5, density: 0.85, seed: 11}",
       "system.polymer_melt: 1 chains of 5 beads at density 0.85 make a box 1.805 sigma across, which must be more "
       "than 2.245"},
      {"{chains: 1000000000, beads: 1000000000, density: 0.85, seed: 11}",
       "system.polymer_melt: 1000000000 chains of 1000000000 beads is more than 2^40 atoms"},
  };
  for (const auto& b : bad) {
    INFO(b.block);
    CHECK_THAT(deck_error(test::replace(kMeltDeck, block, b.block)), Catch::Contains(b.expect));
  }
  CHECK_THAT(deck_error(test::replace(kMeltDeck, "units: lj", "units: real")),
             Catch::Contains("system.polymer_melt: polymer_melt builds a Kremer-Grest melt in reduced units"));
  CHECK_THAT(deck_error(test::replace(kMeltDeck, "system:\n", "system:\n  read_data: melt.data\n")),
             Catch::Contains("system: give exactly one of 'lattice', 'read_data' or 'polymer_melt'"));
}

// Not run by default (hidden tag): the timing the issue asks for, 320
// chains of 100 beads at density 0.85.
TEST_CASE("polymer melt build time for 320 chains of 100 beads", "[.][polymer_melt_timing]") {
  PolymerMeltSpec spec;
  spec.chains = 320;
  spec.beads = 100;
  spec.density = 0.85;
  spec.seed = 1;
  PolymerMeltReport report;
  spec.pushoff_iterations = 0;
  auto t0 = std::chrono::steady_clock::now();
  build_polymer_melt(spec, 1, {0.0, 1.0}, &report);
  const double walk = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  spec.pushoff_iterations = PolymerMeltSpec{}.pushoff_iterations;
  t0 = std::chrono::steady_clock::now();
  build_polymer_melt(spec, 1, {0.0, 1.0}, &report);
  const double all = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  WARN("walks " << walk << " s, walks + push-off " << all << " s (" << report.pushoff_iterations << " iterations, "
                << omp_get_max_threads() << " threads); walk backtracks " << report.walk_backtracks << ", lowered "
                << report.walk_lowered << ", closest pair " << report.walk_min_distance << " -> " << report.min_distance
                << ", bonds " << report.min_bond << " .. " << report.max_bond);
}
