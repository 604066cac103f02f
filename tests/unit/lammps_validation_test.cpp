// Tessera against LAMMPS (Debian package, 29 Sep 2021) on melted
// configurations that LAMMPS wrote: tests/reference/make_references.sh
// regenerates every file used here.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "run/simulation.hpp"
#include "test_support.hpp"

using namespace tessera;
using test::reference;

namespace {

struct Case {
  std::string name;  // of the reference files
  std::string potential_yaml;
  std::string data = name;  // the melt it reads: <data>_melt.data
};

const Case kLJ{"lj", R"(
  style: lj/cut
  cutoff: 2.5
  coeffs:
    - {types: [1, 1], epsilon: 1.0, sigma: 1.0}
)"};
// Force-shifted LJ on the lj/cut melt.
const Case kLJSmooth{"lj_smooth", R"(
  style: lj/smooth/linear
  cutoff: 2.5
  coeffs:
    - {types: [1, 1], epsilon: 1.0, sigma: 1.0}
)",
                     "lj"};
const Case kMorse{"morse", R"(
  style: morse
  cutoff: 2.5
  coeffs:
    - {types: [1, 1], d0: 1.0, alpha: 3.0, r0: 1.2}
)"};
// Unlike pair 1-2 comes from the default Lorentz-Berthelot mixing, as
// LAMMPS's pair_modify mix arithmetic.
const Case kMix{"mix", R"(
  style: lj/cut
  cutoff: 2.5
  coeffs:
    - {types: [1, 1], epsilon: 1.0, sigma: 1.0}
    - {types: [2, 2], epsilon: 0.5, sigma: 1.2}
)"};

std::string deck_yaml(const std::string& data, const std::string& potential, long steps, bool shift = false) {
  std::string pot = potential;
  if (shift) pot += "  shift: true\n";
  return "system: {read_data: " + reference(data) + "}\npotential:" + pot +
         "neighbor: {skin: 0.3, every: 1, delay: 0, check: true}\n"
         "integrator: {style: nve, dt: 0.005}\nrun: {steps: " +
         std::to_string(steps) + "}\n";
}

// The README's validation table quotes what these tests measure; so that it
// cannot go stale, each measured figure is printed as `FIGURE name=value` and
// written to <dir>/<name> (dir: $TESSERA_FIGURES_DIR, else the build tree's
// figures-measured/), where ctest's readme_figures test and
// scripts/refresh-figures.sh read it. One file per figure, written whole and
// renamed into place, so tests running side by side never interleave.
// tests/CMakeLists.txt names the two test cases that call this as that
// test's fixture (and scripts/figures.py names them in docs/figures.md):
// rename them there too.
void record_figure(const std::string& name, double value) {
  const std::string line = fmt::format("{}={:.3e}", name, value);
  fmt::print("FIGURE {}\n", line);
  const char* env = std::getenv("TESSERA_FIGURES_DIR");
  const std::filesystem::path dir = env && *env ? env : TESSERA_FIGURES_DIR;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const auto tmp = dir / (name + ".tmp");
  std::ofstream(tmp) << line << "\n";
  std::filesystem::rename(tmp, dir / name, ec);
  INFO("writing " << (dir / name).string());
  CHECK(!ec);
}

}  // namespace

TEST_CASE("forces on LAMMPS melts agree to 1e-10 per atom", "[lammps]") {
  for (const Case& c : {kLJ, kLJSmooth, kMorse, kMix}) {
    INFO(c.name);
    Simulation sim(test::deck_from(deck_yaml(c.data + "_melt.data", c.potential_yaml, 0)));
    sim.setup();
    const auto ref = test::read_dump_forces(reference(c.name + "_forces.dump"));
    const auto& a = sim.atoms();
    REQUIRE(ref.size() == a.nlocal);
    double fmax = 0;
    const double worst = test::worst_force_difference(a, ref, fmax);
    CHECK(fmax > 10.0);  // a real melt: forces far from zero
    CHECK(worst <= 1e-10);
    record_figure("forces." + c.name, worst);
  }
}

TEST_CASE("thermo of LAMMPS melts: step 0 agrees to 1e-12", "[lammps]") {
  struct Run0 {
    Case c;
    bool shift;
    std::string csv;
  };
  for (const Run0& r : {Run0{kLJ, false, "lj_run0.csv"}, Run0{kLJ, true, "lj_shift_run0.csv"},
                        Run0{kLJSmooth, false, "lj_smooth_run0.csv"}, Run0{kMorse, false, "morse_run0.csv"},
                        Run0{kMix, false, "mix_run0.csv"}}) {
    INFO(r.csv);
    Simulation sim(test::deck_from(deck_yaml(r.c.data + "_melt.data", r.c.potential_yaml, 0, r.shift)));
    sim.setup();
    const ThermoValues v = sim.thermo();
    auto ref = test::read_csv(reference(r.csv));
    CHECK(test::rel_diff(v.temp, ref["temp"][0]) < 1e-12);
    CHECK(test::rel_diff(v.pe, ref["pe"][0]) < 1e-12);
    CHECK(test::rel_diff(v.ke, ref["ke"][0]) < 1e-12);
    CHECK(test::rel_diff(v.etotal, ref["etotal"][0]) < 1e-12);
    CHECK(test::rel_diff(v.press, ref["press"][0]) < 1e-12);
  }
}

