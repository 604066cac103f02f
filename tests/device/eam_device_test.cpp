// EAM on the device pipeline (issue 30; kernels/device/eam_forces.hpp):
// the melts LAMMPS wrote for the EAM references (Cu_u3.eam funcfl,
// CuNi.eam.alloy setfl, AlFe_mm.eam.fs Finnis-Sinclair) run through
// Simulation on the device engine against the CPU backend: forces per atom
// and the pressure tensor to 1e-12 at step 0, thermo over 20 NVE steps to
// 1e-10 (F' reaches the periodic images between the passes); precision:
// mixed within 1e-5 of double; the cluster layout is refused naming the key.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.hpp"
#include "device_compare.hpp"
#include "device_twin.hpp"
#include "device_vs_cpu.hpp"

using namespace tessera;
using namespace tessera::test;

namespace {

const std::string kPotentials = "/usr/share/lammps/potentials/";

struct EamCase {
  const char* name;  // of tests/reference/<name>_melt.data
  std::string potential;
};

const EamCase kEamCases[] = {
    {"cu_eam", "{style: eam, file: " + kPotentials + "Cu_u3.eam}"},
    {"cuni_eam", "{style: eam/alloy, file: " + kPotentials + "CuNi.eam.alloy, elements: [Cu, Ni]}"},
    {"alfe_eam", "{style: eam/fs, file: " + kPotentials + "AlFe_mm.eam.fs, elements: [Al, Fe]}"},
};

std::string eam_deck(const EamCase& c, const std::string& layout = "rows") {
  return "units: metal\nsystem: {read_data: " + reference(std::string(c.name) + "_melt.data") +
         "}\npotential: " + c.potential + "\nneighbor: {skin: 1.0, layout: " + layout +
         "}\nintegrator: {style: nve, dt: 0.001}\nrun: {steps: 0}\n";
}

}  // namespace

TEST_CASE("EAM on the device: forces, pressure tensor and 20 NVE steps equal the CPU's", "[device][eam]") {
  for (const EamCase& c : kEamCases) {
    INFO(c.name);
    check_device_follows_cpu(eam_deck(c), 1.0);  // a melt, in eV/A
  }
}

TEST_CASE("EAM on the device in mixed precision: forces within 1e-5 of double", "[device][eam][mixed]") {
  for (const EamCase& c : kEamCases) {
    INFO(c.name);
    auto dbl = device_simulation(eam_deck(c));
    auto mix = device_simulation(eam_deck(c) + "precision: mixed\n");
    dbl->setup();
    mix->setup();
    const double err = max_force_error(mix->atoms(), dbl->atoms());
    INFO("worst relative force difference " << err);
    CHECK(err <= 1e-5);
    CHECK(err > 1e-12);  // the float path ran
    CHECK(rel_diff(mix->thermo().pe, dbl->thermo().pe) <= 1e-6);
  }
}

TEST_CASE("EAM with neighbor.layout clusters is refused on the device, naming the key", "[device][eam]") {
  Simulation sim(deck_from(eam_deck(kEamCases[1], "clusters")));
  try {
    sim.use_device(device::make_pipeline_engine(sim, "clusters", compute_stream(), halo_stream()));
    FAIL("the device engine accepted EAM with the cluster layout");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("neighbor.layout") != std::string::npos);
    CHECK(std::string(e.what()).find("eam/alloy") != std::string::npos);
  }
}
