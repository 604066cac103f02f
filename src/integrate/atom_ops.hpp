#pragma once
// The per-atom work of the integrator, as seen from Integrator: each backend
// runs the same functors (step_functors.hpp) over its own arrays, so the step
// sequence and the Nose-Hoover chain math exist once, in integrator.cpp.
// A handful of calls per step: the virtual dispatch costs nothing measurable.
#include "domain/box.hpp"

namespace tessera {

// What LangevinForce needs besides the atoms.
struct LangevinKeys {
  double inv_damp;
  double noise_scale;
  unsigned long long seed;
  unsigned long long step;
};

class AtomOps {
 public:
  virtual ~AtomOps() = default;
  virtual void half_kick(double dtf) = 0;               // v += dtf f / m, dtf = (dt/2) ftm2v
  virtual void drift(double dt) = 0;                    // x += dt v
  virtual void langevin(const LangevinKeys& keys) = 0;  // f += friction + noise
  // After langevin(keys): the sum of LangevinHeat over this rank's atoms
  // (the caller sums over ranks and multiplies by mvv2e dtf).
  virtual double langevin_heat(const LangevinKeys& keys, double dtf, bool first) const = 0;
  virtual void scale_velocities(double s) = 0;          // v *= s
  // v_d *= f[d] twice (ScaleVelocityTwice, the barostat's half step).
  virtual void scale_velocities_twice(const double f[3]) = 0;
  // The locals keep their fractional places in a box going from `from` to `to`.
  virtual void remap(const Box& from, const Box& to) = 0;
  // Sum of m v^2 over this rank's atoms (the caller sums over ranks).
  virtual double sum_mv2() const = 0;
  // The same per axis: m vx^2, m vy^2, m vz^2.
  virtual void sum_mv2_axes(double out[3]) const = 0;
};

}  // namespace tessera
