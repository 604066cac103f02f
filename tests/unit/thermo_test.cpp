#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>

#include "run/simulation.hpp"
#include "test_support.hpp"

using namespace tessera;

TEST_CASE("thermo CSV numbers read back bit-exact", "[thermo]") {
  const auto path = (std::filesystem::temp_directory_path() / "tessera_thermo_test.csv").string();
  Deck d = test::deck_from(test::lj_lattice_yaml(5, 1.44, 30, "{style: nve, dt: 0.005}"));
  d.thermo.every = 10;
  Simulation sim(d);
  std::vector<ThermoValues> seen;
  {
    ThermoWriter w(path, false, false);
    sim.setup();
    sim.run(30, &w);
  }
  // The same run again, sampled in memory.
  Simulation again(d);
  again.setup();
  seen.push_back(again.thermo());
  for (int k = 0; k < 3; ++k) {
    again.run(10, nullptr);
    seen.push_back(again.thermo());
  }
  auto csv = test::read_csv(path);
  std::filesystem::remove(path);
  REQUIRE(csv["step"].size() == 4);
  for (std::size_t k = 0; k < 4; ++k) {
    CHECK(csv["step"][k] == seen[k].step);
    CHECK(csv["temp"][k] == seen[k].temp);
    CHECK(csv["pe"][k] == seen[k].pe);
    CHECK(csv["ke"][k] == seen[k].ke);
    CHECK(csv["etotal"][k] == seen[k].etotal);
    CHECK(csv["press"][k] == seen[k].press);
  }
}

namespace {
// Reads thermo() after the steps in `reads` and says so (reads_energy), or
// reads it after `stray` too without saying so.
class ThermoReader : public StepHook {
 public:
  ThermoReader(std::vector<long> reads, long stray = -1) : reads_(std::move(reads)), stray_(stray) {}
  bool reads_energy(long step, bool) const override {
    return std::find(reads_.begin(), reads_.end(), step) != reads_.end();
  }
  bool after_step(const Simulation& sim, bool) override {
    if (reads_energy(sim.step(), false) || sim.step() == stray_) seen.push_back(sim.thermo());
    return true;
  }
  std::vector<ThermoValues> seen;

 private:
  std::vector<long> reads_;
  long stray_;
};
}  // namespace

// The pair kernels skip energies and virials on the steps nothing reads
// (thermo, a hook, a barostat): the run and every value read are bitwise
// those of a run that computes them at every step, on each CPU layout, and a
// read the step did not announce is refused rather than given stale.
TEST_CASE("energies only on the steps that read them: the same run bitwise, a stale read refused", "[thermo]") {
  for (const char* layout : {"full", "half", "clusters"}) {
    INFO(layout);
    Deck d = test::deck_from(test::lj_lattice_yaml(5, 1.44, 30, "{style: nve, dt: 0.005}"));
    d.thermo.every = 10;
    if (std::string(layout) == "half") d.neighbor.list = "half";
    if (std::string(layout) == "clusters") d.neighbor.layout = "clusters";
    std::vector<long> every_step(30);
    for (long k = 0; k < 30; ++k) every_step[k] = k + 1;
    Simulation all(d), some(d);
    all.setup();
    some.setup();
    ThermoReader reads_all(every_step), reads_some({5, 17});
    all.run(30, nullptr, &reads_all);
    some.run(30, nullptr, &reads_some);
    REQUIRE(reads_some.seen.size() == 2);
    for (const ThermoValues& t : reads_some.seen) {
      const ThermoValues& a = reads_all.seen[static_cast<std::size_t>(t.step - 1)];
      CHECK(t.pe == a.pe);
      CHECK(t.press == a.press);
      CHECK(t.etotal == a.etotal);
    }
    CHECK(some.thermo().pe == all.thermo().pe);  // the last step: always
    CHECK(some.thermo().press == all.thermo().press);
    const AtomStore &x = all.atoms(), &y = some.atoms();
    CHECK(x.x == y.x);
    CHECK(x.vx == y.vx);
    CHECK(x.fx == y.fx);
    // Without thermo or hook, steps 1-9 have no energies: a hook that reads
    // one unannounced is stopped at once, naming the step.
    Simulation stray(d);
    stray.setup();
    ThermoReader reader({}, 4);
    try {
      stray.run(30, nullptr, &reader);
      FAIL("a stale energy read went through");
    } catch (const std::logic_error& e) {
      CHECK(std::string(e.what()).find("step 4") != std::string::npos);
    }
  }
}

TEST_CASE("pressure and temperature follow the LAMMPS definitions", "[thermo]") {
  ThermoSums s{30.0, -50.0, 12.0};
  const ThermoValues v = thermo_values(7, s, 4, 8.0, 0.0, units_for("lj"));
  const double dof = 3 * 4 - 3;
  CHECK(v.temp == Approx(30.0 / dof));
  CHECK(v.ke == Approx(15.0 / 4));
  CHECK(v.pe == Approx(-12.5));
  CHECK(v.etotal == Approx(15.0 / 4 - 12.5));
  CHECK(v.press == Approx((30.0 + 12.0) / (3 * 8.0)));
}

TEST_CASE("metal and real units label the CSV header, lj keeps plain names", "[thermo][units]") {
  const auto path = (std::filesystem::temp_directory_path() / "tessera_thermo_units.csv").string();
  const auto header = [&](const Units* u, std::vector<std::string> columns) {
    { ThermoWriter w(path, false, false, -1, std::move(columns), u); }
    std::FILE* f = std::fopen(path.c_str(), "r");
    char line[512] = {0};
    REQUIRE(std::fgets(line, sizeof line, f) != nullptr);
    std::fclose(f);
    std::filesystem::remove(path);
    std::string s(line);
    return s.substr(0, s.find('\n'));
  };
  CHECK(header(&units_for("metal"), default_thermo_columns()) ==
        "step,temp (K),pe (eV),ke (eV),etotal (eV),press (bar)");
  CHECK(header(&units_for("real"), {"step", "vol", "density", "lx", "pxy", "enthalpy"}) ==
        "step,vol (A^3),density (g/cm^3),lx (A),pxy (atm),enthalpy (kcal/mol)");
  CHECK(header(&units_for("lj"), default_thermo_columns()) == "step,temp,pe,ke,etotal,press");
  CHECK(header(nullptr, default_thermo_columns()) == "step,temp,pe,ke,etotal,press");
}
