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
