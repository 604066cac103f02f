#pragma once
// A mixed-precision run against the double one, side by side (the CPU's and
// the device's mixed precision are held to the same measure): how closely
// it follows before chaos parts them, and how far each run's total energy
// swings from its start.
#include <algorithm>
#include <cmath>
#include <vector>

#include "run/simulation.hpp"

namespace tessera::test {

struct MixedFollow {
  double follow = 0;     // largest relative gap in T and pe up to step 200
  double swing_mix = 0;  // max |E - E0| of the mixed run
  double swing_dbl = 0;  // of the double run
};

// Runs the double run and each mixed one (set up, same deck but the
// precision and the layout) `blocks` x 50 steps, the double run once for
// all of them.
inline std::vector<MixedFollow> follow_mixed(Simulation& dbl, const std::vector<Simulation*>& mixes,
                                             int blocks = 20) {
  auto gap = [](double a, double b) { return std::abs(a - b) / std::max(std::abs(a), std::abs(b)); };
  const double e0_dbl = dbl.thermo().etotal;
  std::vector<double> e0_mix;
  for (Simulation* m : mixes) e0_mix.push_back(m->thermo().etotal);
  std::vector<MixedFollow> r(mixes.size());
  double swing_dbl = 0;
  for (int block = 1; block <= blocks; ++block) {
    dbl.run(50, nullptr);
    const ThermoValues d = dbl.thermo();
    swing_dbl = std::max(swing_dbl, std::abs(d.etotal - e0_dbl));
    for (std::size_t k = 0; k < mixes.size(); ++k) {
      mixes[k]->run(50, nullptr);
      const ThermoValues m = mixes[k]->thermo();
      // Rounding grows like any perturbation of a chaotic liquid: the runs
      // part after a few hundred steps, so they are compared before that.
      if (d.step <= 200) r[k].follow = std::max({r[k].follow, gap(d.temp, m.temp), gap(d.pe, m.pe)});
      r[k].swing_mix = std::max(r[k].swing_mix, std::abs(m.etotal - e0_mix[k]));
    }
  }
  for (MixedFollow& f : r) f.swing_dbl = swing_dbl;
  return r;
}

// One mixed run against the double one.
inline MixedFollow follow_mixed(Simulation& dbl, Simulation& mix, int blocks = 20) {
  return follow_mixed(dbl, std::vector<Simulation*>{&mix}, blocks).front();
}

}  // namespace tessera::test
