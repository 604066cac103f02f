// The CUDA build's device engine: the pipeline of kernels/device on the
// GPU, for every potential in potential_list.hpp (tessera_device_cuda, so
// nvcc compiles each potential, integrator functor and algorithm for the GPU
// in every build).
#include <fmt/format.h>

#include <cstdint>

#include "cuda_check.hpp"
#include "device/device_system.hpp"

namespace tessera {

namespace {
// The pipeline's Thrust calls take their scratch from each stream's
// ScratchCache (device/scratch_cache.hpp). A Thrust call queued any other
// way (on Thrust's default stream, with no policy of ours) draws from the
// device's stream-ordered pool, which by default gives its memory back at
// every synchronisation, and the run synchronises every step. Keeping up
// to this much lets such scratch (kilobytes) stay, while large blocks
// still go back for the device arrays, which do not come from the pool.
constexpr std::uint64_t kScratchKept = 64ull << 20;

void keep_scratch(int gpu) {
  cudaMemPool_t pool = nullptr;
  std::uint64_t keep = kScratchKept;
  // A device without pools falls back to cudaMalloc in Thrust: nothing to keep.
  if (cudaDeviceGetDefaultMemPool(&pool, gpu) != cudaSuccess ||
      cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep) != cudaSuccess)
    (void)cudaGetLastError();
}
}  // namespace

std::unique_ptr<DeviceEngine> make_device_engine(const Simulation& sim, int gpu) {
  TESSERA_CUDA_CHECK(cudaSetDevice(gpu));
  keep_scratch(gpu);
  cudaDeviceProp prop{};
  TESSERA_CUDA_CHECK(cudaGetDeviceProperties(&prop, gpu));
  const std::string what =
      fmt::format("cuda, GPU {} ({}, compute capability {}.{})", gpu, prop.name, prop.major, prop.minor);
  try {
    // Two named streams: the step's work, and the halo that overlaps it.
    return device::make_pipeline_engine(sim, what, device::DeviceStream::create(),
                                        device::DeviceStream::create());
  } catch (const thrust::system_error& e) {
    throw std::runtime_error(fmt::format("CUDA error while uploading the atoms to GPU {}: {}", gpu, e.what()));
  }
}

}  // namespace tessera
