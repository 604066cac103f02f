// Molecules against LAMMPS (29 Sep 2021) on LAMMPS-written melts
// (tests/reference/make_references.sh, README there): LAMMPS's in.chain
// system (32,000 FENE beads, special_bonds fene) and a two-type molecular
// melt with harmonic bonds, each of the three angle styles and fractional
// special factors (lj 0 0.5 0.8), plus the same melt with 1-3 and 1-4 pairs
// excluded too (lj 0 0 0). Forces per atom to 1e-10 relative at step 0;
// thermo to 1e-8 over 100 NVE steps.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <map>
#include <string>

#include "run/simulation.hpp"
#include "molecular_decks.hpp"
#include "test_support.hpp"

using namespace tessera;
using test::kHarmonic;
using test::mol_model;
using test::reference;

namespace {

const char* kColumns[] = {"temp", "pe", "ke", "etotal", "press"};

double column(const ThermoValues& v, const std::string& c) {
  const std::map<std::string, double> m = {
      {"temp", v.temp}, {"pe", v.pe}, {"ke", v.ke}, {"etotal", v.etotal}, {"press", v.press}};
  return m.at(c);
}

// `name` from the reference folder, gunzipped into `dir` when it ends in .gz.
std::string plain(const std::string& name, const test::Scratch& dir) {
  if (name.size() < 3 || name.compare(name.size() - 3, 3, ".gz") != 0) return reference(name);
  const std::string out = (dir.dir / name.substr(0, name.size() - 3)).string();
  const std::string cmd = "gzip -dc '" + reference(name) + "' > '" + out + "'";
  REQUIRE(std::system(cmd.c_str()) == 0);
  return out;
}

const std::string kChainModel = R"(
potential:
  style: lj/cut
  cutoff: 1.122462048309373
  shift: true
  coeffs:
    - {types: [1, 1], epsilon: 1.0, sigma: 1.0}
bonds:
  style: fene
  coeffs:
    - {type: 1, K: 30.0, R0: 1.5, epsilon: 1.0, sigma: 1.0}
special_bonds: fene
neighbor: {skin: 0.4, every: 1, delay: 0, check: true}
integrator: {style: nve, dt: 0.012}
)";

struct Case {
  std::string name;  // reference files: <name>_forces.dump[.gz], <name>_nve_100.csv
  std::string data;
  std::string model;
  std::string forces = name + "_forces.dump";
};

const std::string kCosine = "  style: cosine\n  coeffs:\n    - {type: 1, K: 20.0}\n    - {type: 2, K: 15.0}\n";
const std::string kCosineSquared = "  style: cosine/squared\n  coeffs:\n    - {type: 1, K: 30.0, theta0: 110.0}\n"
                                   "    - {type: 2, K: 25.0, theta0: 120.0}\n";

const Case kChain{"chain", "chain_melt.data.gz", kChainModel, "chain_forces.dump.gz"};
const Case kMolHarmonic{"mol_harmonic", "mol_melt.data", mol_model(kHarmonic, "{lj: [0, 0.5, 0.8]}")};
const Case kMolCosine{"mol_cosine", "mol_melt.data", mol_model(kCosine, "{lj: [0, 0.5, 0.8]}")};
const Case kMolCosineSquared{"mol_cosine_squared", "mol_melt.data", mol_model(kCosineSquared, "{lj: [0, 0.5, 0.8]}")};
const Case kMolExcluded{"mol_harmonic_excl", "mol_melt.data", mol_model(kHarmonic, "{lj: [0, 0, 0]}")};

std::string deck(const Case& c, const std::string& data, long steps) {
  return "system: {read_data: " + data + "}\n" + c.model + "run: {steps: " + std::to_string(steps) + "}\n";
}

void forces_agree(const Case& c) {
  INFO(c.name);
  test::Scratch dir("lammps-molecular");
  Simulation sim(test::deck_from(deck(c, plain(c.data, dir), 0)));
  sim.setup();
  const auto ref = test::read_dump_forces(plain(c.forces, dir));
  const AtomStore& a = sim.atoms();
  REQUIRE(ref.size() == a.nlocal);
  double fmax = 0;
  const double worst = test::worst_force_difference(a, ref, fmax);
  INFO("worst relative force difference " << worst);
  CHECK(fmax > 10.0);
  CHECK(worst <= 1e-10);
}

void thermo_follows(const Case& c, long steps) {
  INFO(c.name);
  test::Scratch dir("lammps-molecular");
  const auto ref = test::read_csv(reference(c.name + "_nve_100.csv"));
  REQUIRE(ref.at("step").size() == static_cast<std::size_t>(steps + 1));
  Simulation sim(test::deck_from(deck(c, plain(c.data, dir), steps)));
  sim.setup();
  std::map<std::string, double> worst, scale;
  for (const char* col : kColumns)
    for (double x : ref.at(col)) scale[col] = std::max(scale[col], std::abs(x));
  for (long s = 0; s <= steps; ++s) {
    if (s > 0) sim.run(1, nullptr);
    const ThermoValues v = sim.thermo();
    for (const char* col : kColumns)
      worst[col] = std::max(worst[col], std::abs(column(v, col) - ref.at(col)[s]) / scale[col]);
  }
  for (const char* col : kColumns) {
    INFO(col << ": worst difference " << worst[col] << " of its largest magnitude " << scale[col]);
    CHECK(worst[col] <= 1e-8);
  }
}

}  // namespace

TEST_CASE("in.chain: FENE forces on LAMMPS's melt agree to 1e-10 per atom", "[lammps][molecular]") {
  forces_agree(kChain);
}

TEST_CASE("in.chain: 100 NVE steps follow LAMMPS to 1e-8", "[lammps][molecular]") { thermo_follows(kChain, 100); }

TEST_CASE("harmonic bonds with each angle style and special factors: forces agree to 1e-10",
          "[lammps][molecular]") {
  for (const Case& c : {kMolHarmonic, kMolCosine, kMolCosineSquared, kMolExcluded}) forces_agree(c);
}

TEST_CASE("harmonic bonds with each angle style: 100 NVE steps follow LAMMPS to 1e-8", "[lammps][molecular]") {
  for (const Case& c : {kMolHarmonic, kMolCosine, kMolCosineSquared}) thermo_follows(c, 100);
}

TEST_CASE("1-3 and 1-4 pairs excluded too (special_bonds lj 0 0 0): step 0 thermo agrees to 1e-12",
          "[lammps][molecular]") {
  test::Scratch dir("lammps-molecular");
  const auto ref = test::read_csv(reference("mol_harmonic_excl_run0.csv"));
  Simulation sim(test::deck_from(deck(kMolExcluded, plain(kMolExcluded.data, dir), 0)));
  sim.setup();
  const ThermoValues v = sim.thermo();
  for (const char* col : kColumns) {
    INFO(col);
    CHECK(column(v, col) == Approx(ref.at(col)[0]).epsilon(1e-12));
  }
}
