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
