#include <omp.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <memory>
#include <numeric>

#include "core/error.hpp"
#include "integrate/cpu_atom_ops.hpp"
#include "run/simulation.hpp"
#include "system/build_system.hpp"
#include "test_support.hpp"

using namespace tessera;

TEST_CASE("created velocities: exact T, zero momentum, independent of atom order", "[velocity]") {
  LatticeSpec l{"fcc", 1.6, {5, 5, 5}};
  BuiltSystem s = build_lattice(l, 2, {0.0, 1.0, 3.0});
  for (std::size_t i = 0; i < s.atoms.nlocal; i += 3) s.atoms.type[i] = 2;
  create_velocities(s.atoms, 1.7, 99, units_for("lj"));
  const auto& a = s.atoms;
  double p[3] = {0, 0, 0}, mv2 = 0;
  for (std::size_t i = 0; i < a.nlocal; ++i) {
    const double m = a.mass_of_type[a.type[i]];
    p[0] += m * a.vx[i];
    p[1] += m * a.vy[i];
    p[2] += m * a.vz[i];
    mv2 += m * (a.vx[i] * a.vx[i] + a.vy[i] * a.vy[i] + a.vz[i] * a.vz[i]);
  }
  for (double c : p) CHECK(std::abs(c) < 1e-10);
  CHECK(mv2 / (3.0 * a.nlocal - 3) == Approx(1.7).epsilon(1e-13));

  // Same atoms stored in reverse: every atom gets the same velocity.
  BuiltSystem r = build_lattice(l, 2, {0.0, 1.0, 3.0});
  for (std::size_t i = 0; i < r.atoms.nlocal; i += 3) r.atoms.type[i] = 2;
  std::vector<std::size_t> order(r.atoms.nlocal);
  std::iota(order.rbegin(), order.rend(), std::size_t(0));
  r.atoms.permute_local(order);
  create_velocities(r.atoms, 1.7, 99, units_for("lj"));
  const std::size_t n = a.nlocal;
  for (std::size_t i = 0; i < n; ++i) {
    REQUIRE(r.atoms.id[n - 1 - i] == a.id[i]);
    CHECK(r.atoms.vx[n - 1 - i] == a.vx[i]);
    CHECK(r.atoms.vz[n - 1 - i] == a.vz[i]);
  }
  // Heavier atoms are slower: equipartition per type.
  double k1 = 0, k2 = 0;
  int n1 = 0, n2 = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double k = a.mass_of_type[a.type[i]] * (a.vx[i] * a.vx[i] + a.vy[i] * a.vy[i] + a.vz[i] * a.vz[i]);
    if (a.type[i] == 1) {
      k1 += k;
      ++n1;
    } else {
      k2 += k;
      ++n2;
    }
  }
  CHECK(k1 / n1 == Approx(k2 / n2).epsilon(0.15));
}

TEST_CASE("results are bitwise independent of the thread count", "[determinism]") {
  const std::string yaml =
      test::lj_lattice_yaml(6, 1.44, 0, "{style: langevin, dt: 0.005, temperature: 1.2, damping: 0.5, seed: 3}");
  auto run = [&](int threads) {
    Deck d = test::deck_from(yaml);
    d.threads = threads;
    auto sim = std::make_unique<Simulation>(d);
    sim->setup();
    sim->run(150, nullptr);
    return sim;
  };
  const int saved = omp_get_max_threads();
  const std::unique_ptr<const Simulation> made_a = run(1), made_b = run(3);
  const Simulation &a = *made_a, &b = *made_b;
  omp_set_num_threads(saved);
  REQUIRE(a.atoms().nlocal == b.atoms().nlocal);
  CHECK(a.thermo().etotal == b.thermo().etotal);
  CHECK(a.thermo().press == b.thermo().press);
  CHECK(a.atoms().x == b.atoms().x);
  CHECK(a.atoms().vz == b.atoms().vz);
}

TEST_CASE("NVE conserves energy on a short run", "[integrators]") {
  Simulation sim(test::deck_from(test::lj_lattice_yaml(6, 1.44, 0, "{style: nve, dt: 0.005}", true)));
  sim.setup();
  const double e0 = sim.thermo().etotal;
  double worst = 0;
  for (int k = 0; k < 20; ++k) {
    sim.run(50, nullptr);
    worst = std::max(worst, std::abs(sim.thermo().etotal - e0));
  }
  CHECK(worst < 2e-3);
  CHECK(sim.thermo().temp < 1.0);  // the lattice melted: kinetic energy went into potential
}

