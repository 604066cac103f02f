// NVE through Simulation on the device engine (Thrust's OpenMP system) for
// each potential, against the CPU backend: positions and forces by id after
// 100 steps, and the number of rebuilds. stepper_test.cpp compares the
// thermo of every integrator step by step.
#include <catch2/catch.hpp>

#include "device_compare.hpp"
#include "device_twin.hpp"

using namespace tessera;
using namespace tessera::test;

namespace {

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
void check_nve(const std::string& name, const std::string& potential, const std::string& melt = "") {
  INFO(name);
  constexpr long kSteps = 100;
  const std::string deck = melt_deck(melt.empty() ? name : melt, potential);
  auto dev = device_simulation(deck);
  dev->setup();
  const long dev_builds_before = dev->neighbor_builds();
  dev->run(kSteps, nullptr);
  const long rebuilds = dev->neighbor_builds() - dev_builds_before;
  Simulation sim(deck_from(deck));
  sim.setup();
  const long cpu_builds_before = sim.neighbor_list().builds;
  sim.run(kSteps, nullptr);
  const ThermoValues s = dev->thermo();
  const AtomStore& d = dev->atoms();  // device -> host
  const double dx = max_position_diff(d, sim.atoms());
  const double df = max_force_error(d, sim.atoms());
  const ThermoValues cpu = sim.thermo();
  // Both engines rebuild on the same steps: the displacement test saw the same numbers.
  CHECK(rebuilds == sim.neighbor_list().builds - cpu_builds_before);
  CHECK(rebuilds >= 2);
  CHECK(dx <= 1e-11);
  CHECK(df <= 1e-9);
  CHECK(rel_diff(s.pe, cpu.pe) <= 1e-12);
  CHECK(rel_diff(s.ke, cpu.ke) <= 1e-12);
  fmt::print(
      "device_omp {} NVE, {} steps: {} rebuilds, max position difference {:.3g}, max relative force error {:.3g}\n",
      name, kSteps, rebuilds, dx, df);
}

}  // namespace

TEST_CASE("NVE steps on the device follow the engine's own run", "[device]") {
  check_nve<LJCut>("lj", kLJPotential);
  check_nve<LJSmoothLinear>("lj_smooth", kLJSmoothPotential, "lj");
  check_nve<Morse>("morse", kMorsePotential);
  check_nve<LJCut>("mix", kMixPotential);
}
