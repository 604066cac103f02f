#pragma once
// How much room a row list gives each atom: the CPU's builder after its
// first build (neighbor/verlet_builder.cpp), the device's (kernels/device/
// neighbor_build.hpp) and `tessera plan`'s memory estimate (plan/plan.cpp)
// follow this one rule, so the plan predicts what the device holds.
//
// On the CPU a row is written and read whole, so its room is memory traffic
// as well as memory: a fixed 64 for the 10-20 neighbours of a bead-spring
// melt spread each build's writes over 4 times the memory they need. On the
// device it is storage: a 10,000-bead melt held 1,117 bytes per atom with
// rows 64 wide, 949 with this rule.
#include <cmath>

namespace tessera {

// After a build whose longest row held `widest` neighbours: an eighth more,
// plus 8, so that the next build's rows fit unless the system changed.
inline int next_row_stride(int widest) { return widest + widest / 8 + 8; }

// Before the first build: as after a build whose longest row held the mean
// count (from the density). A liquid's or a solid's longest row is within
// that room (an LJ melt at 0.8442 within 2.8: mean 77.6, longest 85, room
// 95); a build that meets a longer row grows the stride and runs again, once.
inline int first_row_stride(double mean_neighbours) {
  return next_row_stride(static_cast<int>(std::ceil(mean_neighbours)));
}

// The mean neighbour count of `natoms` atoms spread evenly over `volume`,
// within `reach`.
inline double mean_neighbours(double natoms, double volume, double reach) {
  return volume > 0 ? natoms / volume * 4.0 / 3.0 * M_PI * reach * reach * reach : 0.0;
}

}  // namespace tessera
