#pragma once
// AtomOps on the device: the integrator's functors (step_functors.hpp) over
// DeviceAtoms, so Integrator drives the device with its own step sequence
// and Nose-Hoover chain (src/integrate/integrator.cpp).
#include "device/device_atoms.hpp"
#include "device/reductions.hpp"
#include "integrate/atom_ops.hpp"
#include "integrate/step_functors.hpp"

namespace tessera::device {
inline namespace TESSERA_DEVICE_SYSTEM_NS {

class DeviceAtomOps final : public AtomOps {
 public:
  DeviceAtomOps(DeviceAtoms& a, DeviceStream s) : a_(a), s_(s) {}

  void half_kick(double dtf) override {
    TESSERA_DEVICE_CALL("half kick", for_each_index(s_, a_.nlocal,
                                                    HalfKick{dtf, raw(a_.type), raw(a_.mass_of_type), raw(a_.fx),
                                                             raw(a_.fy), raw(a_.fz), raw(a_.vx), raw(a_.vy), raw(a_.vz)}));
  }
  void drift(double dt) override {
    TESSERA_DEVICE_CALL("drift", for_each_index(s_, a_.nlocal, Drift{dt, raw(a_.vx), raw(a_.vy), raw(a_.vz), raw(a_.x),
                                                                     raw(a_.y), raw(a_.z)}));
  }
  void langevin(const LangevinKeys& k) override {
    TESSERA_DEVICE_CALL("Langevin forces",
                        for_each_index(s_, a_.nlocal,
                                       LangevinForce{k.inv_damp, k.noise_scale, k.seed, k.step, raw(a_.id), raw(a_.type),
                                                     raw(a_.mass_of_type), raw(a_.vx), raw(a_.vy), raw(a_.vz), raw(a_.fx),
                                                     raw(a_.fy), raw(a_.fz)}));
  }
  void scale_velocities(double s) override {
    TESSERA_DEVICE_CALL("velocity scaling",
                        for_each_index(s_, a_.nlocal, ScaleVelocity{s, raw(a_.vx), raw(a_.vy), raw(a_.vz)}));
  }
  void scale_velocities_twice(const double f[3]) override {
    TESSERA_DEVICE_CALL("barostat velocity scaling",
                        for_each_index(s_, a_.nlocal,
                                       ScaleVelocityTwice{{f[0], f[1], f[2]}, raw(a_.vx), raw(a_.vy), raw(a_.vz)}));
  }
  void remap(const Box& from, const Box& to) override {
    TESSERA_DEVICE_CALL("box remap",
                        for_each_index(s_, a_.nlocal, RemapPosition{from, to, raw(a_.x), raw(a_.y), raw(a_.z)}));
  }
  double sum_mv2() const override { return TESSERA_DEVICE_CALL("kinetic energy sum", sums_.mv2(s_, a_)); }
  void sum_mv2_axes(double out[3]) const override {
    TESSERA_DEVICE_CALL("kinetic energy sum", sums_.mv2_axes(s_, a_, out));
  }

 private:
  DeviceAtoms& a_;
  DeviceStream s_;
  mutable OrderedSums sums_;  // scratch only: a sum changes nothing
};

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
