#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "deck/deck.hpp"
#include "deck/nearest_key.hpp"
#include "run/simulation.hpp"
#include "test_support.hpp"

using namespace tessera;

namespace {
const std::string kGood = R"(system:
  lattice: {style: fcc, density: 0.8442, cells: [6, 6, 6]}
velocity: {temperature: 1.0, seed: 1}
potential:
  style: lj/cut
  cutoff: 2.5
  coeffs:
    - {types: [1, 1], epsilon: 1.0, sigma: 1.0}
neighbor: {skin: 0.3}
integrator: {style: nve, dt: 0.005}
run: {steps: 10}
)";

// Loads (and builds) a deck, expecting an InputError; returns its message.
std::string error_of(const std::string& yaml) {
  try {
    Simulation sim(parse_deck(yaml, "bad.yaml"));
  } catch (const InputError& e) {
    return e.what();
  }
  FAIL("no error for deck:\n" << yaml);
  return "";
}
}  // namespace

TEST_CASE("a good deck loads with its values", "[deck]") {
  const Deck d = parse_deck(kGood, "good.yaml");
  CHECK(d.system.lattice->style == "fcc");
  CHECK(d.system.lattice->constant == Approx(std::cbrt(4 / 0.8442)));
  CHECK(d.potential.cutoff == 2.5);
  CHECK(d.neighbor.skin == 0.3);
  CHECK(d.neighbor.every == 1);
  CHECK(d.neighbor.check);
  CHECK(d.steps == 10);
  CHECK(d.velocity->seed == 1);
  Simulation sim(d);
  CHECK(sim.natoms() == 864);
}

TEST_CASE("bad decks name file, line, column and key", "[deck]") {
  struct Bad {
    std::string yaml, expect;
  };
  const std::vector<Bad> bad = {
      {test::replace(kGood, "run: {steps: 10}", "run: {steps: 10, stpes: 3}"),
       "bad.yaml:11:18: run.stpes: unknown key, did you mean 'steps'? (allowed here: steps, max_walltime, "
       "stop_margin)"},
      {test::replace(kGood, "neighbor: {skin: 0.3}", "neighbour: {skin: 0.3}"),
       "bad.yaml:9:1: neighbour: unknown key, did you mean 'neighbor'? (allowed here: units, "},
      {test::replace(kGood, "skin: 0.3", "skn: 0.3"), "neighbor.skn: unknown key, did you mean 'skin'? (allowed"},
      {test::replace(kGood, "sigma: 1.0}", "sigma: 1.0, sgima: 2}"),
       "potential.coeffs[0].sgima: unknown key for lj/cut, did you mean 'sigma'? (allowed here: types, cutoff, "
       "epsilon, sigma)"},
      {test::replace(kGood, "run: {steps: 10}", "run: {steps: 10, max_walltim: 3}"),
       "run.max_walltim: unknown key, did you mean 'max_walltime'? (allowed"},
      {test::replace(kGood, "run: {steps: 10}", "run: {steps: 10, colour: 3}"),
       "run.colour: unknown key (allowed here: steps, max_walltime, stop_margin)"},
      {kGood + "output: {trajectory: {every: 5, file: traj.data}}\n",
       "output.trajectory.file: the run writes the trajectory's topology (a LAMMPS data file, the trajectory's name "
       "with .data) to traj.data, which is also output.trajectory.file"},
      {test::replace(kGood, "dt: 0.005", "dt: fast"), "bad.yaml:10:30: integrator.dt: expected a number, got 'fast'"},
      {test::replace(kGood, "steps: 10", "steps: 1.5"), "bad.yaml:11:14: run.steps: expected an integer, got '1.5'"},
      {test::replace(kGood, "  cutoff: 2.5\n", ""), "bad.yaml:5:3: potential: missing required key 'potential.cutoff'"},
      {test::replace(kGood, "cutoff: 2.5", "cutoff: 0"), "bad.yaml:6:11: potential.cutoff: must be positive"},
      {test::replace(kGood, "cutoff: 2.5", "cutoff: -1"), "bad.yaml:6:11: potential.cutoff: must be positive"},
      {test::replace(kGood, "skin: 0.3", "skin: -0.1"), "bad.yaml:9:18: neighbor.skin: must not be negative"},
      {test::replace(kGood, "cells: [6, 6, 6]", "cells: [3, 6, 6]"),
       "bad.yaml:6:11: potential.cutoff: cutoff 2.5 + neighbor skin 0.3 = 2.8 is longer than half the box along x"},
      {test::replace(kGood, "style: lj/cut", "style: lj/long"),
       "bad.yaml:5:10: potential.style: unknown potential 'lj/long'"},
      {test::replace(kGood, "epsilon: 1.0", "epsilon: .nan"), "potential.coeffs[0].epsilon: expected a finite number"},
      {test::replace(kGood, "sigma: 1.0}", "sigma: 1.0, sgima: 2}"),
       "potential.coeffs[0].sgima: unknown key for lj/cut"},
      {test::replace(kGood, "types: [1, 1]", "types: [1, 2]"),
       "bad.yaml:8:7: potential.coeffs[0]: type pair 1 2 names a type above"},
      {test::replace(kGood, "cells: [6, 6, 6]}", "cells: [6, 6, 6]}\n  types: 2"),
       "potential.coeffs: no coefficients for type pair 2 2"},
      {test::replace(kGood, "cells: [6, 6, 6]", "cells: [6, -6, 6]"),
       "system.lattice.cells[1]: cell count must be positive"},
      {test::replace(kGood, "style: nve", "style: nvt"), "integrator.style: unknown integrator 'nvt'"},
      {test::replace(kGood, "style: nve, dt: 0.005", "style: langevin, dt: 0.005, temperature: 1.0"),
       "integrator: missing required key 'integrator.damping'"},
      {test::replace(kGood, "seed: 1", "seed: -1"), "velocity.seed: expected a non-negative integer seed"},
      {test::replace(kGood, "{temperature: 1.0, seed: 1}", "{temperature: 1.0, seed: 1"),
       "bad.yaml:4:10: YAML syntax error"},
      {test::replace(kGood, "system:\n  lattice: {style: fcc, density: 0.8442, cells: [6, 6, 6]}", "system: 3"),
       "bad.yaml:1:9: system: expected a mapping of keys, got '3'"},
      {test::replace(kGood, "  lattice: {style: fcc, density: 0.8442, cells: [6, 6, 6]}",
                     "  read_data: does-not-exist.data"),
       "does-not-exist.data: cannot open the data file"},
      {"", "the deck is empty"},
  };
  for (const auto& b : bad) {
    INFO(b.yaml);
    CHECK_THAT(error_of(b.yaml), Catch::Contains(b.expect));
  }
}

