#pragma once
// One system in both engines: the CPU reference (cpu_reference.hpp) and the
// device pipeline, fed the same atoms from one deck. The cases are disordered
// on purpose (melts written by LAMMPS, a random two-type gas), so that no
// symmetry hides a wrong neighbour or a wrong sign.
#include <fmt/format.h>

#include <catch2/catch.hpp>

#include <memory>
#include <random>
#include <string>

#include "cpu_reference.hpp"
#include "device/device_atom_ops.hpp"
#include "device/force_pipeline.hpp"
#include "device/device_system.hpp"
#include "integrate/cpu_atom_ops.hpp"
#include "potentials/lj_cut.hpp"
#include "potentials/lj_smooth_linear.hpp"
#include "potentials/morse.hpp"
#include "potentials/pair_style_impl.hpp"
#include "test_support.hpp"
#include "test_streams.hpp"

namespace tessera::test {

inline std::string melt_deck(const std::string& name, const std::string& potential,
                             const std::string& layout = "rows") {
  return "system: {read_data: " + reference(name + "_melt.data") + "}\npotential:" + potential +
         "neighbor: {skin: 0.3, layout: " + layout + "}\nintegrator: {style: nve, dt: 0.005}\nrun: {steps: 0}\n";
}

inline const std::string kLJPotential = R"(
  style: lj/cut
  cutoff: 2.5
  coeffs:
    - {types: [1, 1], epsilon: 1.0, sigma: 1.0}
)";
inline const std::string kLJSmoothPotential = R"(
  style: lj/smooth/linear
  cutoff: 2.5
  coeffs:
    - {types: [1, 1], epsilon: 1.0, sigma: 1.0}
)";
inline const std::string kMorsePotential = R"(
  style: morse
  cutoff: 2.5
  coeffs:
    - {types: [1, 1], d0: 1.0, alpha: 3.0, r0: 1.2}
)";
// Unlike pairs from Lorentz-Berthelot mixing; a longer 2-2 cutoff than 1-1.
inline const std::string kMixPotential = R"(
  style: lj/cut
  cutoff: 2.5
  coeffs:
    - {types: [1, 1], epsilon: 1.0, sigma: 1.0}
    - {types: [2, 2], epsilon: 0.5, sigma: 1.2}
)";

// A LAMMPS data file of n atoms of two types at uniform random positions in
// a box of unequal sides (some cells empty, some crowded), for a Morse
// mixture, whose forces stay finite at any distance.
inline std::string random_gas_deck(const Scratch& dir, int n, const std::string& layout = "rows") {
  std::mt19937_64 rng(20261123);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const double len[3] = {7.3, 8.9, 10.1};
  std::string data = fmt::format(
      "random two-type gas\n\n{} atoms\n2 atom types\n\n0 {} xlo xhi\n0 {} ylo yhi\n0 {} zlo zhi\n\n"
      "Masses\n\n1 1.0\n2 2.5\n\nAtoms # atomic\n\n",
      n, len[0], len[1], len[2]);
  for (int i = 1; i <= n; ++i)
    data += fmt::format("{} {} {:.17g} {:.17g} {:.17g}\n", i, 1 + (i % 3 == 0), len[0] * u(rng), len[1] * u(rng),
                        len[2] * u(rng));
  const auto path = dir.dir / "gas.data";
  std::ofstream(path) << data;
  return "system: {read_data: " + path.string() + R"(}
potential:
  style: morse
  cutoff: 2.2
  coeffs:
    - {types: [1, 1], d0: 1.0, alpha: 3.0, r0: 1.2}
    - {types: [2, 2], d0: 0.6, alpha: 2.0, r0: 1.5, cutoff: 2.6}
neighbor: {skin: 0.4, layout: )" + layout + R"(}
integrator: {style: nve, dt: 0.005}
run: {steps: 0}
)";
}

// Velocities of order one that differ per atom, so that a drift moves atoms
// by different amounts in every direction, some across the box faces.
inline void give_velocities(AtomStore& a) {
  for (std::size_t i = 0; i < a.nlocal; ++i) {
    a.vx[i] = 1.5 * std::sin(12.9898 * a.id[i]);
    a.vy[i] = 1.5 * std::sin(78.233 * a.id[i]);
    a.vz[i] = 1.5 * std::sin(37.719 * a.id[i]);
  }
}

// The device twins of sim's forces (the device pipeline's list).
inline device::DeviceForces device_forces_of(const Simulation& sim) {
  return device::device_forces(sim.forces(), sim.atoms().ntypes, compute_stream());
}

// A Simulation on the device engine built for Thrust's OpenMP system: the
// path `backend: cuda` takes (Simulation::use_device), without a GPU.
inline std::unique_ptr<Simulation> device_simulation(const std::string& deck_yaml) {
  auto sim = std::make_unique<Simulation>(deck_from(deck_yaml));
  sim->use_device(device::make_pipeline_engine(*sim, "device engine (tests)", compute_stream(), halo_stream()));
  return sim;
}

template <class Pot>
struct Twin {
  explicit Twin(const std::string& deck_yaml, int initial_stride = 0)
      : sim(deck_from(deck_yaml)),
        cpu(sim),
        dev(sim.sub_domain(), sim.reach(), device_forces_of(sim),
            {true, initial_stride, false, sim.deck().neighbor.layout == "clusters"}, compute_stream(), halo_stream()) {
    give_velocities(cpu.atoms);
    dev.upload(cpu.atoms);
  }

  void rebuild() {
    cpu.rebuild();
    dev.rebuild();
  }
  void refresh_ghosts() {
    cpu.refresh_ghosts();
    dev.refresh_ghosts();
  }
  void compute_forces() {
    cpu.compute_forces();
    dev.compute_forces();
  }
  // x += dt v on both sides, with the integrator's own atom operations.
  void drift(double dt) {
    CpuAtomOps(cpu.atoms).drift(dt);
    device::DeviceAtomOps(dev.atoms(), dev.stream()).drift(dt);
  }
  // The device state, copied to the host.
  AtomStore device_atoms() const {
    AtomStore a;
    dev.download(a);
    return a;
  }

  Simulation sim;
  CpuReference cpu;
  device::DeviceForcePipeline dev;
};

// Runs f(Twin<Pot>&) on every case: LJ, force-shifted LJ, Morse and a
// two-type LJ mixture on LAMMPS melts, and a random two-type Morse gas.
template <class F>
void for_each_case(F&& f, int initial_stride = 0, const std::string& layout = "rows") {
  {
    INFO("lj melt");
    Twin<LJCut> t(melt_deck("lj", kLJPotential, layout), initial_stride);
    f(t, "lj");
  }
  {
    INFO("lj melt, lj/smooth/linear");
    Twin<LJSmoothLinear> t(melt_deck("lj", kLJSmoothPotential, layout), initial_stride);
    f(t, "lj_smooth");
  }
  {
    INFO("morse melt");
    Twin<Morse> t(melt_deck("morse", kMorsePotential, layout), initial_stride);
    f(t, "morse");
  }
  {
    INFO("two-type lj melt");
    Twin<LJCut> t(melt_deck("mix", kMixPotential, layout), initial_stride);
    f(t, "mix");
  }
  {
    INFO("random two-type morse gas");
    Scratch dir("device-gas");
    Twin<Morse> t(random_gas_deck(dir, 600, layout), initial_stride);
    f(t, "gas");
  }
}

}  // namespace tessera::test
