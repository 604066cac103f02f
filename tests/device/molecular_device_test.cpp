// Molecules on the device pipeline (issue 29; kernels/device/bonded_forces.hpp):
// LAMMPS's two-type molecular melt (tests/reference/mol_melt.data: harmonic
// bonds and angles, special_bonds lj 0 0.5 0.8, so 1-2 pairs leave the list
// and 1-3, 1-4 pairs are corrected) run through Simulation on the device
// engine against the CPU backend: forces per atom to 1e-12 relative at
// step 0, thermo over 20 NVE steps to 1e-10, the pressure tensor to 1e-12;
// precision: mixed within 1e-5 of double on the forces; fully excluded
// specials (lj 0 0 0); a broken FENE bond stops the run with the CPU's
// message; the cluster layout is refused, naming the key.
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

TEST_CASE("Molecules with neighbor.layout clusters are refused on the device, naming the key", "[device][molecular]") {
  Simulation sim(deck_from(mol_deck("{lj: [0, 0.5, 0.8]}", "clusters")));
  try {
    sim.use_device(device::make_pipeline_engine(sim, "clusters", compute_stream(), halo_stream()));
    FAIL("use_device accepted a molecular system with the cluster layout");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("neighbor.layout") != std::string::npos);
  }
}
