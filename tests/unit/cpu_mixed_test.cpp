// precision: mixed on the CPU backend (the float kernels of full rows,
// backend/cpu_pair_kernel_mixed_impl.hpp, and of the cluster layout,
// backend/cpu_cluster_kernel.hpp) over a run: it follows the double run
// until chaos parts them and conserves energy as well, as the device's
// mixed precision does (tests/device/mixed_precision_test.cpp). The forces
// themselves are checked in simd_test.cpp.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "run/simulation.hpp"
#include "mixed_follow.hpp"
#include "test_support.hpp"

using namespace tessera;

namespace {

std::unique_ptr<Simulation> melt(const std::string& extra) {
  const std::string deck = "system: {read_data: " + test::reference("lj_melt.data") +
                           "}\npotential:\n  style: lj/cut\n  cutoff: 2.5\n  coeffs:\n"
                           "    - {types: [1, 1], epsilon: 1.0, sigma: 1.0}\n"
                           "integrator: {style: nve, dt: 0.005}\noutput: {thermo: {every: 50}}\nrun: {steps: 0}\n" +
                           extra;
  auto sim = std::make_unique<Simulation>(test::deck_from(deck));
  sim->setup();
  return sim;
}

}  // namespace

TEST_CASE("CPU mixed precision follows the double run and conserves energy as well", "[mixed]") {
  const bool clusters = GENERATE(true, false);
  INFO((clusters ? "clusters" : "full rows"));
  auto dbl = melt("neighbor: {skin: 0.3}\n");
  auto mix = melt(clusters ? "neighbor: {skin: 0.3, layout: clusters}\nprecision: mixed\n"
                           : "neighbor: {skin: 0.3}\nprecision: mixed\n");
  CHECK(mix->backend_description().find("mixed precision") != std::string::npos);
  CHECK(mix->backend_description().find(clusters ? "cluster-pair" : "full neighbour list") != std::string::npos);
  CHECK(dbl->backend_description().find("double precision") != std::string::npos);
  CHECK(std::abs(mix->thermo().etotal - dbl->thermo().etotal) <= 1e-6 * std::abs(dbl->thermo().etotal));
  const test::MixedFollow r = test::follow_mixed(*dbl, *mix);
  const double follow = r.follow, swing_mix = r.swing_mix, swing_dbl = r.swing_dbl;
  CHECK(follow <= 1e-5);
  // NVE's total energy swings as much in mixed as in double over 1000 steps.
  CHECK(swing_mix <= 2 * swing_dbl);
  CHECK(swing_mix <= 3e-3);
  std::printf(
      "cpu mixed (%s) vs double, LJ melt NVE: T and pe within %.3g for 200 steps; max |E - E0| over 1000 steps "
      "%.3g (double %.3g)\n",
      clusters ? "clusters" : "rows", follow, swing_mix, swing_dbl);
}
