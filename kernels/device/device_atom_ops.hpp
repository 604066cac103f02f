#pragma once
// AtomOps on the device: the integrator's functors (step_functors.hpp) over
// DeviceAtoms, so Integrator drives the device with its own step sequence
// and Nose-Hoover chain (src/integrate/integrator.cpp). Defined in
// device_atom_ops.cpp, once per device system: nvcc compiles the kernels an
// inline function instantiates in every source that includes it, used or
// not, and the device tests include this through device_twin.hpp.
#include <memory>

#include "device/device_atoms.hpp"
#include "integrate/atom_ops.hpp"

namespace tessera::device {
inline namespace TESSERA_DEVICE_SYSTEM_NS {

class OrderedSums;

class DeviceAtomOps final : public AtomOps {
 public:
  DeviceAtomOps(DeviceAtoms& a, DeviceStream s);
  ~DeviceAtomOps() override;

  void half_kick(double dtf) override;
  void drift(double dt) override;
  void langevin(const LangevinKeys& k) override;
  double langevin_heat(const LangevinKeys& k, double dtf, bool first) const override;
  void scale_velocities(double s) override;
  void scale_velocities_twice(const double f[3]) override;
  void remap(const Box& from, const Box& to) override;
  double sum_mv2() const override;
  void sum_mv2_axes(double out[3]) const override;

 private:
  DeviceAtoms& a_;
  DeviceStream s_;
  std::unique_ptr<OrderedSums> sums_;  // scratch only: a sum changes nothing
};

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
