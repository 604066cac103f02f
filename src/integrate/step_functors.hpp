#pragma once
// Per-atom integrator steps as host-device functors, shared by all backends.
// Unit conversions come in as plain doubles (core/units.hpp's factors folded
// in by Integrator), never as the Units table, which the device cannot hold.
#include "core/host_device.hpp"
#include "domain/box.hpp"
#include "core/types.hpp"
#include "random/philox.hpp"

namespace tessera {

// dtf / m, written once: the CPU's table of it per type (HalfKickByType)
// then holds the bits the device divides out per atom (HalfKick).
TESSERA_HD inline double kick_factor(double dtf, double mass) { return dtf / mass; }

// The arrays of a kick: v += dtfm f for atom i.
struct KickArrays {
  const double* fx;
  const double* fy;
  const double* fz;
  double* vx;
  double* vy;
  double* vz;
  TESSERA_HD void kick(int i, double dtfm) const {
    vx[i] += dtfm * fx[i];
    vy[i] += dtfm * fy[i];
    vz[i] += dtfm * fz[i];
  }
};

// v += dtf f / m, dtf = (dt/2) ftm2v
struct HalfKick {
  double dtf;
  const int* type;
  const double* mass_of_type;
  KickArrays v;
  TESSERA_HD void operator()(int i) const { v.kick(i, kick_factor(dtf, mass_of_type[type[i]])); }
};

// HalfKick with dtf / m looked up by type (kick_factor, per type) instead of
// divided per atom: the same bits, and a loop the CPU vectorises.
struct HalfKickByType {
  const double* dtfm_of_type;
  const int* type;
  KickArrays v;
  TESSERA_HD void operator()(int i) const { v.kick(i, dtfm_of_type[type[i]]); }
};

// Two HalfKickByType in one pass over forces that do not change between
// them, v = (v + dtfm f) + dtfm f: the same bits as two passes, one read of
// f and v instead of two (a step's second half kick owed to the next
// step's first).
struct TwoHalfKicksByType {
  const double* dtfm_of_type;
  const int* type;
  KickArrays v;
  TESSERA_HD void operator()(int i) const {
    const double k = dtfm_of_type[type[i]];
    v.kick(i, k);
    v.kick(i, k);
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
  // Atom i's friction and noise, from its current velocity.
  TESSERA_HD void components(long i, double out[3]) const {
    const double m = mass_of_type[type[i]];
    const Philox4x32 r = random_words(seed, RandomStream::kLangevin, step, id[i]);
    const double g1 = -m * inv_damp;
    const double g2 = noise_scale * sqrt(m);
    out[0] = g1 * vx[i] + g2 * (uniform_open01(r.v[0]) - 0.5);
    out[1] = g1 * vy[i] + g2 * (uniform_open01(r.v[1]) - 0.5);
    out[2] = g1 * vz[i] + g2 * (uniform_open01(r.v[2]) - 0.5);
  }
  TESSERA_HD void operator()(int i) const {
    double fl[3];
    components(i, fl);
    fx[i] += fl[0];
    fy[i] += fl[1];
    fz[i] += fl[2];
  }
};

// The work the Langevin forces just added (`lf`, the same keys; f already
// holds them) will do in the half kicks that use them, per atom, in units
// of force x velocity (times mvv2e dtf: energy). A half kick from v_a to
// v_b = v_a + dtf F/m changes m v^2 / 2 by exactly dtf F.(v_a + v_b)/2,
// so F_L's share is dtf F_L.(v_a + v_b)/2, the trapezoid that the noise
// needs (F_L.v at one end would be off by the noise's own heating). After
// a step's forces, two kicks follow: this step's second and the next
// step's first, taken from where the first ends (v_c = v_b; a barostat's
// rescaling in between is not seen). `first`: setup's forces, whose only
// kick is the first step's.
struct LangevinHeat {
  LangevinForce lf;
  double dtf;
  bool first;
  TESSERA_HD void operator()(long i, double* acc) const {
    double fl[3];
    lf.components(i, fl);
    const double dtfm = dtf / lf.mass_of_type[lf.type[i]];
    const double v[3] = {lf.vx[i], lf.vy[i], lf.vz[i]};
    const double f[3] = {lf.fx[i], lf.fy[i], lf.fz[i]};
    for (int d = 0; d < 3; ++d) {
      const double vb = v[d] + dtfm * f[d];
      const double kick2 = first ? 0.0 : 0.5 * (v[d] + vb);
      const double kick1 = first ? 0.5 * (v[d] + vb) : 0.5 * (vb + (vb + dtfm * f[d]));
      acc[0] += fl[d] * (kick2 + kick1);
    }
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
