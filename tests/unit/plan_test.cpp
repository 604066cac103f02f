#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "domain/rank_grid.hpp"
#include "plan/plan.hpp"
#include "run/simulation.hpp"
#include "test_support.hpp"

using namespace tessera;

TEST_CASE("the rank grid minimises the halo and respects the reach", "[plan]") {
  Box cube;
  for (int d = 0; d < 3; ++d) cube.hi[d] = 30;
  CHECK(choose_rank_grid(8, cube, 2.8).n == std::array<int, 3>{2, 2, 2});
  CHECK(choose_rank_grid(1, cube, 2.8).n == std::array<int, 3>{1, 1, 1});
  CHECK(choose_rank_grid(7, cube, 2.8).size() == 7);
  Box slab = cube;
  slab.hi[0] = 90;  // three times longer along x: cut across x
  CHECK(choose_rank_grid(3, slab, 2.8).n == std::array<int, 3>{3, 1, 1});
  Box flat = cube;
  flat.hi[2] = 3;  // too thin to cut along z
  CHECK(choose_rank_grid(4, flat, 2.8).n[2] == 1);
  CHECK_THROWS_WITH(choose_rank_grid(2000, cube, 2.8), Catch::Contains("cannot split the box"));
}

TEST_CASE("plan's atom and ghost counts agree with the engine", "[plan]") {
  Simulation sim(test::deck_from(test::lj_lattice_yaml(6, 1.0, 0, "{style: nve}")));
  sim.setup();
  // One rank: the ghosts are exactly the periodic images the engine builds.
  const auto one = count_per_rank(sim.atoms(), sim.box(), RankGrid{}, sim.reach());
  REQUIRE(one.size() == 1);
  CHECK(one[0].local == sim.natoms());
  CHECK(one[0].ghost == static_cast<long long>(sim.atoms().nghost));
  CHECK(one[0].received == 0);  // every ghost a periodic copy made in place
  // Eight ranks: every atom owned once; the halo of each corner cell.
  const RankGrid g = choose_rank_grid(8, sim.box(), sim.reach());
  const auto eight = count_per_rank(sim.atoms(), sim.box(), g, sim.reach());
  long long owned = 0;
  for (const auto& c : eight) {
    owned += c.local;
    CHECK(c.local == sim.natoms() / 8);  // a lattice split on plane boundaries
    CHECK(c.ghost > c.local / 2);
    CHECK(c.received == c.ghost);  // two ranks along every axis: every ghost comes by message
  }
  CHECK(owned == sim.natoms());
}

// The part of a plan after `key`, to the end of its line.
static std::string plan_line(const std::string& plan, const std::string& key) {
  const auto at = plan.find(key);
  REQUIRE(at != std::string::npos);
  return plan.substr(at, plan.find('\n', at) - at);
}

TEST_CASE("plan allows for the box to shrink by a margin under a barostat", "[plan][barostat]") {
  const std::string npt = "{style: npt, temperature: 1.0, damping: 0.5, pressure: 1.0, pressure_damping: 2.5}";
  const Deck d = test::deck_from(test::lj_lattice_yaml(8, 1.0, 100, npt));
  const Figures none{{}, "none.csv"};
  // npt's default margin, 10% of the volume: the atoms, ghosts and memory of
  // the largest rank are those of the same lattice 10% denser, planned with
  // no margin.
  const std::string with = make_plan(d, 8, 1, none);
  CHECK_THAT(with, Catch::Contains("Box margin 10% of the volume (--box-margin; a barostat moves the box)"));
  const Deck dense = test::deck_from(test::replace(test::lj_lattice_yaml(8, 1.0, 100, "{style: nve}"),
                                                   "density: 0.8442", fmt::format("density: {:.17g}", 0.8442 / 0.9)));
  const std::string expect = make_plan(dense, 8, 1, none);
  CHECK_THAT(expect, !Catch::Contains("Box margin"));
  CHECK(plan_line(with, "Largest rank:") == plan_line(expect, "Largest rank:"));
  // No margin: the deck's own box, which holds fewer ghosts per rank.
  const std::string fixed = make_plan(d, 8, 1, none, {}, 0);
  CHECK_THAT(fixed, !Catch::Contains("Box margin"));
  CHECK(plan_line(fixed, "Largest rank:") != plan_line(with, "Largest rank:"));
  // 64 ranks cut the 13.4-sigma box into 3.36-sigma sub-boxes: thick enough
  // as it is, thinner than cutoff + skin (2.8) once it lost half its volume.
  CHECK_THAT(make_plan(d, 64, 1, none), !Catch::Contains("warning: there"));
  CHECK_THAT(make_plan(d, 64, 1, none, {}, 0.5),
             Catch::Contains("warning: there, the 4 ranks along x hold sub-boxes 2.6"));
  CHECK_THROWS_WITH(make_plan(d, 8, 1, none, {}, 1.0), Catch::Contains("--box-margin must be at least 0 and below 1"));
}

TEST_CASE("plan counts a many-body potential's forward between its passes", "[plan][eam]") {
  // Cu (Cu_u3.eam from lammps-data), 864 atoms, on a 2 x 2 x 2 grid: every
  // ghost comes by message, its position and then, between EAM's passes,
  // its F'. The same lattice under a pair potential forwards nothing.
  const std::string eam = R"(units: metal
system:
  lattice: {style: fcc, constant: 3.615, cells: [6, 6, 6]}
potential: {style: eam, file: /usr/share/lammps/potentials/Cu_u3.eam}
integrator: {style: nve}
run: {steps: 100}
)";
  const std::string morse = test::replace(
      test::replace(eam, "potential: {style: eam, file: /usr/share/lammps/potentials/Cu_u3.eam}",
                    "potential: {style: morse, cutoff: 4.95, coeffs: [{types: [1, 1], d0: 0.34, alpha: 1.36, r0: "
                    "2.87}]}"),
      "cells: [6, 6, 6]}", "cells: [6, 6, 6]}\n  masses: [63.55]");
  const Figures none{{}, "none.csv"};
  const Link link{100, 10};
  const std::string with = make_plan(test::deck_from(eam), 8, 1, none, link);
  const std::string without = make_plan(test::deck_from(morse), 8, 1, none, link);
  // The received ghosts, as the positions' line counts them.
  const std::string halo = plan_line(with, "Halo per step: up to ");
  const long long received = std::stoll(halo.substr(std::string("Halo per step: up to ").size()));
  REQUIRE(received > 0);
  REQUIRE(32.0 * received < 1e6);  // printed in kB
  CHECK(plan_line(with, "Forwarded between force passes:") ==
        fmt::format("Forwarded between force passes: embedding_derivative (eam after pass 0): 1 more value per ghost, "
                    "{:.0f} kB in 6 more messages;",
                    8e-3 * received));
  CHECK(plan_line(with, "the halo per step in all:") ==
        fmt::format("the halo per step in all: {:.0f} kB in 12 messages.", 32e-3 * received));
  // The link pays for both exchanges: twice the transfers, 32 bytes a ghost.
  CHECK(plan_line(with, "  12 transfers x 10 us + ") ==
        fmt::format("  12 transfers x 10 us + {:.0f} kB / 100 GB/s = {:.3g} us per step for the largest halo",
                    32e-3 * received, 12 * 10 + 32.0 * received / 100e9 * 1e6));
  CHECK_THAT(without, !Catch::Contains("Forwarded between force passes"));
  CHECK_THAT(without, Catch::Contains("  6 transfers x 10 us + "));
}
