#pragma once
// One deck run by Simulation on the CPU backend and on the device engine,
// compared: the tests of the forces the device twins (molecules, EAM).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "atoms/atom_store.hpp"
#include "device_compare.hpp"
#include "device_twin.hpp"
#include "test_support.hpp"
#include "thermo/thermo.hpp"

namespace tessera::test {

// The worst relative difference among temperature, energies and pressure.
inline double worst_thermo(const ThermoValues& a, const ThermoValues& b) {
  double w = 0;
  for (auto [x, y] : {std::pair{a.temp, b.temp}, {a.pe, b.pe}, {a.ke, b.ke}, {a.etotal, b.etotal}, {a.press, b.press}})
    w = std::max(w, rel_diff(x, y));
  return w;
}

// The worst difference of the six components, relative to b's largest
// diagonal one (an off-diagonal part may be near zero).
inline double worst_tensor(const PressureTensor& a, const PressureTensor& b) {
  const double scale = std::max({std::abs(b.xx), std::abs(b.yy), std::abs(b.zz)});
  double w = 0;
  for (auto [x, y] : {std::pair{a.xx, b.xx}, {a.yy, b.yy}, {a.zz, b.zz}, {a.xy, b.xy}, {a.xz, b.xz}, {a.yz, b.yz}})
    w = std::max(w, std::abs(x - y) / scale);
  return w;
}

// The largest force on a local atom: a test's case must have forces to get
// wrong.
inline double largest_force(const AtomStore& a) {
  double m = 0;
  for (std::size_t i = 0; i < a.nlocal; ++i) m = std::max(m, std::hypot(a.fx[i], a.fy[i], a.fz[i]));
  return m;
}

// The deck on both: forces per atom and the pressure tensor to 1e-12 at
// step 0, where the largest force must exceed `min_force` (a case with
// forces to get wrong); thermo over 20 steps to 1e-10.
inline void check_device_follows_cpu(const std::string& deck, double min_force) {
  Simulation cpu(deck_from(deck));
  cpu.set_virial_tensor(true);
  cpu.setup();
  auto dev = device_simulation(deck);
  dev->set_virial_tensor(true);
  dev->setup();
  REQUIRE(dev->atoms().nlocal == cpu.atoms().nlocal);
  const double f0 = max_force_error(dev->atoms(), cpu.atoms());
  INFO("step 0: worst relative force difference " << f0);
  CHECK(largest_force(cpu.atoms()) > min_force);
  CHECK(f0 <= 1e-12);
  const double t0 = worst_tensor(dev->pressure_tensor(), cpu.pressure_tensor());
  INFO("pressure tensor " << t0);
  CHECK(t0 <= 1e-12);
  double worst = worst_thermo(dev->thermo(), cpu.thermo());
  for (int s = 1; s <= 20; ++s) {
    cpu.run(1, nullptr);
    dev->run(1, nullptr);
    worst = std::max(worst, worst_thermo(dev->thermo(), cpu.thermo()));
  }
  INFO("20 steps: worst relative thermo difference " << worst << ", forces "
                                                     << max_force_error(dev->atoms(), cpu.atoms()));
  CHECK(worst <= 1e-10);
  CHECK(max_force_error(dev->atoms(), cpu.atoms()) <= 1e-10);
  CHECK(dev->thermo().step == 20);
}

}  // namespace tessera::test
