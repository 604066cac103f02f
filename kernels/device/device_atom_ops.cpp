// DeviceAtomOps (device_atom_ops.hpp), built once per device system beside
// device_system.cpp.
#include "device/device_atom_ops.hpp"

#include "device/reductions.hpp"
#include "integrate/step_functors.hpp"

namespace tessera::device {
inline namespace TESSERA_DEVICE_SYSTEM_NS {

DeviceAtomOps::DeviceAtomOps(DeviceAtoms& a, DeviceStream s) : a_(a), s_(s), sums_(std::make_unique<OrderedSums>()) {}
DeviceAtomOps::~DeviceAtomOps() = default;

void DeviceAtomOps::half_kick(double dtf) {
  TESSERA_DEVICE_CALL("half kick", for_each_index(s_, a_.nlocal,
                                                  HalfKick{dtf, raw(a_.type), raw(a_.mass_of_type),
                                                           {raw(a_.fx), raw(a_.fy), raw(a_.fz), raw(a_.vx),
                                                            raw(a_.vy), raw(a_.vz)}}));
}

void DeviceAtomOps::drift(double dt) {
  TESSERA_DEVICE_CALL("drift", for_each_index(s_, a_.nlocal, Drift{dt, raw(a_.vx), raw(a_.vy), raw(a_.vz), raw(a_.x),
                                                                   raw(a_.y), raw(a_.z)}));
}

void DeviceAtomOps::langevin(const LangevinKeys& k) {
  TESSERA_DEVICE_CALL("Langevin forces",
                      for_each_index(s_, a_.nlocal,
                                     LangevinForce{k.inv_damp, k.noise_scale, k.seed, k.step, raw(a_.id), raw(a_.type),
                                                   raw(a_.mass_of_type), raw(a_.vx), raw(a_.vy), raw(a_.vz), raw(a_.fx),
                                                   raw(a_.fy), raw(a_.fz)}));
}

double DeviceAtomOps::langevin_heat(const LangevinKeys& k, double dtf, bool first) const {
  const LangevinForce lf{k.inv_damp, k.noise_scale, k.seed, k.step, raw(a_.id), raw(a_.type), raw(a_.mass_of_type),
                         raw(a_.vx), raw(a_.vy), raw(a_.vz), raw(a_.fx), raw(a_.fy), raw(a_.fz)};
  return TESSERA_DEVICE_CALL("Langevin heat sum", sums_->terms(s_, a_.nlocal, LangevinHeat{lf, dtf, first}));
}

void DeviceAtomOps::scale_velocities(double s) {
  TESSERA_DEVICE_CALL("velocity scaling",
                      for_each_index(s_, a_.nlocal, ScaleVelocity{s, raw(a_.vx), raw(a_.vy), raw(a_.vz)}));
}

void DeviceAtomOps::scale_velocities_twice(const double f[3]) {
  TESSERA_DEVICE_CALL("barostat velocity scaling",
                      for_each_index(s_, a_.nlocal,
                                     ScaleVelocityTwice{{f[0], f[1], f[2]}, raw(a_.vx), raw(a_.vy), raw(a_.vz)}));
}

void DeviceAtomOps::remap(const Box& from, const Box& to) {
  TESSERA_DEVICE_CALL("box remap",
                      for_each_index(s_, a_.nlocal, RemapPosition{from, to, raw(a_.x), raw(a_.y), raw(a_.z)}));
}

double DeviceAtomOps::sum_mv2() const { return TESSERA_DEVICE_CALL("kinetic energy sum", sums_->mv2(s_, a_)); }

void DeviceAtomOps::sum_mv2_axes(double out[3]) const {
  TESSERA_DEVICE_CALL("kinetic energy sum", sums_->mv2_axes(s_, a_, out));
}

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
