#pragma once
// Targets ramped linearly over a run (npt's temperature and pressure, the
// cell rescaling barostat's pressure), as LAMMPS ramps them.

namespace tessera {

// The fraction of the run done at `step`, 0 at its first step.
inline double ramp_fraction(long step, long steps) {
  double delta = static_cast<double>(step);
  if (delta != 0.0) delta /= static_cast<double>(steps);
  return delta;
}

// start + fraction (stop - start), LAMMPS's arithmetic.
inline double ramped(double start, double stop, long step, long steps) {
  return start + ramp_fraction(step, steps) * (stop - start);
}

}  // namespace tessera
