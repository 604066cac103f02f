// Simulation::run on the device engine (Thrust's OpenMP system, the path of
// `backend: cuda`) against Simulation::run on the CPU, 100 steps of the
// 2048-atom LAMMPS LJ melt for each integrator: thermo at every thermo step,
// the steps that rebuild the list, and the blow-up guard's stop. Both run the
// same loop, integrator and rules; the device differs in summation order
// only, so the thermo agrees to rounding, not bitwise.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "device_twin.hpp"
#include "integrate/cpu_atom_ops.hpp"
#include "integrate/step_sequence.hpp"

using namespace tessera;
using namespace tessera::test;

namespace {

constexpr long kSteps = 100;

std::string stepper_deck(const std::string& integrator, const std::string& neighbor) {
  return "system: {read_data: " + reference("lj_melt.data") + "}\npotential:" + kLJPotential + "neighbor: " + neighbor +
         "\nintegrator: " + integrator + "\noutput: {thermo: {every: 5}}\nrun: {steps: 0}\n";
}

// What a run shows: thermo at its thermo steps and the steps that rebuilt.
struct Trace {
  std::vector<ThermoValues> thermo;
  std::vector<long> rebuilds;
};

// Thermo at the thermo steps and the steps that rebuilt, on either backend.
class TraceHook : public StepHook {
 public:
  // `sim` is set up and about to run to step `last`.
  TraceHook(Trace& t, const Simulation& sim, long last) : t_(t), builds_(sim.neighbor_builds()), last_(last) {}
  bool after_step(const Simulation& sim, bool) override {
    if (sim.neighbor_builds() != builds_) t_.rebuilds.push_back(sim.step());
    builds_ = sim.neighbor_builds();
    if (thermo_due(sim.step(), sim.deck().thermo.every, last_)) t_.thermo.push_back(sim.thermo());
    return true;
  }

 private:
  Trace& t_;
  long builds_;
  long last_;
};

struct Runs {
  Trace cpu, dev;
};

void trace_run(Simulation& sim, Trace& t, long steps) {
  sim.setup();
  t.thermo.push_back(sim.thermo());
  TraceHook hook(t, sim, sim.step() + steps);
  sim.run(steps, nullptr, &hook);
}

// The same deck on both backends.
Runs run_both(const std::string& deck_yaml, long steps = kSteps) {
  Runs r;
  auto dev = device_simulation(deck_yaml);
  REQUIRE(dev->on_device());
  trace_run(*dev, r.dev, steps);
  Simulation cpu(deck_from(deck_yaml));
  REQUIRE(!cpu.on_device());
  trace_run(cpu, r.cpu, steps);
  return r;
}

// The largest relative difference over every thermo quantity and step.
double max_thermo_diff(const Runs& r, bool econserve) {
  REQUIRE(r.dev.thermo.size() == r.cpu.thermo.size());
  double worst = 0;
  for (std::size_t k = 0; k < r.cpu.thermo.size(); ++k) {
    const ThermoValues &c = r.cpu.thermo[k], &d = r.dev.thermo[k];
    REQUIRE(c.step == d.step);
    for (double diff : {rel_diff(c.temp, d.temp), rel_diff(c.pe, d.pe), rel_diff(c.ke, d.ke),
                        rel_diff(c.etotal, d.etotal), rel_diff(c.press, d.press)})
      worst = std::max(worst, diff);
    if (econserve) worst = std::max(worst, rel_diff(c.econserve, d.econserve));
  }
  return worst;
}

void check_integrator(const std::string& name, const std::string& integrator, const std::string& neighbor) {
  INFO(name << ": " << integrator << ", neighbor " << neighbor);
  const Runs r = run_both(stepper_deck(integrator, neighbor));
  const bool nh = name == "nose-hoover";
  const double worst = max_thermo_diff(r, nh);
  // Thermo at steps 0, 5, ..., 100.
  CHECK(r.cpu.thermo.size() == 21);
  CHECK(r.dev.rebuilds == r.cpu.rebuilds);
  CHECK(r.cpu.rebuilds.size() >= 3);
  CHECK(worst <= 1e-10);
  if (nh) {
    // The chain did work: the conserved quantity differs from etotal.
    const ThermoValues& end = r.dev.thermo.back();
    CHECK(std::abs(end.econserve - end.etotal) > 1e-3);
  }
  fmt::print(
      "device_omp simulation {}, {} steps: rebuilds at {} (CPU the same: {}), max relative thermo difference {:.3g}\n",
      name, kSteps, fmt::join(r.dev.rebuilds, " "), r.dev.rebuilds == r.cpu.rebuilds, worst);
}

}  // namespace

