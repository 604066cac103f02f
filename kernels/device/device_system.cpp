// make_pipeline_engine (device_system.hpp), built once per device system:
// as CUDA by nvcc (kernels/CMakeLists.txt) and as C++ for Thrust's OpenMP
// system (tests/device/CMakeLists.txt). The engine's halo, migration, sort
// and integration are built here without FMA contraction; the forces' twins
// are in device_forces.cpp, built with it.
#include "device/device_system.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "core/error.hpp"
#include "device/pipeline_engine.hpp"
#include "run/simulation.hpp"

namespace tessera::device {
inline namespace TESSERA_DEVICE_SYSTEM_NS {

std::unique_ptr<DeviceEngine> make_pipeline_engine(const Simulation& sim, const std::string& description,
                                                   DeviceStream s, DeviceStream halo) {
  DeviceForces forces;
  try {
    forces = device_forces(sim.forces(), sim.atoms().ntypes, s);
  } catch (const std::invalid_argument& e) {
    throw InputError(fmt::format("{}: potential.style {}: {}", sim.deck().path, sim.deck().potential.style, e.what()));
  }
  if (sim.deck().neighbor.layout == "clusters")
    for (const auto& f : forces)
      if (!f->over_clusters())
        throw InputError(fmt::format("{}: potential.style {} has no cluster-list form on the device yet: use "
                                     "neighbor.layout: rows, or backend: cpu",
                                     sim.deck().path, sim.deck().potential.style));
  return std::make_unique<PipelineEngine>(sim, description, std::move(forces), s, halo);
}

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
