#include "devices.hpp"

namespace tessera {

DeviceReport probe_devices() {
  DeviceReport r;
  r.runtime = "none";
  r.none_because = "this build has no CUDA (configured with -DTESSERA_CUDA=OFF)";
  return r;
}

}  // namespace tessera
