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