namespace {
// Mean temperature over `samples` thermo samples taken every `every` steps
// after `equil` steps.
double mean_temperature(Simulation& sim, int equil, int samples, int every, double* max_econs_drift = nullptr) {
  sim.setup();
  sim.run(equil, nullptr);
  const double e0 = sim.thermo().econserve;
  double sum = 0, drift = 0;
  for (int k = 0; k < samples; ++k) {
    sim.run(every, nullptr);
    sum += sim.thermo().temp;
    drift = std::max(drift, std::abs(sim.thermo().econserve - e0));
  }
  if (max_econs_drift) *max_econs_drift = drift;
  return sum / samples;
}
}  // namespace

TEST_CASE("Langevin holds the set temperature", "[integrators]") {
  Simulation sim(test::deck_from(
      test::lj_lattice_yaml(5, 0.5, 0, "{style: langevin, dt: 0.005, temperature: 1.5, damping: 0.5, seed: 77}")));
  const double t = mean_temperature(sim, 2000, 1500, 10);
  CHECK(t == Approx(1.5).epsilon(0.01));
}

TEST_CASE("Nose-Hoover chain holds the set temperature and conserves its energy", "[integrators]") {
  Simulation sim(test::deck_from(test::lj_lattice_yaml(
      5, 0.5, 0, "{style: nose-hoover, dt: 0.005, temperature: 1.5, damping: 0.5, chain: 3}", true)));
  double drift = 0;
  const double t = mean_temperature(sim, 2000, 1500, 10, &drift);
  CHECK(t == Approx(1.5).epsilon(0.01));
  CHECK(drift < 2e-3);
  CHECK(sim.integrator().thermostat_energy() != 0.0);
}

TEST_CASE("a NaN stops the run with step, atom id and position", "[guards]") {
  Simulation sim(test::deck_from(test::lj_lattice_yaml(5, 1.0, 0, "{style: nve, dt: 0.005}")));
  sim.setup();
  sim.run(5, nullptr);
  auto& a = sim.atoms();
  a.vx[7] = std::nan("");
  const AtomId id = a.id[7];
  try {
    sim.run(5, nullptr);
    FAIL("no error");
  } catch (const SimulationError& e) {
    const std::string m = e.what();
    CHECK_THAT(m, Catch::Contains("step 6: atom " + std::to_string(id) + " at ("));
    CHECK_THAT(m, Catch::Contains("non-finite"));
  }
}

TEST_CASE("an atom moving farther than the skin in one step stops the run", "[guards]") {
  Simulation sim(test::deck_from(test::lj_lattice_yaml(5, 1.0, 0, "{style: nve, dt: 0.005}")));
  sim.setup();
  auto& a = sim.atoms();
  a.vy[11] = 100.0;  // 0.5 per step, skin 0.3
  const AtomId id = a.id[11];
  try {
    sim.run(3, nullptr);
    FAIL("no error");
  } catch (const SimulationError& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("step 1: atom " + std::to_string(id)));
    CHECK_THAT(std::string(e.what()), Catch::Contains("farther than the neighbor skin"));
  }
}

// The CPU kicks through a table of dtf / m per type (vectorised); with more
// types than the table holds it divides per atom, as the device always does.
// Both must give the division's bits, on any thread count.
TEST_CASE("the CPU's half kick gives the per-atom division's bits, with few types or many", "[integrators]") {
  for (const int ntypes : {3, 70}) {
    AtomStore a;
    a.ntypes = ntypes;
    a.mass_of_type.assign(ntypes + 1, 0.0);
    for (int t = 1; t <= ntypes; ++t) a.mass_of_type[t] = 12.011 * t / 5 + 0.3;  // dtf * (1 / m) != dtf / m for some
    const std::size_t n = 1001;                                                   // not a multiple of a vector
    a.resize_local(n);
    for (std::size_t i = 0; i < n; ++i) {
      a.type[i] = 1 + static_cast<int>((i * 7) % ntypes);
      a.fx[i] = std::sin(0.1 * i), a.fy[i] = std::cos(0.3 * i), a.fz[i] = 1.0 / (1.0 + i);
      a.vx[i] = 0.5 - 0.001 * i, a.vy[i] = 0.25 * std::sin(0.7 * i), a.vz[i] = -1e-3 * i;
    }
    const double dtf = 0.5 * 0.005 / 3.0;
    std::vector<double> want[3] = {a.vx, a.vy, a.vz};
    for (std::size_t i = 0; i < n; ++i) {
      const double dtfm = dtf / a.mass_of_type[a.type[i]];
      want[0][i] += dtfm * a.fx[i], want[1][i] += dtfm * a.fy[i], want[2][i] += dtfm * a.fz[i];
    }
    for (const int threads : {1, 3}) {
      AtomStore b = a;
      const int before = omp_get_max_threads();
      omp_set_num_threads(threads);
      CpuAtomOps(b).half_kick(dtf);
      omp_set_num_threads(before);
      CAPTURE(ntypes, threads);
      CHECK(b.vx == want[0]);
      CHECK(b.vy == want[1]);
      CHECK(b.vz == want[2]);
    }
  }
}
