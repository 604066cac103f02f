// The CUDA runtime's view of the GPUs. Linked statically, so a machine with
// no driver gets an error code here, not a loader failure at start-up.
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <string>

#include "cuda_arch_list.hpp"
#include "devices.hpp"

namespace tessera {

namespace {

std::string version_text(int v) { return fmt::format("{}.{}", v / 1000, (v % 1000) / 10); }

}  // namespace

DeviceReport probe_devices() {
  DeviceReport r;
  r.cuda_built = true;
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  const cudaError_t driver_rc = cudaDriverGetVersion(&driver);
  r.runtime = fmt::format("CUDA runtime {}, driver {}", version_text(runtime),
                          driver_rc == cudaSuccess && driver > 0 ? version_text(driver) : std::string("none"));
  int count = 0;
  const cudaError_t rc = cudaGetDeviceCount(&count);
  if (rc != cudaSuccess) {
    r.none_because = driver_rc == cudaSuccess && driver == 0
                         ? std::string("no CUDA driver on this machine (libcuda.so.1 not found)")
                         : fmt::format("{} ({})", cudaGetErrorString(rc), cudaGetErrorName(rc));
    cudaGetLastError();  // clear the sticky error
    return r;
  }
  if (count == 0) r.none_because = "the CUDA runtime sees no device (CUDA_VISIBLE_DEVICES?)";
  const int lowest = lowest_cuda_arch(TESSERA_CUDA_ARCHITECTURES);
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp p{};
    DeviceInfo d;
    d.index = i;
    if (const cudaError_t e = cudaGetDeviceProperties(&p, i); e != cudaSuccess) {
      d.why_not = fmt::format("cannot query it: {}", cudaGetErrorString(e));
      cudaGetLastError();  // the other devices' queries must not see it
      r.devices.push_back(d);
      continue;
    }
    d.name = p.name;
    d.memory_bytes = p.totalGlobalMem;
    d.major = p.major;
    d.minor = p.minor;
    if (10 * p.major + p.minor < lowest)
      d.why_not = fmt::format(
          "compute capability {}.{} is below the {}.{} this build targets (rebuild with "
          "-DCMAKE_CUDA_ARCHITECTURES={}{})",
          p.major, p.minor, lowest / 10, lowest % 10, p.major, p.minor);
    int mode = cudaComputeModeDefault;
    if (cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, i) != cudaSuccess) cudaGetLastError();
    if (d.why_not.empty() && mode == cudaComputeModeProhibited) d.why_not = "its compute mode is 'prohibited'";
    r.devices.push_back(d);
  }
  return r;
}

}  // namespace tessera