TEST_CASE("bad npt, nph and thermo columns name the key", "[deck][barostat]") {
  const std::string npt = test::replace(
      kGood, "{style: nve, dt: 0.005}",
      "{style: npt, dt: 0.005, temperature: 1.0, damping: 0.5, pressure: 1.0, pressure_damping: 1.0}");
  struct Bad {
    std::string yaml, expect;
  };
  const std::vector<Bad> bad = {
      {test::replace(npt, "pressure: 1.0", "pressure: -1.0"), "bad.yaml:10:"},
      {test::replace(npt, "pressure: 1.0", "pressure: -1.0"), "integrator.pressure: must be positive and finite, got -1"},
      {test::replace(npt, "pressure: 1.0", "pressure: 0"), "integrator.pressure: must be positive and finite, got 0"},
      {test::replace(npt, "pressure: 1.0", "pressure: .nan"), "integrator.pressure: expected a finite number"},
      {test::replace(npt, "pressure: 1.0", "pressure: [1.0, 2.0, 3.0]"),
       "integrator.pressure: expected one value or [start, stop]"},
      {test::replace(npt, "temperature: 1.0, damping", "temperature: [1.0, -2], damping"),
       "integrator.temperature: must be positive and finite, got -2"},
      {test::replace(npt, "pressure_damping: 1.0", "pressure_damping: 0.01"),
       "integrator.pressure_damping: 0.01 is shorter than 5 time steps"},
      {test::replace(npt, "damping: 0.5", "damping: 0.02"), "integrator.damping: 0.02 is shorter than 5 time steps"},
      {test::replace(npt, "pressure_damping: 1.0}", "pressure_damping: 1.0, coupling: tri}"),
       "integrator.coupling: unknown coupling 'tri' (known: iso, aniso)"},
      {test::replace(npt, ", pressure_damping: 1.0", ""), "missing required key 'integrator.pressure_damping'"},
      {test::replace(npt, "style: npt", "style: nph"), "integrator.temperature: unknown key"},
      {test::replace(npt, "pressure_damping: 1.0}", "pressure_damping: 1.0, drag: -1}"),
       "integrator.drag: must be >= 0, got -1"},
      {test::replace(npt, "pressure_damping: 1.0}", "pressure_damping: 1.0, max_volume_change: 0}"),
       "integrator.max_volume_change: must be a fraction > 0 and < 1, got 0"},
      {test::replace(npt, "pressure_damping: 1.0}", "pressure_damping: 1.0, max_volume_change: 1.5}"),
       "integrator.max_volume_change: must be a fraction > 0 and < 1, got 1.5"},
      {test::replace(npt, "style: npt, dt: 0.005, temperature: 1.0, damping: 0.5, pressure: 1.0, pressure_damping: 1.0}",
                     "style: nose-hoover, dt: 0.005, temperature: 1.0, damping: 0.5, max_volume_change: 0.1}"),
       "integrator.max_volume_change: unknown key"},
      {kGood + "output: {thermo: {columns: [step, volume]}}\n",
       "output.thermo.columns[1]: unknown thermo column 'volume' (known: step, temp"},
      {kGood + "output: {thermo: {columns: [step, vol, vol]}}\n", "output.thermo.columns[2]: column 'vol' is listed twice"},
  };
  for (const auto& b : bad) {
    INFO(b.yaml);
    CHECK_THAT(error_of(b.yaml), Catch::Contains(b.expect));
  }
  // A good npt deck: ramps read as [start, stop], the volume shown by default.
  const Deck d = parse_deck(test::replace(npt, "pressure: 1.0", "pressure: [1.0, 2.5]"), "good.yaml");
  CHECK(d.integrator.pressure == 1.0);
  CHECK(d.integrator.pressure_stop == 2.5);
  CHECK(d.integrator.temperature_stop == 1.0);
  CHECK(d.integrator.ramp_steps == 10);
  CHECK(d.integrator.max_volume_change == 0.05);
  CHECK(d.thermo.columns.back() == "vol");
}

