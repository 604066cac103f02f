#pragma once
// What a device system's code builds from a run: the device twins of its
// force list and the engine Simulation drives. Declared here and defined
// once per device system (device_system.cpp: tessera_device_cuda built by
// nvcc, tessera_device_omp by g++ for Thrust's OpenMP system), so the
// sources that use them (the device tests, the programs) do not each
// compile every potential's pair kernels and the engine's halo and
// migration: those were most of each nvcc pass of the device tests.
#include <memory>
#include <string>
#include <vector>

#include "device/device_force.hpp"
#include "device/exec_policy.hpp"
#include "forces/force_list.hpp"
#include "run/device_engine.hpp"

namespace tessera {
class Simulation;
}

namespace tessera::device {
inline namespace TESSERA_DEVICE_SYSTEM_NS {

using DeviceForces = std::vector<std::unique_ptr<DeviceForce>>;

// Every force of `forces`, in order, each the device twin of one of the pair
// styles of potential_list.hpp. Throws std::invalid_argument naming the
// first force with no device version.
DeviceForces device_forces(const ForceList& forces, int ntypes, DeviceStream s);

// The engine (pipeline_engine.hpp) for `sim`'s forces; `s`: the stream of
// the step's work, `halo`: the halo's. Throws InputError when a force has
// no device version.
std::unique_ptr<DeviceEngine> make_pipeline_engine(const Simulation& sim, const std::string& description,
                                                   DeviceStream s, DeviceStream halo);

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
