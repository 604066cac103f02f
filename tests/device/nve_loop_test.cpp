// The device pipeline driving NVE dynamics: the step of Simulation::run
// (half kick, drift, rebuild when an atom moved more than half the skin or
// else refresh the ghosts, forces, half kick) written out over the device
// arrays with the integrator's own functors, against the engine itself.
// The loop lives here until the CUDA backend has its own (issue 3).
#include <catch2/catch.hpp>

#include "device_compare.hpp"
#include "device_twin.hpp"

using namespace tessera;
using namespace tessera::test;

namespace {

template <class Pot>
void half_kick(device::DeviceForcePipeline<Pot>& p, double dt) {
  device::DeviceAtoms& a = p.atoms();
  using device::raw;
  device::for_each_index(p.stream(), a.nlocal,
                         HalfKick{0.5 * dt, raw(a.type), raw(a.mass_of_type), raw(a.fx), raw(a.fy), raw(a.fz),
                                  raw(a.vx), raw(a.vy), raw(a.vz)});
}

// Runs `steps` NVE steps on the device; returns the number of rebuilds.
template <class Pot>
long device_nve(device::DeviceForcePipeline<Pot>& p, double dt, double skin, long steps) {
  device::DeviceAtoms& a = p.atoms();
  using device::raw;
  long rebuilds = 0;
  for (long s = 0; s < steps; ++s) {
    half_kick(p, dt);
    device::for_each_index(p.stream(), a.nlocal,
                           Drift{dt, raw(a.vx), raw(a.vy), raw(a.vz), raw(a.x), raw(a.y), raw(a.z)});
    if (p.moved_too_far(skin)) {
      p.rebuild();
      ++rebuilds;
    } else {
      p.refresh_ghosts();
    }
    p.compute_forces();
    half_kick(p, dt);
  }
  return rebuilds;
}

// The largest difference in position between the two, matched by id.
double max_position_diff(const AtomStore& a, const AtomStore& b) {
  const auto slot = local_slots(b);
  double worst = 0;
  for (std::size_t i = 0; i < a.nlocal; ++i) {
    const std::size_t j = slot.at(a.id[i]);
    worst = std::max({worst, std::abs(a.x[i] - b.x[j]), std::abs(a.y[i] - b.y[j]), std::abs(a.z[i] - b.z[j])});
  }
  return worst;
}

template <class Pot>
void check_nve(const std::string& name, const std::string& potential) {
  INFO(name);
  constexpr long kSteps = 100;
  Simulation sim(deck_from(melt_deck(name, potential)));
  device::DeviceForcePipeline<Pot> dev(sim.sub_domain(), sim.reach(), sim.atoms().ntypes, params_of<Pot>(sim), {});
  dev.upload(sim.atoms());  // the state the deck made, before the CPU's setup touches it
  dev.rebuild();
  dev.compute_forces();
  sim.setup();
  const long cpu_builds_before = sim.neighbor_list().builds;
  const long rebuilds = device_nve(dev, sim.deck().integrator.dt, sim.deck().neighbor.skin, kSteps);
  sim.run(kSteps, nullptr);
  AtomStore d;
  dev.download(d);
  const double dx = max_position_diff(d, sim.atoms());
  const double df = max_force_error(d, sim.atoms());
  const device::DeviceSums s = dev.sums();
  const ThermoValues cpu = sim.thermo();
  const double n = static_cast<double>(d.nlocal);
  // Both engines rebuild on the same steps: the displacement test saw the same numbers.
  CHECK(rebuilds == sim.neighbor_list().builds - cpu_builds_before);
  CHECK(rebuilds >= 2);
  CHECK(dx <= 1e-11);
  CHECK(df <= 1e-9);
  CHECK(rel_diff(s.pe / n, cpu.pe) <= 1e-12);
  CHECK(rel_diff(0.5 * s.mv2 / n, cpu.ke) <= 1e-12);
  fmt::print(
      "device_omp {} NVE, {} steps: {} rebuilds, max position difference {:.3g}, max relative force error {:.3g}\n",
      name, kSteps, rebuilds, dx, df);
}

}  // namespace

TEST_CASE("NVE steps on the device follow the engine's own run", "[device]") {
  check_nve<LJCut>("lj", kLJPotential);
  check_nve<Morse>("morse", kMorsePotential);
  check_nve<LJCut>("mix", kMixPotential);
}