TEST_CASE("bad c-rescale barostat blocks name file, line and key", "[deck][barostat][crescale]") {
  // The block on its own lines, so that each key has a line of its own.
  const std::string lan = test::replace(kGood, "integrator: {style: nve, dt: 0.005}\n",
                                        "integrator:\n"
                                        "  style: langevin\n"
                                        "  dt: 0.005\n"
                                        "  temperature: 1.5\n"
                                        "  damping: 0.5\n"
                                        "  seed: 7\n"
                                        "  barostat:\n"
                                        "    style: c-rescale\n"
                                        "    pressure: 1.0\n"
                                        "    damping: 1.0\n"
                                        "    compressibility: 0.05\n");
  const std::string nh = test::replace(test::replace(lan, "style: langevin", "style: nose-hoover"), "  seed: 7\n", "");
  struct Bad {
    std::string yaml, expect;
  };
  const std::vector<Bad> bad = {
      {test::replace(lan, "    damping: 1.0", "    damping: 0"), "bad.yaml:19:14: integrator.barostat.damping: must be positive, got 0"},
      {test::replace(lan, "    damping: 1.0", "    damping: -2"), "integrator.barostat.damping: must be positive, got -2"},
      {test::replace(lan, "    damping: 1.0", "    damping: 0.01"),
       "integrator.barostat.damping: 0.01 is shorter than 5 time steps"},
      {test::replace(lan, "compressibility: 0.05", "compressibility: 0"),
       "bad.yaml:20:22: integrator.barostat.compressibility: must be positive, got 0"},
      {test::replace(lan, "compressibility: 0.05", "compressibility: -1e-3"),
       "integrator.barostat.compressibility: must be positive, got -0.001"},
      {test::replace(lan, "style: c-rescale", "style: berendsen"),
       "bad.yaml:17:12: integrator.barostat.style: unknown barostat 'berendsen' (known: c-rescale"},
      {test::replace(lan, "    pressure: 1.0", "    pressure: -1"),
       "integrator.barostat.pressure: must be positive and finite, got -1"},
      {test::replace(lan, "    pressure: 1.0", "    pressure: [1, 2, 3]"),
       "integrator.barostat.pressure: expected one value or [start, stop]"},
      {test::replace(lan, "compressibility: 0.05", "compressibility: 0.05\n    coupling: tri"),
       "integrator.barostat.coupling: unknown coupling 'tri' (known: iso, aniso)"},
      {test::replace(lan, "compressibility: 0.05", "compressibility: 0.05\n    mtk: true"),
       "integrator.barostat.mtk: unknown key"},
      {test::replace(lan, "    compressibility: 0.05\n", ""),
       "missing required key 'integrator.barostat.compressibility'"},
      {test::replace(lan, "    damping: 1.0\n", ""), "missing required key 'integrator.barostat.damping'"},
      {nh, "integrator.barostat: the 'seed' of the barostat's noise is required with nose-hoover"},
      {test::replace(test::replace(lan, "style: langevin", "style: nve"), "  temperature: 1.5\n  damping: 0.5\n  seed: 7\n",
                     ""),
       "bad.yaml:14:5: integrator.barostat: a barostat needs a thermostat: give it with style langevin or "
       "nose-hoover, not nve"},
      {test::replace(test::replace(lan, "style: langevin", "style: npt"), "  seed: 7\n", "  pressure: 1\n"),
       "integrator.barostat: npt has its own barostat"},
      {test::replace(test::replace(lan, "style: langevin", "style: nph"), "  seed: 7\n", ""),
       "integrator.barostat: nph has its own barostat"},
  };
  for (const auto& b : bad) {
    INFO(b.yaml);
    CHECK_THAT(error_of(b.yaml), Catch::Contains(b.expect));
  }
  // Good ones: the defaults, a ramp, the Langevin seed lent, the volume shown.
  const Deck d = parse_deck(lan, "good.yaml");
  CHECK(d.integrator.c_rescale);
  CHECK(d.integrator.moves_box());
  CHECK_FALSE(d.integrator.barostat());
  CHECK(d.integrator.pressure == 1.0);
  CHECK(d.integrator.pressure_stop == 1.0);
  CHECK(d.integrator.pressure_damping == 1.0);
  CHECK(d.integrator.compressibility == 0.05);
  CHECK(d.integrator.coupling == PressureCoupling::kIso);
  CHECK(d.integrator.barostat_seed == 7);
  CHECK(d.thermo.columns.back() == "vol");
  CHECK(integrator_label(d.integrator) == "langevin+c-rescale");
  const Deck e = parse_deck(test::replace(test::replace(nh, "    pressure: 1.0", "    pressure: [1.0, 2.0]"),
                                          "compressibility: 0.05", "compressibility: 0.05\n    coupling: aniso\n    seed: 11"),
                            "good.yaml");
  CHECK(e.integrator.pressure_stop == 2.0);
  CHECK(e.integrator.coupling == PressureCoupling::kAniso);
  CHECK(e.integrator.barostat_seed == 11);
  CHECK(integrator_label(e.integrator) == "nose-hoover+c-rescale");
  CHECK(integrator_label_style("nose-hoover+c-rescale") == "nose-hoover");
}

