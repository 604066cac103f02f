#pragma once
// The per-step ghost refresh between ranks, with the atoms on the device:
// the host's HaloExchange (src/comm) decides at each rebuild which atoms go
// where; between rebuilds each swap packs its positions on the device, the
// transport (comm/halo_transport.hpp) carries the buffer, and what arrives
// is unpacked into the swap's ghost slots on the device. Host-staged, the
// buffers cross to pinned host memory and back; CUDA-aware, MPI gets the
// device buffers themselves. Only the halo's positions move, not the atoms.
#include <vector>

#include "device/device_atoms.hpp"
#include "run/device_engine.hpp"

namespace tessera::device {
inline namespace TESSERA_DEVICE_SYSTEM_NS {

namespace detail {

struct PackHalo {
  const int* send;
  int dim;
  double shift;  // the CPU's `coord + (e == dim ? shift : 0.0)`, to the bit
  const double* x;
  const double* y;
  const double* z;
  double* out;
  TESSERA_HD void operator()(int k) const {
    const int i = send[k];
    out[3 * k] = x[i] + (dim == 0 ? shift : 0.0);
    out[3 * k + 1] = y[i] + (dim == 1 ? shift : 0.0);
    out[3 * k + 2] = z[i] + (dim == 2 ? shift : 0.0);
  }
};

struct UnpackHalo {
  const double* in;
  int first;
  double* x;
  double* y;
  double* z;
  TESSERA_HD void operator()(int k) const {
    x[first + k] = in[3 * k];
    y[first + k] = in[3 * k + 1];
    z[first + k] = in[3 * k + 2];
  }
};

}  // namespace detail

class DeviceHalo {
 public:
  explicit DeviceHalo(DeviceStream s = {}) : stream_(s) {}

  // What carries the buffers from the next refresh on.
  void set_transport(HaloTransport t) { transport_ = t; }
  HaloTransport transport() const { return transport_; }

  // The swaps of the host's last build (host -> device: the send lists).
  void set(const std::vector<HaloSwap>& swaps) {
    swaps_ = swaps;
    send_.resize(swaps.size());
    out_.resize(swaps.size());
    in_.resize(swaps.size());
    host_out_.resize(swaps.size());
    host_in_.resize(swaps.size());
    for (std::size_t k = 0; k < swaps.size(); ++k) {
      send_[k].assign(swaps[k].send.begin(), swaps[k].send.end());
      // Buffers per swap, sized here: nothing is allocated while the halo
      // and the forces run on their two streams.
      // A swap to this rank itself unpacks straight from its packed buffer:
      // no receive buffer, no host copies, no message.
      const bool self = swaps[k].self;
      const std::size_t n_out = 3 * swaps[k].send.size(), n_in = self ? 0 : 3 * static_cast<std::size_t>(swaps[k].count);
      if (self && swaps[k].count != swaps[k].send.size())
        throw std::logic_error("device halo: a swap to this rank itself receives what it sends");
      resize_exact(out_[k], n_out);
      resize_exact(in_[k], n_in);
      host_out_[k].resize(self ? 0 : n_out);
      host_in_[k].resize(n_in);
    }
  }

  // Swap by swap, in order (a swap may forward ghosts of the ones before),
  // on stream `on` (the pipeline's halo stream when overlapped).
  void refresh(DeviceAtoms& a, const SwapExchange& exchange) { refresh(a, exchange, stream_); }
  void refresh(DeviceAtoms& a, const SwapExchange& exchange, const DeviceStream& on) {
    for (std::size_t k = 0; k < swaps_.size(); ++k) {
      const HaloSwap& s = swaps_[k];
      const int n = static_cast<int>(s.send.size());
      for_each_index(on, n,
                     detail::PackHalo{raw(send_[k]), s.dim, s.shift, raw(a.x), raw(a.y), raw(a.z), raw(out_[k])});
      if (s.self) {
        // nothing to send: the packed buffer is what arrives
      } else if (transport_ == HaloTransport::kCudaAware) {
        synchronize(on);  // MPI reads the packed buffer from here on
        exchange(k, raw(out_[k]), raw(in_[k]));
      } else {
        copy_to_host(on, out_[k], host_out_[k].data());  // device -> pinned host: the packed halo
        exchange(k, host_out_[k].data(), host_in_[k].data());
        copy_to_device(on, host_in_[k].data(), in_[k]);  // pinned host -> device: the ghosts' positions
      }
      const double* arrived = raw(s.self ? out_[k] : in_[k]);
      for_each_index(on, static_cast<int>(s.count),
                     detail::UnpackHalo{arrived, static_cast<int>(s.first), raw(a.x), raw(a.y), raw(a.z)});
    }
  }

 private:
  DeviceStream stream_;
  HaloTransport transport_ = HaloTransport::kHostStaged;
  std::vector<HaloSwap> swaps_;
  std::vector<dvec<int>> send_;
  std::vector<dvec<double>> out_, in_;
  // Per swap, so a copy to the device still in flight never has its
  // source overwritten by the next swap's message.
  std::vector<PinnedBuffer<double>> host_out_, host_in_;
};

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
