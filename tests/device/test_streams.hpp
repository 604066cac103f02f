#pragma once
// The device tests queue their work on two named streams, as `tessera run`
// does (kernels/device_engine.cu: the step's work and the halo's). On a GPU
// they are non-blocking streams, so a host read or a vector operation that
// does not wait for the stream that queued its data is a race these tests
// can catch; nothing runs on the legacy default stream. On Thrust's OpenMP
// system they are empty: work is done when its call returns.
#include "device/exec_policy.hpp"

namespace tessera::test {

inline const device::DeviceStream& compute_stream() {
  static const device::DeviceStream s = device::DeviceStream::create();
  return s;
}
inline const device::DeviceStream& halo_stream() {
  static const device::DeviceStream s = device::DeviceStream::create();
  return s;
}

}  // namespace tessera::test
