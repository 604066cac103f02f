#pragma once
// A mixed-precision run against the double one, side by side (the CPU's and
// the device's mixed precision are held to the same measure): how closely
// it follows before chaos parts them, and how far each run's total energy
// swings from its start.
#include <algorithm>
#include <cmath>

#include "run/simulation.hpp"

namespace tessera::test {

struct MixedFollow {
  double follow = 0;     // largest relative gap in T and pe up to step 200
  double swing_mix = 0;  // max |E - E0| of the mixed run
  double swing_dbl = 0;  // of the double run
};

// Runs both (set up, same deck but the precision) `blocks` x 50 steps.
inline MixedFollow follow_mixed(Simulation& dbl, Simulation& mix, int blocks = 20) {
  auto gap = [](double a, double b) { return std::abs(a - b) / std::max(std::abs(a), std::abs(b)); };
  const double e0_mix = mix.thermo().etotal, e0_dbl = dbl.thermo().etotal;
  MixedFollow r;
  for (int block = 1; block <= blocks; ++block) {
    dbl.run(50, nullptr);
    mix.run(50, nullptr);
    const ThermoValues d = dbl.thermo(), m = mix.thermo();
    // Rounding grows like any perturbation of a chaotic liquid: the runs part
    // after a few hundred steps, so they are compared before that.
    if (d.step <= 200) r.follow = std::max({r.follow, gap(d.temp, m.temp), gap(d.pe, m.pe)});
    r.swing_mix = std::max(r.swing_mix, std::abs(m.etotal - e0_mix));
    r.swing_dbl = std::max(r.swing_dbl, std::abs(d.etotal - e0_dbl));
  }
  return r;
}

}  // namespace tessera::test
