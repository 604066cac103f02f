#pragma once
// AtomOps on the CPU: cpu_for_simd loops over an AtomStore's local atoms.
#include "atoms/atom_store.hpp"
#include "backend/cpu_exec.hpp"
#include "backend/cpu_langevin_kernel.hpp"
#include "integrate/atom_ops.hpp"
#include "integrate/motion_guard.hpp"
#include "integrate/step_functors.hpp"
#include "thermo/thermo.hpp"

namespace tessera {

class CpuAtomOps final : public AtomOps {
 public:
  // The motion guard's first look (motion_guard.hpp's moves_badly_flag,
  // summed over this rank's atoms), taken in the drift's own pass: the
  // drift already holds each atom's new position and velocity, and a pass
  // of the guard's own read them all again (1 % of a 2-rank in.lj 32k
  // mixed run, 2026-11-30). `drifted` says a drift filled `failed`.
  struct DriftGuard {
    double speed_sq = 0;
    double failed = 0;
    bool drifted = false;
  };
  // `kick_owed`: the last step's second half kick, of the same dtf and
  // forces, was left to this step's first (Simulation's owed kick); the
  // first half_kick applies both in one pass.
  explicit CpuAtomOps(AtomStore& a, DriftGuard* guard = nullptr, bool kick_owed = false)
      : a_(a), guard_(guard), kick_owed_(kick_owed) {}

  void half_kick(double dtf) override {
    const bool twice = kick_owed_;
    kick_owed_ = false;
    // A table on the stack: no allocation in a step; more types than it
    // holds divide per atom, with the same bits.
    constexpr std::size_t kTypes = 64;
    const KickArrays v{a_.fx.data(), a_.fy.data(), a_.fz.data(), a_.vx.data(), a_.vy.data(), a_.vz.data()};
    if (a_.mass_of_type.size() > kTypes) {
      for (int k = 0; k < (twice ? 2 : 1); ++k)
        cpu_for_simd(a_.nlocal, HalfKick{dtf, a_.type.data(), a_.mass_of_type.data(), v});
      return;
    }
    double dtfm[kTypes] = {};  // type 0 is unused (and its mass may be 0)
    for (std::size_t t = 1; t < a_.mass_of_type.size(); ++t) dtfm[t] = kick_factor(dtf, a_.mass_of_type[t]);
    if (twice)
      cpu_for_simd(a_.nlocal, TwoHalfKicksByType{dtfm, a_.type.data(), v});
    else
      cpu_for_simd(a_.nlocal, HalfKickByType{dtfm, a_.type.data(), v});
  }
  void drift(double dt) override {
    const Drift d{dt, a_.vx.data(), a_.vy.data(), a_.vz.data(), a_.x.data(), a_.y.data(), a_.z.data()};
    if (!guard_) return cpu_for_simd(a_.nlocal, d);
    const int count = static_cast<int>(a_.nlocal);
    const double speed_sq = guard_->speed_sq;
    double failed = 0;
#pragma omp parallel
    {
      const Drift g = d;  // a copy per thread, as cpu_for_simd's
#pragma omp for simd schedule(static) reduction(+ : failed)
      for (int i = 0; i < count; ++i) {
        g(i);
        failed += moves_badly_flag(g.x[i], g.y[i], g.z[i], g.vx[i], g.vy[i], g.vz[i], speed_sq);
      }
    }
    guard_->failed = failed;
    guard_->drifted = true;
  }
  void langevin(const LangevinKeys& k) override {
    const LangevinForce f{k.inv_damp, k.noise_scale, k.seed, k.step, a_.id.data(), a_.type.data(),
                          a_.mass_of_type.data(), a_.vx.data(), a_.vy.data(), a_.vz.data(), a_.fx.data(),
                          a_.fy.data(), a_.fz.data()};
    langevin_forces(f, static_cast<int>(a_.nlocal), simd_level());
  }
  double langevin_heat(const LangevinKeys& k, double dtf, bool first) const override {
    return tessera::sum_langevin_heat(a_, k, dtf, first);
  }
  void scale_velocities(double s) override {
    cpu_for_simd(a_.nlocal, ScaleVelocity{s, a_.vx.data(), a_.vy.data(), a_.vz.data()});
  }
  void scale_velocities_twice(const double f[3]) override {
    cpu_for_simd(a_.nlocal, ScaleVelocityTwice{{f[0], f[1], f[2]}, a_.vx.data(), a_.vy.data(), a_.vz.data()});
  }
  void remap(const Box& from, const Box& to) override {
    // Each thread's copy of the boxes: through the functor in memory, the
    // product's 1/L was a division per atom and coordinate (a store through
    // x, y or z might have changed the box), 4.5 % of an in.lj 32k npt run.
    cpu_for_simd(a_.nlocal, RemapPosition{from, to, a_.x.data(), a_.y.data(), a_.z.data()});
  }
  double sum_mv2() const override { return tessera::sum_mv2(a_); }
  void sum_mv2_axes(double out[3]) const override { tessera::sum_mv2_axes(a_, out); }

 private:
  AtomStore& a_;
  DriftGuard* guard_;
  bool kick_owed_;
};

}  // namespace tessera
