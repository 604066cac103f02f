#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <map>

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

namespace {
// Copies the velocities after every third step through atoms() (as a dump
// or a checkpoint reads them), announcing energies or not; stops the run
// after `stop`.
class VelocityReader : public StepHook {
 public:
  VelocityReader(bool energy, long stop = -1) : energy_(energy), stop_(stop) {}
  bool reads_energy(long, bool) const override { return energy_; }
  bool after_step(const Simulation& sim, bool) override {
    if (sim.step() % 3 == 0) vx[sim.step()] = sim.atoms().vx;
    return sim.step() != stop_;
  }
  std::map<long, std::vector<double>> vx;

 private:
  bool energy_;
  long stop_;
};
}  // namespace

// On the steps whose end nothing announced it reads (no thermo, no energy),
// the CPU leaves a step's second half kick to the next step's first, in one
// pass (Simulation's owed kick). Every read in between (a hook's atoms(),
// thermo() after a stop, a second run) must see the kicked velocities: the
// same bits as a run that owes nothing (energies read every step).
TEST_CASE("a half kick owed to the next step: every read in between sees it", "[thermo]") {
  for (const char* style : {"{style: nve, dt: 0.005}",
                            "{style: langevin, dt: 0.005, temperature: 1.0, damping: 0.5, seed: 99}"}) {
    INFO(style);
    Deck d = test::deck_from(test::lj_lattice_yaml(5, 1.44, 30, style));
    d.thermo.every = 0;
    Simulation plain(d), owing(d), stopped(d);
    for (Simulation* s : {&plain, &owing, &stopped}) s->setup();
    VelocityReader every_step(true), unannounced(false), stops(false, 10);
    plain.run(30, nullptr, &every_step);
    owing.run(30, nullptr, &unannounced);
    REQUIRE(unannounced.vx.size() == 10);
    for (const auto& [step, v] : unannounced.vx) {
      INFO("step " << step);
      CHECK(v == every_step.vx.at(step));
    }
    CHECK(owing.atoms().x == plain.atoms().x);
    CHECK(owing.atoms().vx == plain.atoms().vx);
    // A hook stops the run after step 10: the run ends with the kick paid,
    // for any reader and for the next run.
    stopped.run(30, nullptr, &stops);
    REQUIRE(stopped.step() == 10);
    Simulation ten(d);
    ten.setup();
    ten.run(10, nullptr);
    CHECK(stopped.atoms().vx == ten.atoms().vx);
    stopped.run(20, nullptr);
    CHECK(stopped.atoms().vx == plain.atoms().vx);
    CHECK(stopped.atoms().x == plain.atoms().x);
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
