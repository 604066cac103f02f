// metal and real units against LAMMPS (29 Sep 2021) on LAMMPS-written data
// files (tests/reference/make_references.sh): the same inputs in the same
// units give the same numbers, thermo totals as LAMMPS prints them in these
// units. Copper with a Morse potential under a Nose-Hoover chain (metal:
// eV, A, ps, K, bar) and liquid argon under npt (real: kcal/mol, A, fs, K,
// atm) take every factor of the table: Boltzmann's constant in the
// thermostat and the temperature, mvv2e and ftm2v in the kinetic energy and
// the kicks, nktv2p in the pressure and the barostat, mv2d in the density.
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "run/simulation.hpp"
#include "test_support.hpp"

using namespace tessera;
using test::reference;

namespace {

const char* kColumns[] = {"temp", "pe", "ke", "etotal", "press", "vol", "density", "econserve"};

double column(const ThermoValues& v, const std::string& c) {
  const std::map<std::string, double> m = {{"temp", v.temp},       {"pe", v.pe},   {"ke", v.ke},
                                           {"etotal", v.etotal},   {"press", v.press}, {"vol", v.vol},
                                           {"density", v.density}, {"econserve", v.econserve}};
  return m.at(c);
}

// Runs `deck` step by step against the reference CSV, every column within
// 1e-8 relative (1e-8 of the largest magnitude for the column, since ecouple
// and the pressure cross zero).
void follows(const std::string& yaml, const std::string& csv, long steps) {
  const auto ref = test::read_csv(reference(csv));
  REQUIRE(ref.at("step").size() == static_cast<std::size_t>(steps + 1));
  Simulation sim(test::deck_from(yaml));
  sim.setup();
  std::map<std::string, double> worst, scale;
  for (const char* c : kColumns)
    for (double x : ref.at(c)) scale[c] = std::max(scale[c], std::abs(x));
  for (long s = 0; s <= steps; ++s) {
    if (s > 0) sim.run(1, nullptr);
    const ThermoValues v = sim.thermo();
    for (const char* c : kColumns) worst[c] = std::max(worst[c], std::abs(column(v, c) - ref.at(c)[s]) / scale[c]);
  }
  for (const char* c : kColumns) {
    INFO(csv << ": " << c << " worst difference " << worst[c] << " of its largest magnitude " << scale[c]);
    CHECK(worst[c] <= 1e-8);
  }
}

}  // namespace

TEST_CASE("metal units: Cu Morse under a Nose-Hoover chain follows LAMMPS's fix nvt", "[lammps][units]") {
  follows(R"(units: metal
system: {read_data: )" + reference("cu_morse_metal_melt.data") + R"(}
potential:
  style: morse
  cutoff: 8.0
  coeffs:
    - {types: [1, 1], d0: 0.3429, alpha: 1.3588, r0: 2.866}
neighbor: {every: 1, delay: 0, check: true}
integrator: {style: nose-hoover, temperature: 1500.0, damping: 0.1}
run: {steps: 200}
)",
          "cu_morse_metal_nvt.csv", 200);
}

TEST_CASE("real units: liquid argon under npt follows LAMMPS's fix npt", "[lammps][units][barostat]") {
  follows(R"(units: real
system: {read_data: )" + reference("ar_lj_real_melt.data") + R"(}
potential:
  style: lj/cut
  cutoff: 8.5
  coeffs:
    - {types: [1, 1], epsilon: 0.2381, sigma: 3.405}
neighbor: {every: 1, delay: 0, check: true}
integrator: {style: npt, dt: 2.0, temperature: 120.0, damping: 200.0, pressure: 1.0, pressure_damping: 1000.0}
run: {steps: 200}
)",
          "ar_lj_real_npt.csv", 200);
}

TEST_CASE("metal and real: LAMMPS's defaults and the units outputs name", "[units]") {
  const Units& metal = units_for("metal");
  const Units& real = units_for("real");
  CHECK(metal.dt_default == 0.001);
  CHECK(real.dt_default == 1.0);
  CHECK(metal.skin_default == 2.0);
  CHECK(real.skin_default == 2.0);
  CHECK_FALSE(metal.normalize_thermo);
  CHECK_FALSE(real.normalize_thermo);
  CHECK(metal.symbols.energy == "eV");
  CHECK(real.symbols.energy == "kcal/mol");
  CHECK(metal.symbols.pressure == "bar");
  CHECK(real.symbols.pressure == "atm");
  // MDAnalysis's H5MD reader knows no force in eV/A: metal writes none.
  CHECK(metal.h5md.energy.empty());
  CHECK(real.h5md.energy == "kcal mol-1");
  CHECK(metal.h5md.time == "ps");
  CHECK(real.h5md.time == "fs");
  CHECK_THROWS_WITH(units_for("si"), Catch::Contains("unknown units 'si' (known: lj, metal, real)"));
}

TEST_CASE("a lattice in metal or real units needs its masses", "[units][deck]") {
  const std::string lattice = R"(units: metal
system:
  lattice: {style: fcc, constant: 3.615, cells: [4, 4, 4]}
potential:
  style: morse
  cutoff: 6.0
  coeffs:
    - {types: [1, 1], d0: 0.3429, alpha: 1.3588, r0: 2.866}
integrator: {style: nve}
run: {steps: 10}
)";
  CHECK_THROWS_WITH(test::deck_from(lattice, "cu.yaml"),
                    Catch::Contains("cu.yaml:3:3: system: a lattice in metal units needs 'masses' (g/mol)"));
  const Deck d = test::deck_from(test::replace(lattice, "cells: [4, 4, 4]}", "cells: [4, 4, 4]}\n  masses: [63.546]"));
  CHECK(d.integrator.dt == 0.001);  // the metal default, 1 fs
  CHECK(d.neighbor.skin == 2.0);
}
