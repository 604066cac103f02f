#pragma once
// Which GPUs this process sees and whether the build can use them. The CUDA
// build asks the CUDA runtime (kernels/device_probe.cpp); the CPU-only build
// answers that it has no CUDA (no_devices.cpp).
#include <cstddef>
#include <string>
#include <vector>

namespace tessera {

struct DeviceInfo {
  int index = 0;
  std::string name;
  std::size_t memory_bytes = 0;
  int major = 0, minor = 0;  // compute capability
  std::string why_not;       // empty: usable by this build
};

struct DeviceReport {
  bool cuda_built = false;
  std::string runtime;  // "CUDA runtime 13.0, driver 13.0", or why none answered
  std::vector<DeviceInfo> devices;
  std::string none_because;  // why there is no device at all ("" when some were found)
  const DeviceInfo* first_usable() const {
    for (const DeviceInfo& d : devices)
      if (d.why_not.empty()) return &d;
    return nullptr;
  }
};

DeviceReport probe_devices();

}  // namespace tessera