TEST_CASE("Simulation::run on the device follows the CPU for every integrator", "[device][stepper]") {
  SECTION("nve, check every step") { check_integrator("nve", "{style: nve, dt: 0.005}", "{skin: 0.3}"); }
  SECTION("langevin, every 2 after a delay of 4") {
    check_integrator("langevin", "{style: langevin, dt: 0.005, temperature: 1.5, damping: 0.5, seed: 4242}",
                     "{skin: 0.3, every: 2, delay: 4}");
  }
  SECTION("nose-hoover, every 7 without the check") {
    check_integrator("nose-hoover", "{style: nose-hoover, dt: 0.005, temperature: 1.5, damping: 0.2, chain: 3}",
                     "{skin: 0.3, every: 7, check: false}");
  }
}

TEST_CASE("Langevin forces on the device are the CPU's, bit for bit", "[device][stepper]") {
  // Through Integrator::post_force on both backends: the same functor, keyed
  // by seed, step and id. Forces start at zero, so only the friction and the
  // noise are compared.
  Simulation sim(deck_from(
      stepper_deck("{style: langevin, dt: 0.005, temperature: 1.5, damping: 0.5, seed: 4242}", "{skin: 0.3}")));
  AtomStore cpu = sim.atoms();
  give_velocities(cpu);
  std::fill(cpu.fx.begin(), cpu.fx.end(), 0.0);
  std::fill(cpu.fy.begin(), cpu.fy.end(), 0.0);
  std::fill(cpu.fz.begin(), cpu.fz.end(), 0.0);
  device::DeviceAtoms dev;
  device::upload_atoms(compute_stream(), cpu, dev);
  Integrator integrator(sim.deck().integrator, sim.units(), sim.natoms());
  CpuAtomOps cpu_ops(cpu);
  device::DeviceAtomOps dev_ops(dev, compute_stream());
  integrator.post_force(cpu_ops, 17);
  integrator.post_force(dev_ops, 17);
  AtomStore back;
  device::download_atoms(compute_stream(), dev, back);
  long differ = 0;
  for (std::size_t i = 0; i < cpu.nlocal; ++i)
    differ += back.fx[i] != cpu.fx[i] || back.fy[i] != cpu.fy[i] || back.fz[i] != cpu.fz[i];
  CHECK(differ == 0);
  CHECK(cpu.fx[0] != 0.0);
}

TEST_CASE("The device guard stops a run whose time step is too large, as the CPU does", "[device][stepper]") {
  const std::string deck = stepper_deck("{style: nve, dt: 0.03}", "{skin: 0.3}");
  std::string cpu_error, dev_error;
  {
    Simulation sim(deck_from(deck));
    try {
      sim.run(kSteps, nullptr);
    } catch (const SimulationError& e) {
      cpu_error = e.what();
    }
  }
  {
    auto sim = device_simulation(deck);
    try {
      sim->run(kSteps, nullptr);
    } catch (const SimulationError& e) {
      dev_error = e.what();
    }
  }
  INFO("CPU: " << cpu_error);
  INFO("device: " << dev_error);
  REQUIRE(!cpu_error.empty());
  CHECK(dev_error == cpu_error);
  CHECK(dev_error.find("atom ") != std::string::npos);
  CHECK(dev_error.rfind("step ", 0) == 0);
  fmt::print("device_omp simulation guard: {}\n", dev_error);
}
