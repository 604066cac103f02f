// The per-atom virial tensor on the device pipeline (PassOptions::
// virial_tensor): the pressure tensor of a melt equals the CPU backend's to
// rounding (the pair loops sum in different orders), in rows and clusters
// layouts, with mixed precision within 1e-5; a step that did not ask has
// none, and asking changes no other result.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "device_twin.hpp"

using namespace tessera;
using namespace tessera::test;

namespace {

double worst_difference(const PressureTensor& a, const PressureTensor& b) {
  const double x[6] = {a.xx, a.yy, a.zz, a.xy, a.xz, a.yz}, y[6] = {b.xx, b.yy, b.zz, b.xy, b.xz, b.yz};
  double scale = 0, worst = 0;
  for (int c = 0; c < 6; ++c) scale = std::max(scale, std::abs(y[c]));
  for (int c = 0; c < 6; ++c) worst = std::max(worst, std::abs(x[c] - y[c]) / scale);
  return worst;
}

}  // namespace

TEST_CASE("The device pipeline's pressure tensor is the CPU's", "[device][virial]") {
  for (const char* layout : {"rows", "clusters"}) {
    for (const char* precision : {"double", "mixed"}) {
      INFO(layout << ", " << precision);
      const std::string deck =
          melt_deck("mix", kMixPotential, layout) + "precision: " + std::string(precision) + "\n";
      Simulation cpu(deck_from(melt_deck("mix", kMixPotential, layout)));
      cpu.set_virial_tensor(true);
      cpu.setup();
      auto dev = device_simulation(deck);
      dev->setup();
      CHECK_THROWS_AS(dev->pressure_tensor(), std::logic_error);
      const double press_without = dev->thermo().press;
      dev->set_virial_tensor(true);
      dev->compute_forces();
      const double tolerance = std::string(precision) == "mixed" ? 1e-5 : 1e-12;
      CHECK(worst_difference(dev->pressure_tensor(), cpu.pressure_tensor()) <= tolerance);
      CHECK(dev->thermo().press == press_without);
      // Through steps: the overlapped force path writes it too.
      cpu.run(3, nullptr);
      dev->run(3, nullptr);
      CHECK(worst_difference(dev->pressure_tensor(), cpu.pressure_tensor()) <= 1e3 * tolerance);
      const PressureTensor p = dev->pressure_tensor();
      // In float the trace and the scalar r.f round differently.
      CHECK((p.xx + p.yy + p.zz) / 3 == Approx(dev->thermo().press).epsilon(std::min(1e-6, 1e2 * tolerance)));
    }
  }
}
