#pragma once
// The messages a device's halo refresh sends between a swap's partners
// (kernels/device/device_halo.hpp), each through the Communicator, so the
// device code makes no MPI call of its own.
#include <cstddef>
#include <functional>
#include <vector>

#include "comm/communicator.hpp"
#include "comm/halo_exchange.hpp"

namespace tessera {

struct SwapExchange {
  // Swap k's positions through MPI (HaloExchange::exchange_positions): `out`
  // holds the swap's 3 * send.size() positions, `in` receives its 3 * count,
  // both in host memory (host-staged) or both on the device (CUDA-aware).
  std::function<void(std::size_t k, const double* out, double* in)> positions;
  // Any other quantity the halo forwards (DeviceHalo::forward): `width`
  // values per atom, width * send.size() out and width * count in.
  std::function<void(std::size_t k, int width, const double* out, double* in)> values;
  // Peer copies' handshake at a rebuild: `out` to rank `to` while `in`
  // comes from rank `from` (the buffers' handles).
  std::function<void(int to, const std::vector<char>& out, int from, std::vector<char>& in)> bytes;
  // Peer copies' signals every step ("packed", "copied"): one value to
  // `to`, the one from `from` returned.
  std::function<double(int to, double value, int from)> signal;
};

// The messages of `halo`'s swaps over `comm`; both must outlive the result.
SwapExchange swap_exchange(const HaloExchange& halo, const Communicator& comm);

}  // namespace tessera
