// Molecules on the device pipeline (issue 29; kernels/device/bonded_forces.hpp):
// LAMMPS's two-type molecular melt (tests/reference/mol_melt.data: harmonic
// bonds and angles, special_bonds lj 0 0.5 0.8, so 1-2 pairs leave the list
// and 1-3, 1-4 pairs are corrected) run through Simulation on the device
// engine against the CPU backend: forces per atom to 1e-12 relative at
// step 0, thermo over 20 NVE steps to 1e-10, the pressure tensor to 1e-12;
// precision: mixed within 1e-5 of double on the forces; fully excluded
// specials (lj 0 0 0); a broken FENE bond stops the run with the CPU's
// message, at setup and (read later, with the guard) during a run; the
// pair style overlaps the ghost refresh, the bonded forces follow it; a
// FENE bond clamped as LAMMPS clamps it is warned about in the CPU's
// words; the cluster layout, which skips factor-0 partners in its pair
// loop, follows the CPU as the rows do.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>

#include "core/error.hpp"
#include "device_compare.hpp"
#include "device_twin.hpp"
#include "device_vs_cpu.hpp"
#include "molecular_decks.hpp"
#include "stderr_capture.hpp"

using namespace tessera;
using namespace tessera::test;

namespace {

std::string mol_deck(const std::string& special = "{lj: [0, 0.5, 0.8]}", const std::string& layout = "rows",
                     const std::string& data = reference("mol_melt.data")) {
  return "system: {read_data: " + data + "}\n" + mol_model(kHarmonic, special, ", layout: " + layout) +
         "run: {steps: 0}\n";
}

}  // namespace

TEST_CASE("Molecules on the device: forces, pressure tensor and 20 NVE steps equal the CPU's", "[device][molecular]") {
  for (const char* special : {"{lj: [0, 0.5, 0.8]}", "{lj: [0, 0, 0]}"}) {
    INFO("special_bonds " << special);
    check_device_follows_cpu(mol_deck(special), 10.0);
  }
}

TEST_CASE("Molecules on the device in mixed precision: forces within 1e-5 of double", "[device][molecular][mixed]") {
  auto dbl = device_simulation(mol_deck());
  auto mix = device_simulation(mol_deck() + "precision: mixed\n");
  dbl->setup();
  mix->setup();
  const double err = max_force_error(mix->atoms(), dbl->atoms());
  INFO("worst relative force difference " << err);
  CHECK(err <= 1e-5);
  CHECK(err > 1e-12);  // the float path ran
}

