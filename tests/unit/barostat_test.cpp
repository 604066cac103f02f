// npt and nph against LAMMPS's fix npt / fix nph (29 Sep 2021) on
// LAMMPS-written data files: tests/reference/make_references.sh writes the
// references (lj_npt_iso, mix_npt_aniso, lj_nph_iso; thermo every step,
// extensive, 17 digits).
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "run/simulation.hpp"
#include "test_support.hpp"

using namespace tessera;
using test::reference;

namespace {

const char* kLJ = R"(
  style: lj/cut
  cutoff: 2.5
  coeffs:
    - {types: [1, 1], epsilon: 1.0, sigma: 1.0}
)";
// Per-pair cutoffs, none from mixing, as mix_npt_aniso.lmp.
const char* kMixPairs = R"(
  style: lj/cut
  cutoff: 2.5
  coeffs:
    - {types: [1, 1], epsilon: 1.0, sigma: 1.0, cutoff: 2.5}
    - {types: [2, 2], epsilon: 0.5, sigma: 1.2, cutoff: 3.0}
    - {types: [1, 2], epsilon: 0.75, sigma: 1.1, cutoff: 2.2}
)";

std::string deck(const std::string& data, const std::string& potential, const std::string& integrator, long steps,
                 const std::string& extra = "") {
  return "system: {read_data: " + reference(data) + "}\npotential:" + potential +
         "neighbor: {skin: 0.3, every: 1, delay: 0, check: true}\n"
         "integrator: " +
         integrator + "\nrun: {steps: " + std::to_string(steps) + "}\n" + extra;
}

struct Row {
  double temp, pe, press, vol, econserve;
  double len[3];
};

// Each step's thermo, extensive as the references are.
std::vector<Row> run_rows(Simulation& sim, long steps) {
  sim.setup();
  std::vector<Row> rows;
  const double n = static_cast<double>(sim.natoms());
  auto row = [&] {
    const ThermoValues v = sim.thermo();
    const Box& b = sim.box();
    // Thermo is per atom in lj units; the references are totals.
    rows.push_back(Row{v.temp, v.pe * n, v.press, b.volume(), v.econserve * n, {b.length(0), b.length(1), b.length(2)}});
  };
  row();
  for (long s = 0; s < steps; ++s) {
    sim.run(1, nullptr);
    row();
  }
  return rows;
}

double rel(double a, double b) { return std::abs(a - b) / std::max(std::abs(b), 1e-300); }

// The worst relative difference of each column over every step.
void compare(const std::vector<Row>& ours, const std::string& csv, bool axes) {
  const auto ref = test::read_csv(reference(csv));
  REQUIRE(ref.at("step").size() == ours.size());
  double worst[5] = {0, 0, 0, 0, 0}, worst_len = 0;
  for (std::size_t s = 0; s < ours.size(); ++s) {
    worst[0] = std::max(worst[0], rel(ours[s].temp, ref.at("temp")[s]));
    worst[1] = std::max(worst[1], rel(ours[s].pe, ref.at("pe")[s]));
    worst[2] = std::max(worst[2], rel(ours[s].press, ref.at("press")[s]));
    worst[3] = std::max(worst[3], rel(ours[s].vol, ref.at("vol")[s]));
    worst[4] = std::max(worst[4], rel(ours[s].econserve, ref.at("econserve")[s]));
    if (axes)
      for (int d = 0; d < 3; ++d) worst_len = std::max(worst_len, rel(ours[s].len[d], ref.at(std::string("l") + "xyz"[d])[s]));
  }
  INFO(csv << ": worst relative differences temp " << worst[0] << " pe " << worst[1] << " press " << worst[2]
           << " vol " << worst[3] << " econserve " << worst[4] << " lengths " << worst_len);
  for (double w : worst) CHECK(w <= 1e-8);
  CHECK(worst_len <= 1e-8);
  // The box did move: the test would pass for a fixed box otherwise.
  CHECK(rel(ours.back().vol, ours.front().vol) > 1e-3);
}

}  // namespace

TEST_CASE("npt iso follows LAMMPS's fix npt for 200 steps", "[lammps][barostat]") {
  Simulation sim(test::deck_from(deck("lj_melt.data", kLJ,
                                      "{style: npt, dt: 0.005, temperature: [1.5, 1.3], damping: 0.5, "
                                      "pressure: [1.0, 3.0], pressure_damping: 1.0}",
                                      200)));
  compare(run_rows(sim, 200), "lj_npt_iso.csv", false);
}

TEST_CASE("npt aniso follows LAMMPS's fix npt on a non-cubic mixture", "[lammps][barostat]") {
  Simulation sim(test::deck_from(deck("mix_aniso_melt.data", kMixPairs,
                                      "{style: npt, dt: 0.005, temperature: 2.0, damping: 0.4, pressure: 2.0, "
                                      "pressure_damping: 0.8, coupling: aniso}",
                                      200)));
  compare(run_rows(sim, 200), "mix_npt_aniso.csv", true);
}

TEST_CASE("nph follows LAMMPS's fix nph for 200 steps", "[lammps][barostat]") {
  Simulation sim(test::deck_from(
      deck("lj_melt.data", kLJ, "{style: nph, dt: 0.005, pressure: 0.5, pressure_damping: 1.0}", 200)));
  compare(run_rows(sim, 200), "lj_nph_iso.csv", false);
}

TEST_CASE("a fast, large compression keeps every pair in the list", "[barostat]") {
  // A barostat ten steps stiff drives the liquid to ten times its pressure:
  // the box shrinks fast. A list checked with the box's motion must give
  // the forces of a list built afresh every step. The volume drops by 15%
  // in the first step, past max_volume_change's default, which is raised.
  const std::string integrator =
      "{style: npt, dt: 0.005, temperature: 1.5, damping: 0.1, pressure: 20.0, pressure_damping: 0.05, "
      "max_volume_change: 0.5}";
  std::string checked = deck("lj_melt.data", kLJ, integrator, 150);
  std::string fresh = test::replace(checked, "check: true", "check: false");
  Simulation a(test::deck_from(checked)), b(test::deck_from(fresh));
  const auto ra = run_rows(a, 150), rb = run_rows(b, 150);
  double worst = 0;
  for (std::size_t s = 0; s < ra.size(); ++s)
    worst = std::max({worst, rel(ra[s].pe, rb[s].pe), rel(ra[s].press, rb[s].press), rel(ra[s].vol, rb[s].vol)});
  INFO("worst relative difference " << worst << ", volume " << ra.front().vol << " -> " << ra.back().vol << ", "
                                    << a.neighbor_builds() << " builds against " << b.neighbor_builds());
  CHECK(worst <= 1e-10);
  CHECK(ra.back().vol < 0.9 * ra.front().vol);
  // The checked list was not simply rebuilt every step.
  CHECK(a.neighbor_builds() < b.neighbor_builds() / 2);
}