TEST_CASE("a misspelt key gets the nearest valid one as a suggestion", "[deck]") {
  const std::vector<std::string> top = {"units", "system", "velocity", "potential", "neighbor", "integrator", "run",
                                        "output", "threads", "analysis"};
  CHECK(nearest_key("outptu", top) == "output");        // two letters swapped
  CHECK(nearest_key("neighbour", top) == "neighbor");   // British spelling
  CHECK(nearest_key("Potential", top) == "potential");  // case
  CHECK(nearest_key("intgrator", top) == "integrator");
  CHECK(nearest_key("thread", top) == "threads");
  CHECK(nearest_key("steps", top).empty());  // nothing close: no guess
  CHECK(nearest_key("xx", {"dt", "seed"}).empty());
  CHECK(nearest_key("temp", {"style", "dt", "temperature", "damping"}) == "temperature");  // the start of one key
  CHECK(nearest_key("t", {"temperature", "threads"}).empty());
  CHECK(did_you_mean("skn", {"skin", "every"}) == ", did you mean 'skin'?");
  CHECK(did_you_mean("colour", {"skin", "every"}).empty());
}

TEST_CASE("read_data resolves relative to the deck's folder", "[deck]") {
  const Deck d = parse_deck(
      test::replace(kGood, "  lattice: {style: fcc, density: 0.8442, cells: [6, 6, 6]}", "  read_data: melt.data"),
      "some/dir/deck.yaml");
  CHECK(d.system.read_data == "some/dir/melt.data");
}

TEST_CASE("lattice basis types make a mixture on a lattice", "[deck]") {
  const std::string yaml = test::replace(
      test::replace(
          kGood, "lattice: {style: fcc, density: 0.8442, cells: [6, 6, 6]}",
          "lattice: {style: bcc, constant: 1.3, cells: [5, 5, 5], basis_types: [1, 2]}\n  masses: [1.0, 3.0]"),
      "    - {types: [1, 1], epsilon: 1.0, sigma: 1.0}",
      "    - {types: [1, 1], epsilon: 1.0, sigma: 1.0}\n    - {types: [2, 2], epsilon: 0.5, sigma: 1.1}");
  Simulation sim(parse_deck(yaml, "b2.yaml"));
  const auto& a = sim.atoms();
  REQUIRE(a.ntypes == 2);
  int n2 = 0;
  for (std::size_t i = 0; i < a.nlocal; ++i) {
    // bcc basis: corner atoms (odd ids) type 1, body centres (even ids) type 2
    CHECK(a.type[i] == (a.id[i] % 2 == 0 ? 2 : 1));
    n2 += a.type[i] == 2;
  }
  CHECK(n2 == 125);
  CHECK(a.mass_of_type[2] == 3.0);
  CHECK_THAT(error_of(test::replace(yaml, "basis_types: [1, 2]", "basis_types: [1, 2, 2]")),
             Catch::Contains("system.lattice.basis_types: expected a list of 2 atom types, one per basis atom of bcc"));
  CHECK_THAT(error_of(test::replace(yaml, "basis_types: [1, 2]", "basis_types: [1, 3]")),
             Catch::Contains("system.lattice.basis_types: type 3 is above the 2 atom type(s) of the system"));
}
