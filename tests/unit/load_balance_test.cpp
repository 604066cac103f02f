#include <catch2/catch.hpp>

#include "domain/load_balance.hpp"
#include "domain/rank_grid.hpp"

using namespace tessera;

namespace {
RankGrid stack(int n) {
  RankGrid g;
  g.n = {1, 1, n};
  return g;
}
}  // namespace

TEST_CASE("rank cells and ranks map one to one", "[balance]") {
  RankGrid g;
  g.n = {3, 2, 4};
  for (int r = 0; r < g.size(); ++r) CHECK(g.rank_of(g.cell_of(r)) == r);
  CHECK(g.cell_of(7) == std::array<int, 3>{1, 0, 1});
}

TEST_CASE("even costs leave the planes where they are", "[balance]") {
  const double minf[3] = {0.1, 0.1, 0.1};
  const RankGrid g = balance_cuts(stack(4), {5, 5, 5, 5}, minf);
  REQUIRE(g.cut[2].size() == 5);
  for (int c = 0; c <= 4; ++c) CHECK(g.cut[2][c] == Approx(c / 4.0).margin(1e-15));
  CHECK(g.cut[0].empty());
  CHECK(imbalance({5, 5, 5, 5}) == 1.0);
}

TEST_CASE("planes move toward the work, a bounded step at a time, and converge", "[balance]") {
  // Work only in the middle half of the box (a slab in vacuum).
  const double minf[3] = {0.05, 0.05, 0.05};
  RankGrid g = stack(4);
  CHECK(imbalance({0, 10, 10, 0}) == 2.0);
  auto cost_of = [](const RankGrid& grid) {
    // Cost density 1 on [0.25, 0.75], 0 elsewhere, integrated over each slab.
    std::vector<double> cost;
    for (int c = 0; c < 4; ++c) {
      const double lo = grid.cut[2].empty() ? c / 4.0 : grid.cut[2][c];
      const double hi = grid.cut[2].empty() ? (c + 1) / 4.0 : grid.cut[2][c + 1];
      cost.push_back(std::max(0.0, std::min(hi, 0.75) - std::max(lo, 0.25)));
    }
    return cost;
  };
  const RankGrid first = balance_cuts(g, cost_of(g), minf);
  // The outer planes move in by a fifth of a slab (the cap), not all the way.
  CHECK(first.cut[2][1] == Approx(0.25 + 0.05));
  CHECK(first.cut[2][3] == Approx(0.75 - 0.05));
  CHECK(first.cut[2][2] == Approx(0.5));
  g = first;
  for (int k = 0; k < 30; ++k) g = balance_cuts(g, cost_of(g), minf);
  CHECK(imbalance(cost_of(g)) < 1.02);
  for (int c = 0; c < 4; ++c) CHECK(g.cut[2][c + 1] - g.cut[2][c] >= 0.05 * (1 - 1e-12));
}

TEST_CASE("no slab gets thinner than the halo needs", "[balance]") {
  // All the work in the top slab: the others would shrink to nothing.
  const double minf[3] = {0.2, 0.2, 0.2};
  RankGrid g = stack(4);
  for (int k = 0; k < 50; ++k) g = balance_cuts(g, {0, 0, 0, 1}, minf);
  for (int c = 0; c < 4; ++c) CHECK(g.cut[2][c + 1] - g.cut[2][c] >= 0.2 * (1 - 1e-12));
  CHECK(g.cut[2][3] <= 0.8 + 1e-12);
  CHECK(g.cut[2][3] > 0.75);  // it did move toward the work
}

TEST_CASE("three slabs with the work in the middle one: both planes close in", "[balance]") {
  // The case that once never moved: each plane's capped step was exactly
  // half of the middle slab it left, which the one-hop test refused.
  const double minf[3] = {0.05, 0.05, 0.05};
  RankGrid g = stack(3);
  const RankGrid first = balance_cuts(g, {90, 1772, 90}, minf);
  REQUIRE(first.cut[2].size() == 4);
  CHECK(first.cut[2][1] > 1.0 / 3 + 1e-6);
  CHECK(first.cut[2][2] < 2.0 / 3 - 1e-6);
  // Work uniform on [1/3, 2/3]: it converges to even thirds of that.
  auto cost_of = [](const RankGrid& grid) {
    std::vector<double> cost;
    for (int c = 0; c < 3; ++c) {
      const double lo = grid.cut[2].empty() ? c / 3.0 : grid.cut[2][c];
      const double hi = grid.cut[2].empty() ? (c + 1) / 3.0 : grid.cut[2][c + 1];
      cost.push_back(std::max(0.0, std::min(hi, 2.0 / 3) - std::max(lo, 1.0 / 3)));
    }
    return cost;
  };
  for (int k = 0; k < 40; ++k) g = balance_cuts(g, cost_of(g), minf);
  CHECK(imbalance(cost_of(g)) < 1.02);
}
