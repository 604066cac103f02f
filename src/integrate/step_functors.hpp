#pragma once
// Per-atom integrator steps as host-device functors, shared by all backends.
// Unit conversions come in as plain doubles (core/units.hpp's factors folded
// in by Integrator), never as the Units table, which the device cannot hold.
#include "core/host_device.hpp"
#include "domain/box.hpp"
#include "core/types.hpp"
#include "random/philox.hpp"

namespace tessera {

// v += dtf f / m, dtf = (dt/2) ftm2v
struct HalfKick {
  double dtf;
  const int* type;
  const double* mass_of_type;
  const double* fx;
  const double* fy;
  const double* fz;
  double* vx;
  double* vy;
  double* vz;
  TESSERA_HD void operator()(int i) const {
    const double dtfm = dtf / mass_of_type[type[i]];
    vx[i] += dtfm * fx[i];
    vy[i] += dtfm * fy[i];
    vz[i] += dtfm * fz[i];
  }
};

// x += dt v
struct Drift {
  double dt;
  const double* vx;
  const double* vy;
  const double* vz;
  double* x;
  double* y;
  double* z;
  TESSERA_HD void operator()(int i) const {
    x[i] += dt * vx[i];
    y[i] += dt * vy[i];
    z[i] += dt * vz[i];
  }
};

// Langevin friction and noise added to the force (Schneider & Stoll 1978):
// f += -m v / damp + sqrt(24 kT m / (damp dt)) (u - 1/2), u uniform in (0,1),
// which has the variance 2 kT m / (damp dt) the fluctuation-dissipation
// theorem asks for. The noise is keyed by (seed, step, global id) only.
// Both terms are converted to force units (mvv2e, ftm2v) as LAMMPS's fix
// langevin does.
struct LangevinForce {
  double inv_damp;     // 1 / (damp ftm2v)
  double noise_scale;  // sqrt(24 kT / (damp dt mvv2e)) / ftm2v, times sqrt(m) per atom
  unsigned long long seed;
  unsigned long long step;
  const AtomId* id;
  const int* type;
  const double* mass_of_type;
  const double* vx;
  const double* vy;
  const double* vz;
  double* fx;
  double* fy;
  double* fz;
  TESSERA_HD void operator()(int i) const {
    const double m = mass_of_type[type[i]];
    const Philox4x32 r = random_words(seed, RandomStream::kLangevin, step, id[i]);
    const double g1 = -m * inv_damp;
    const double g2 = noise_scale * sqrt(m);
    fx[i] += g1 * vx[i] + g2 * (uniform_open01(r.v[0]) - 0.5);
    fy[i] += g1 * vy[i] + g2 * (uniform_open01(r.v[1]) - 0.5);
    fz[i] += g1 * vz[i] + g2 * (uniform_open01(r.v[2]) - 0.5);
  }
};

// v *= s (Nose-Hoover chain velocity scaling)
struct ScaleVelocity {
  double s;
  double* vx;
  double* vy;
  double* vz;
  TESSERA_HD void operator()(int i) const {
    vx[i] *= s;
    vy[i] *= s;
    vz[i] *= s;
  }
};

// v_d *= f_d, twice, per axis: the barostat's velocity scaling, in LAMMPS's
// fix nh order (two products, not one by f_d^2, so the rounding is its).
struct ScaleVelocityTwice {
  double f[3];
  double* vx;
  double* vy;
  double* vz;
  TESSERA_HD void operator()(int i) const {
    vx[i] *= f[0];
    vy[i] *= f[1];
    vz[i] *= f[2];
    vx[i] *= f[0];
    vy[i] *= f[1];
    vz[i] *= f[2];
  }
};

// An atom keeps its fractional place when the box changes from `from` to
// `to`: x -> (x - lo) / L -> lo' + L' s, computed as LAMMPS's x2lamda and
// lamda2x do (a product by 1/L, then L' s + lo').
struct RemapPosition {
  Box from, to;
  double* x;
  double* y;
  double* z;
  TESSERA_HD void operator()(int i) const {
    double* const p[3] = {x, y, z};
    for (int d = 0; d < 3; ++d) {
      const double s = (1.0 / from.length(d)) * (p[d][i] - from.lo[d]);
      p[d][i] = to.length(d) * s + to.lo[d];
    }
  }
};

}  // namespace tessera
