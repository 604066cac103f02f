#pragma once
// The per-step ghost refresh between ranks, with the atoms on the device:
// the host's HaloExchange (src/comm) decides at each rebuild which atoms go
// where; between rebuilds each swap packs its positions on the device, the
// transport (comm/halo_transport.hpp) carries the buffer, and what arrives
// is unpacked into the swap's ghost slots on the device. Host-staged, the
// buffers cross to pinned host memory and back; CUDA-aware, MPI gets the
// device buffers themselves; peer-copied (swaps whose partners share the
// node), each rank copies its ghosts' positions out of the sender's packed
// buffer itself (peer_copy.hpp) and MPI carries only two signals:
//   packed: the sender's buffer holds this step's positions;
//   copied: the receiver has them, so the sender may pack over them.
// At a rebuild the sender's buffer may have to grow: the receiver unmaps it
// first, and the handles travel again. Only the halo's values move, not
// the atoms: positions every step, and any other per-atom quantity a force
// needs on its ghosts (forward()).
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "device/device_atoms.hpp"
#include "device/peer_copy.hpp"
#include "run/device_engine.hpp"

namespace tessera::device {
inline namespace TESSERA_DEVICE_SYSTEM_NS {

// One per-atom quantity as the halo forwards it: `width` arrays (locals,
// then ghosts) of one value per atom each. Positions are x, y, z with
// `periodic` set: a swap across the periodic boundary adds its shift to
// component `dim`; any other quantity (a many-body intermediate) travels
// unchanged.
struct HaloFields {
  static constexpr int kMaxWidth = 4;
  double* v[kMaxWidth] = {nullptr, nullptr, nullptr, nullptr};
  int width = 0;
  bool periodic = false;
};

inline HaloFields halo_positions(double* x, double* y, double* z) {
  HaloFields f;
  f.v[0] = x, f.v[1] = y, f.v[2] = z;
  f.width = 3;
  f.periodic = true;
  return f;
}

namespace detail {

struct PackHalo {
  const int* send;
  int dim;
  double shift;  // the CPU's `coord + (e == dim ? shift : 0.0)`, to the bit
  HaloFields f;
  double* out;
  TESSERA_HD void operator()(int k) const {
    const int i = send[k];
    for (int e = 0; e < f.width; ++e) {
      const double v = f.v[e][i];
      out[f.width * k + e] = f.periodic ? v + (dim == e ? shift : 0.0) : v;
    }
  }
};

struct UnpackHalo {
  const double* in;
  int first;
  HaloFields f;
  TESSERA_HD void operator()(int k) const {
    for (int e = 0; e < f.width; ++e) f.v[e][first + k] = in[f.width * k + e];
  }
};

}  // namespace detail

class DeviceHalo {
 public:
  explicit DeviceHalo(DeviceStream s) : stream_(s) {}

  // What carries the buffers from the next refresh on.
  void set_transport(HaloTransport t) { transport_ = t; }
  HaloTransport transport() const { return transport_; }

  // Per swap, whether it is peer-copied (DeviceEngine::set_peer_swaps);
  // all false closes every mapping of the other ranks' buffers.
  void set_peer_swaps(const std::vector<bool>& peer) {
    peer_ = peer;
    if (!any_peer()) {
      imports_.clear();
      return;
    }
    handshake_due_ = true;
  }
  bool any_peer() const {
    for (bool p : peer_)
      if (p) return true;
    return false;
  }

  // The swaps of the host's last build (host -> device: the send lists).
  void set(const std::vector<HaloSwap>& swaps) {
    // Nothing of the last build's swaps is still queued: their buffers are
    // reused, resized or freed below.
    synchronize(stream_);
    swaps_ = swaps;
    send_.resize(swaps.size());
    out_.resize(swaps.size());
    in_.resize(swaps.size());
    host_out_.resize(swaps.size());
    host_in_.resize(swaps.size());
    for (std::size_t k = 0; k < swaps.size(); ++k) {
      assign(stream_, send_[k], swaps[k].send);
      // Buffers per swap, sized here: nothing is allocated while the halo
      // and the forces run on their two streams.
      // A swap to this rank itself unpacks straight from its packed buffer:
      // no receive buffer, no host copies, no message.
      const bool self = swaps[k].self;
      const std::size_t n_out = kBufferWidth * swaps[k].send.size(),
                        n_in = self ? 0 : kBufferWidth * static_cast<std::size_t>(swaps[k].count);
      if (self && swaps[k].count != swaps[k].send.size())
        throw std::logic_error("device halo: a swap to this rank itself receives what it sends");
      // A peer-copied swap's packed buffer may be mapped by its receiver:
      // the handshake resizes it, once the receiver lets go.
      if (!peer(k)) resize(stream_, out_[k], n_out);
      resize(stream_, in_[k], n_in);
      host_out_[k].resize(self || peer(k) ? 0 : n_out);
      host_in_[k].resize(peer(k) ? 0 : n_in);
    }
    handshake_due_ = any_peer();
  }

  // The box changed size: each swap's shift is its image count times the
  // new length (HaloExchange::set_box on the host).
  void set_box(const Box& box) {
    for (HaloSwap& s : swaps_) s.shift = s.image * box.length(s.dim);
  }

  // The peer copies' handshake, when a build has made one due. It
  // allocates, so the overlapped refresh runs it before the forces are
  // queued; a failure waits for refresh() to report it.
  void prepare(const SwapExchange& exchange) {
    if (!handshake_due_) return;
    std::string f = handshake(exchange);
    if (handshake_failed_.empty()) handshake_failed_ = std::move(f);
  }

  // The ghosts' positions, swap by swap, in order (a swap may forward
  // ghosts of the ones before), on stream `on` (the pipeline's halo stream
  // when overlapped).
  void refresh(DeviceAtoms& a, const SwapExchange& exchange) { refresh(a, exchange, stream_); }
  void refresh(DeviceAtoms& a, const SwapExchange& exchange, const DeviceStream& on) {
    forward(halo_positions(raw(a.x), raw(a.y), raw(a.z)), exchange, on);
  }

  // Any per-atom quantity to the ghosts the same way, through the same
  // transport and buffers (up to kBufferWidth values per atom): positions
  // are its first client, a many-body potential's intermediates the next.
  // The transport gets width * send.size() values out and width * count in
  // (SwapExchange::values; positions go through SwapExchange::positions).
  void forward(const HaloFields& f, const SwapExchange& exchange, const DeviceStream& on) {
    if (f.width < 1 || f.width > kBufferWidth)
      throw std::invalid_argument("device halo: a forwarded quantity has 1 to " + std::to_string(kBufferWidth) +
                                  " values per atom, not " + std::to_string(f.width));
    prepare(exchange);
    // A peer copy that fails is reported after every swap has run, so no
    // partner waits for a signal this rank never sends.
    std::string failed = std::move(handshake_failed_);
    handshake_failed_.clear();
    for (std::size_t k = 0; k < swaps_.size(); ++k) {
      const HaloSwap& s = swaps_[k];
      const int n = static_cast<int>(s.send.size());
      // A peer buffer the handshake failed to grow is not packed; the
      // receiver, sent no handle, fails its copy and says so.
      if (out_[k].size() == kBufferWidth * s.send.size())
        for_each_index(on, n, detail::PackHalo{raw(send_[k]), s.dim, s.shift, f, raw(out_[k])});
      if (s.self) {
        // nothing to send: the packed buffer is what arrives
      } else if (peer(k)) {
        const std::string pf = pull(k, static_cast<std::size_t>(f.width) * s.count, exchange, on);
        if (failed.empty()) failed = pf;
      } else if (transport_ == HaloTransport::kCudaAware) {
        synchronize(on);  // MPI reads the packed buffer from here on
        send(exchange, k, f, raw(out_[k]), raw(in_[k]));
      } else {
        copy_to_host(on, out_[k], host_out_[k].data());  // device -> pinned host: the packed halo
        send(exchange, k, f, host_out_[k].data(), host_in_[k].data());
        copy_to_device(on, host_in_[k].data(), in_[k]);  // pinned host -> device: the ghosts' values
      }
      const double* arrived = raw(s.self ? out_[k] : in_[k]);
      for_each_index(on, static_cast<int>(s.count), detail::UnpackHalo{arrived, static_cast<int>(s.first), f});
    }
    if (!failed.empty()) throw std::runtime_error(failed);
  }

 private:
  // Values per atom each swap's buffers hold: positions' 3, or a forwarded
  // quantity of up to this width.
  static constexpr std::size_t kBufferWidth = 3;

  static void send(const SwapExchange& exchange, std::size_t k, const HaloFields& f, const double* out, double* in) {
    if (f.periodic && f.width == 3)
      exchange.positions(k, out, in);
    else
      exchange.values(k, f.width, out, in);
  }

  DeviceStream stream_;
  HaloTransport transport_ = HaloTransport::kHostStaged;
  std::vector<HaloSwap> swaps_;
  std::vector<dvec<int>> send_;
  std::vector<dvec<double>> out_, in_;
  // Per swap, so a copy to the device still in flight never has its
  // source overwritten by the next swap's message.
  std::vector<PinnedBuffer<double>> host_out_, host_in_;
  std::vector<bool> peer_;
  std::vector<PeerImport> imports_;  // per swap: the sender's packed buffer
  bool handshake_due_ = false;
  std::string handshake_failed_;

  bool peer(std::size_t k) const { return k < peer_.size() && peer_[k] && !swaps_[k].self; }

  // Every peer-copied swap's packed buffer at its new size, and the
  // receiver mapping it: after each build, before the first refresh.
  // Returns the first failure ("" if none), having run every swap's part.
  std::string handshake(const SwapExchange& exchange) {
    std::string failed;
    if (peer_.size() != swaps_.size()) throw std::logic_error("device halo: peer swaps set for another list of swaps");
    synchronize(stream_);  // the packed buffers below are reallocated only once nothing queued uses them
    imports_.resize(swaps_.size());
    for (std::size_t k = 0; k < swaps_.size(); ++k) {
      if (!peer(k)) {
        imports_[k].close();
        continue;
      }
      const HaloSwap& s = swaps_[k];
      const std::size_t n_out = kBufferWidth * s.send.size();
      // Never an empty allocation: its handle would name nothing.
      const bool grow = out_[k].capacity() == 0 || n_out > out_[k].capacity();
      const double sender_grows = exchange.signal(s.to, grow ? 1.0 : 0.0, s.from);
      if (sender_grows != 0.0) imports_[k].close();
      (void)exchange.signal(s.from, 1.0, s.to);  // unmapped: the receiver no longer reads ours
      // A failure here (no memory, no handle) still takes part in the
      // exchange, with an empty handle, so the receiver is not left waiting.
      std::vector<char> mine, theirs;
      try {
        if (grow) {
          // Room to grow between rebuilds, so the handle rarely changes.
          dvec<double> grown(std::max<std::size_t>(n_out + n_out / 4, 3 * 64));
          out_[k].swap(grown);
        }
        out_[k].resize(n_out);  // within the capacity: the allocation stays
        mine = export_peer_buffer(raw(out_[k]));
      } catch (const std::exception& e) {
        if (out_[k].capacity() < n_out) out_[k].clear();  // refresh() packs nothing into it
        if (failed.empty()) failed = e.what();
      }
      exchange.bytes(s.to, mine, s.from, theirs);
      try {
        if (!imports_[k].is_open_to(theirs)) imports_[k].open(theirs);
      } catch (const std::exception& e) {
        imports_[k].close();
        if (failed.empty()) failed = e.what();
      }
    }
    handshake_due_ = false;
    return failed;
  }

  // Swap k by peer copy: this rank's packed buffer is read by s.to, and
  // this rank reads s.from's. A failed copy still sends its signal, so the
  // partner never waits for one that does not come. Returns the failure.
  std::string pull(std::size_t k, std::size_t values, const SwapExchange& exchange, const DeviceStream& on) {
    const HaloSwap& s = swaps_[k];
    synchronize(on);  // the packed buffer is complete before the receiver is told
    (void)exchange.signal(s.to, 1.0, s.from);
    std::string failed;
    try {
      imports_.at(k).pull(on, raw(in_[k]), values);
    } catch (const std::exception& e) {
      failed = e.what();
    }
    const double receiver_copied = exchange.signal(s.from, failed.empty() ? 1.0 : 0.0, s.to);
    if (failed.empty() && receiver_copied == 0.0)
      failed = "peer copy: rank " + std::to_string(s.to) + " could not copy this rank's positions";
    return failed;
  }
};

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