// Each component of `ours` within 1e-10 of LAMMPS's, relative to the
// largest (the off-diagonal ones of a liquid are small, near-cancelling sums).
static void check_tensor(const PressureTensor& p, std::map<std::string, std::vector<double>>& ref) {
  const double mine[6] = {p.xx, p.yy, p.zz, p.xy, p.xz, p.yz};
  const char* names[6] = {"pxx", "pyy", "pzz", "pxy", "pxz", "pyz"};
  double scale = 0, worst = 0;
  for (int c = 0; c < 6; ++c) scale = std::max(scale, std::abs(ref[names[c]][0]));
  for (int c = 0; c < 6; ++c) {
    INFO(names[c] << ": " << mine[c] << " vs LAMMPS " << ref[names[c]][0]);
    CHECK(std::abs(mine[c] - ref[names[c]][0]) <= 1e-10 * scale);
    worst = std::max(worst, std::abs(mine[c] - ref[names[c]][0]) / scale);
  }
  CHECK(std::abs(ref["pxy"][0]) > 1e-4 * scale);  // an off-diagonal part to get right
  fmt::print("pressure tensor vs LAMMPS: worst {:.3g} of the largest component\n", worst);
}

TEST_CASE("the pressure tensor of LAMMPS melts agrees to 1e-10", "[lammps][virial]") {
  for (const Case& c : {kMorse, kMix}) {
    INFO(c.name);
    auto ref = test::read_csv(reference(c.name + "_tensor_run0.csv"));
    Simulation sim(test::deck_from(deck_yaml(c.data + "_melt.data", c.potential_yaml, 2)));
    // Not asked for: no tensor, and saying so.
    sim.setup();
    CHECK_THROWS_WITH(sim.pressure_tensor(), Catch::Contains("without the virial tensor"));
    Simulation asked(test::deck_from(deck_yaml(c.data + "_melt.data", c.potential_yaml, 2)));
    asked.set_virial_tensor(true);
    asked.setup();
    check_tensor(asked.pressure_tensor(), ref);
    // Asking changes nothing else: the scalar thermo is the same bits.
    CHECK(asked.thermo().press == sim.thermo().press);
    CHECK(asked.thermo().pe == sim.thermo().pe);
    // A step later the tensor is that step's: its trace is 3 x the scalar
    // pressure to rounding (the scalar sums r.f in one term per pair).
    asked.run(1, nullptr);
    const PressureTensor p = asked.pressure_tensor();
    CHECK((p.xx + p.yy + p.zz) / 3 == Approx(asked.thermo().press).epsilon(1e-12));
  }
}

TEST_CASE("1000 NVE steps from a LAMMPS data file follow LAMMPS", "[lammps]") {
  for (const Case& c : {kLJ, kLJSmooth, kMorse}) {
    INFO(c.name);
    const auto ref = test::read_csv(reference(c.name + "_nve_1000.csv"));
    REQUIRE(ref.at("step").size() == 1001);
    Simulation sim(test::deck_from(deck_yaml(c.data + "_melt.data", c.potential_yaml, 1000)));
    sim.setup();
    std::vector<ThermoValues> ours{sim.thermo()};
    for (int s = 0; s < 1000; ++s) {
      sim.run(1, nullptr);
      ours.push_back(sim.thermo());
    }
    double worst_early = 0, worst_e = 0, t_ours = 0, t_ref = 0;
    for (int s = 0; s <= 1000; ++s) {
      const double de = std::abs(ours[s].etotal - ref.at("etotal")[s]);
      if (s <= 100) worst_early = std::max(worst_early, de);
      worst_e = std::max(worst_e, de);
      if (s >= 500) {
        t_ours += ours[s].temp;
        t_ref += ref.at("temp")[s];
      }
    }
    // Early on the two trajectories are the same to rounding; later they
    // part (chaos) but must stay on the same energy shell and temperature.
    CHECK(worst_early <= 1e-8);
    record_figure("etotal_100." + c.name, worst_early);
    CHECK(worst_e <= 5e-3);
    CHECK(t_ours / t_ref == Approx(1.0).epsilon(0.03));
    CHECK(std::abs(ours[1000].etotal - ours[0].etotal) < 5e-3);
  }
}
