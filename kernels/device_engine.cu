// The CUDA build's device engine: the pipeline of kernels/device on the
// GPU, for every potential in potential_list.hpp (so nvcc compiles each
// potential, integrator functor and algorithm for the GPU in every build).
#include <fmt/format.h>

#include "cuda_check.hpp"
#include "device/pipeline_engine.hpp"

namespace tessera {

std::unique_ptr<DeviceEngine> make_device_engine(const Simulation& sim, int gpu) {
  TESSERA_CUDA_CHECK(cudaSetDevice(gpu));
  cudaDeviceProp prop{};
  TESSERA_CUDA_CHECK(cudaGetDeviceProperties(&prop, gpu));
  const std::string what =
      fmt::format("cuda, GPU {} ({}, compute capability {}.{})", gpu, prop.name, prop.major, prop.minor);
  try {
    // Two named streams: the step's work, and the halo that overlaps it.
    return device::make_pipeline_engine(Potentials{}, sim, what, device::DeviceStream::create(),
                                        device::DeviceStream::create());
  } catch (const thrust::system_error& e) {
    throw std::runtime_error(fmt::format("CUDA error while uploading the atoms to GPU {}: {}", gpu, e.what()));
  }
}

}  // namespace tessera
