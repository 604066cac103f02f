#pragma once
// The per-step ghost refresh between ranks, with the atoms on the device:
// the host's HaloExchange (src/comm) decides at each rebuild which atoms go
// where; between rebuilds each swap packs its positions on the device,
// copies that buffer to the host, hands it to the transport (MPI through
// the host), and unpacks what arrives into its ghost slots on the device.
// Only the halo's positions cross to the host, not the atoms.
#include <functional>
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

  // The swaps of the host's last build (host -> device: the send lists).
  void set(const std::vector<HaloSwap>& swaps) {
    swaps_ = swaps;
    send_.resize(swaps.size());
    for (std::size_t k = 0; k < swaps.size(); ++k) send_[k].assign(swaps[k].send.begin(), swaps[k].send.end());
  }

  // Swap by swap, in order (a swap may forward ghosts of the ones before).
  void refresh(DeviceAtoms& a, const SwapExchange& exchange) {
    for (std::size_t k = 0; k < swaps_.size(); ++k) {
      const HaloSwap& s = swaps_[k];
      const int n = static_cast<int>(s.send.size());
      out_.resize(3 * static_cast<std::size_t>(n));
      for_each_index(stream_, n,
                     detail::PackHalo{raw(send_[k]), s.dim, s.shift, raw(a.x), raw(a.y), raw(a.z), raw(out_)});
      host_out_.resize(out_.size());
      thrust::copy(out_.begin(), out_.end(), host_out_.begin());  // device -> host: the packed halo
      exchange(k, host_out_, host_in_);
      in_.assign(host_in_.begin(), host_in_.end());  // host -> device: the ghosts' positions
      for_each_index(stream_, static_cast<int>(s.count),
                     detail::UnpackHalo{raw(in_), static_cast<int>(s.first), raw(a.x), raw(a.y), raw(a.z)});
    }
  }

 private:
  DeviceStream stream_;
  std::vector<HaloSwap> swaps_;
  std::vector<dvec<int>> send_;
  dvec<double> out_, in_;
  std::vector<double> host_out_, host_in_;
};

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
