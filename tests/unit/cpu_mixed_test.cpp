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
#include <vector>

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
  auto dbl = melt("neighbor: {skin: 0.3}\n");
  CHECK(dbl->backend_description().find("double precision") != std::string::npos);
  // Clusters and full rows, each against the one double run.
  auto clusters = melt("neighbor: {skin: 0.3, layout: clusters}\nprecision: mixed\n");
  auto rows = melt("neighbor: {skin: 0.3}\nprecision: mixed\n");
  const char* names[2] = {"clusters", "rows"};
  const char* lists[2] = {"cluster-pair", "full neighbour list"};
  const std::vector<Simulation*> mixes = {clusters.get(), rows.get()};
  for (std::size_t k = 0; k < mixes.size(); ++k) {
    INFO(names[k]);
    CHECK(mixes[k]->backend_description().find("mixed precision") != std::string::npos);
    CHECK(mixes[k]->backend_description().find(lists[k]) != std::string::npos);
    CHECK(std::abs(mixes[k]->thermo().etotal - dbl->thermo().etotal) <= 1e-6 * std::abs(dbl->thermo().etotal));
  }
  const std::vector<test::MixedFollow> all = test::follow_mixed(*dbl, mixes);
  for (std::size_t k = 0; k < mixes.size(); ++k) {
    INFO(names[k]);
    const test::MixedFollow& r = all[k];
    CHECK(r.follow <= 1e-5);
    // NVE's total energy swings as much in mixed as in double over 1000 steps.
    CHECK(r.swing_mix <= 2 * r.swing_dbl);
    CHECK(r.swing_mix <= 3e-3);
    std::printf(
        "cpu mixed (%s) vs double, LJ melt NVE: T and pe within %.3g for 200 steps; max |E - E0| over 1000 steps "
        "%.3g (double %.3g)\n",
        names[k], r.follow, r.swing_mix, r.swing_dbl);
  }
}
