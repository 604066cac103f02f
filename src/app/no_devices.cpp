#include <stdexcept>

#include "devices.hpp"
#include "run/device_engine.hpp"

namespace tessera {

DeviceReport probe_devices() {
  DeviceReport r;
  r.runtime = "none";
  r.none_because = "this build has no CUDA (configured with -DTESSERA_CUDA=OFF)";
  return r;
}

}  // namespace tessera

namespace tessera {

// A build without CUDA reports no usable device, so nothing asks for one.
std::unique_ptr<DeviceEngine> make_device_engine(const Simulation&, int) {
  throw std::logic_error("make_device_engine: this build has no CUDA");
}

}  // namespace tessera