TEST_CASE("A broken FENE bond stops a device run with the CPU's message", "[device][molecular]") {
  Scratch dir("device-mol-fene");
  const std::string data = (dir.dir / "pair.data").string();
  std::ofstream(data) << "two beads\n\n3 atoms\n1 atom types\n2 bonds\n1 bond types\n0 10 xlo xhi\n0 10 ylo yhi\n"
                         "0 10 zlo zhi\n\nMasses\n\n1 1.0\n\nAtoms # bond\n\n1 1 1 2.0 5 5\n2 1 1 3.4 5 5\n"
                         "3 1 1 4.92 5 5\n\nBonds\n\n1 1 1 2\n2 1 2 3\n";
  const std::string yaml = "system:\n  read_data: " + data +
                           "\npotential:\n  style: lj/cut\n  cutoff: 1.122462048309373\n  shift: true\n  coeffs:\n"
                           "    - {types: [1, 1], epsilon: 1.0, sigma: 1.0}\n"
                           "bonds: {style: fene, coeffs: [{type: 1, K: 30, R0: 1.5, epsilon: 1, sigma: 1}]}\n"
                           "special_bonds: fene\nintegrator: {style: nve, dt: 0.005}\nrun: {steps: 1}\n";
  auto stop_message = [](Simulation& sim) {
    try {
      sim.setup();
    } catch (const SimulationError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  Simulation cpu(deck_from(yaml));
  const std::string cpu_why = stop_message(cpu);
  auto dev = device_simulation(yaml);
  const std::string dev_why = stop_message(*dev);
  INFO("cpu: " << cpu_why);
  CHECK(cpu_why.find("atoms 2 and 3") != std::string::npos);  // the first atom with a broken bond, by index
  CHECK(cpu_why.find("1.52") != std::string::npos);
  CHECK(dev_why == cpu_why);
}

namespace {

// Two beads, FENE-bonded (K 30, R0 1.5, WCA), `r` apart and moving apart at
// `v` each, in a 10^3 box; checks every 10 steps.
std::string fene_pair_deck(const std::string& dir, double r, double v, double dt) {
  const std::string data = dir + "/fene-pair.data";
  std::ofstream(data) << fmt::format(
      "two beads\n\n2 atoms\n1 atom types\n1 bonds\n1 bond types\n0 10 xlo xhi\n0 10 ylo yhi\n"
      "0 10 zlo zhi\n\nMasses\n\n1 1.0\n\nAtoms # bond\n\n1 1 1 {} 5 5\n2 1 1 {} 5 5\n\n"
      "Velocities\n\n1 {} 0 0\n2 {} 0 0\n\nBonds\n\n1 1 1 2\n",
      5 - r / 2, 5 + r / 2, -v, v);
  return "system:\n  read_data: " + data +
         "\npotential:\n  style: lj/cut\n  cutoff: 1.122462048309373\n  shift: true\n  coeffs:\n"
         "    - {types: [1, 1], epsilon: 1.0, sigma: 1.0}\n"
         "bonds: {style: fene, coeffs: [{type: 1, K: 30, R0: 1.5, epsilon: 1, sigma: 1}]}\n"
         "special_bonds: fene\nneighbor: {skin: 0.3, every: 10, check: false, ghost_cutoff: 2.0}\n"
         "integrator: {style: nve, dt: " + fmt::format("{}", dt) + "}\nrun: {steps: 0}\n";
}

std::string run_stop_message(Simulation& sim, long steps) {
  try {
    sim.setup();
    sim.run(steps, nullptr);
  } catch (const SimulationError& e) {
    return e.what();
  }
  return {};
}

}  // namespace

TEST_CASE("A FENE bond that breaks between the device's reads stops the run at the step it broke",
          "[device][molecular][guards]") {
  // The beads fly apart at 2 x 20: the bond passes R0 within two steps; the
  // device reads its checks with the guard's, every 10 steps here, and must
  // still name the step and the length the CPU names.
  Scratch dir("device-mol-fene-run");
  const std::string yaml = fene_pair_deck(dir.dir.string(), 1.3, 20, 0.005);
  Simulation cpu(deck_from(yaml));
  const std::string cpu_why = run_stop_message(cpu, 30);
  auto dev = device_simulation(yaml);
  const std::string dev_why = run_stop_message(*dev, 30);
  INFO("cpu: " << cpu_why);
  INFO("device: " << dev_why);
  REQUIRE(cpu_why.rfind("step ", 0) == 0);
  CHECK(cpu_why.find("is broken") != std::string::npos);
  CHECK(dev_why == cpu_why);
  CHECK(dev->step() == 10);  // found at the read, not at the step named
  CHECK(cpu.step() < 10);
}

TEST_CASE("A FENE bond past sqrt(0.9) R0 is clamped and warned about, in the CPU's words", "[device][molecular]") {
  // 1.45 = 0.967 R0: clamped (LAMMPS: 1 - (r/R0)^2 < 0.1). A time step this
  // short keeps it there for the 5 steps: the CPU warns at each step, the
  // device at each read (setup, then the end of the run) with a count.
  Scratch dir("device-mol-fene-clamp");
  const std::string yaml = fene_pair_deck(dir.dir.string(), 1.45, 0, 1e-6);
  Simulation cpu(deck_from(yaml));
  const std::string on_cpu = captured_stderr([&] {
    cpu.setup();
    cpu.run(5, nullptr);
  });
  auto dev = device_simulation(yaml);
  const std::string on_dev = captured_stderr([&] {
    dev->setup();
    dev->run(5, nullptr);
  });
  INFO("cpu:\n" << on_cpu);
  INFO("device:\n" << on_dev);
  const std::string first =
      "tessera: warning: step 0: the fene bond between atoms 1 and 2 (type 1) is too long: length 1.45";
  CHECK(on_cpu.rfind(first, 0) == 0);
  CHECK(on_dev.rfind(first, 0) == 0);
  CHECK(std::count(on_cpu.begin(), on_cpu.end(), '\n') == 6);  // steps 0 to 5
  CHECK(on_cpu.find("tessera: warning: step 5: ") != std::string::npos);
  CHECK(std::count(on_dev.begin(), on_dev.end(), '\n') == 2);
  CHECK(on_dev.find("tessera: warning: step 1: the fene bond between atoms 1 and 2") != std::string::npos);
  CHECK(on_dev.find("bonds were too long at 4 more steps, up to step 5") != std::string::npos);
  // The clamp is LAMMPS's: E = -0.5 K R0^2 ln(0.1) + the WCA part (zero at 1.45).
  CHECK(std::abs(cpu.thermo().pe * 2 - (-0.5 * 30 * 2.25 * std::log(0.1))) < 1e-6);
}

TEST_CASE("Molecules overlap the ghost refresh: the pair style runs split, bonded forces after, bit for bit",
          "[device][molecular][overlap]") {
  // The pair style splits into inner and outer atoms around the refresh;
  // bonds, angles and the special-pair correction read partners their list
  // does not name, so they follow, over all atoms. Each atom takes its
  // forces in list order either way: the sums are the unsplit ones.
  Twin<LJCut> t(mol_deck());
  REQUIRE(t.sim.forces().size() == 4);  // lj/cut, bonds, angles, the 0.5 / 0.8 correction
  CHECK(t.dev.split_forces() == 1);
  t.rebuild();
  t.drift(0.02);
  t.dev.refresh_ghosts_and_compute(/*split=*/true);
  const AtomStore split = t.device_atoms();
  t.dev.compute_forces();
  const AtomStore again = t.device_atoms();
  CHECK(same_sums(split, again));
  // And the bonded forces ran: the split sums are not the pair style's alone.
  t.cpu.refresh_ghosts();
  t.cpu.compute_forces();
  CHECK(max_force_error(split, t.cpu.atoms) > 1e-3);
}

TEST_CASE("Molecules on the device's cluster list: the pair loop skips factor-0 partners, as the CPU's list",
          "[device][molecular][clusters]") {
  // A cluster pair's mask is its i cluster's, so the excluded 1-2 pairs
  // (a bond's two atoms, about 1 apart) sit inside it: summed, they would
  // put the bonds' LJ into the forces, far beyond these tolerances.
  for (const char* special : {"{lj: [0, 0.5, 0.8]}", "{lj: [0, 0, 0]}"}) {
    INFO("special_bonds " << special);
    check_device_follows_cpu(mol_deck(special, "clusters"), 10.0);
  }
}
