// tessera_hostdev: the tessera program with Thrust's OpenMP system standing in
// for CUDA. It reports one usable "GPU" and makes the device engine of
// kernels/device for it, so `backend: cuda` runs through main.cpp,
// Simulation, outputs and checkpoints exactly as on a GPU, in CI, which has
// none (tests/e2e/device_backend.sh).
#include <fmt/format.h>

#include "devices.hpp"
#include "device/pipeline_engine.hpp"
#include "run/device_engine.hpp"

namespace tessera {

DeviceReport probe_devices() {
  DeviceReport r;
  r.cuda_built = true;
  r.runtime = "Thrust OpenMP device system (test build, no CUDA)";
  DeviceInfo d;
  d.index = 0;
  d.name = "Thrust OpenMP host device";
  r.devices.push_back(d);
  return r;
}

std::unique_ptr<DeviceEngine> make_device_engine(const Simulation& sim, int gpu) {
  return device::make_pipeline_engine(Potentials{}, sim,
                                      fmt::format("cuda, GPU {} (Thrust OpenMP host device, test build)", gpu));
}

}  // namespace tessera
