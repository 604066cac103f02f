#pragma once
// How this run's halo travels between ranks on devices: the transport the
// deck and the MPI library choose at start-up, the swaps peer copies carry
// (halo_transport.hpp), and the start-up self-test that checks them on the
// real halo, falling back when one fails. The device is reached only
// through HaloDevice, so comm/ needs nothing of run/.
#include <cstddef>
#include <string>
#include <vector>

#include "atoms/atom_store.hpp"
#include "comm/communicator.hpp"
#include "comm/halo_exchange.hpp"
#include "comm/halo_transport.hpp"
#include "comm/swap_exchange.hpp"

namespace tessera {

// What the self-test needs of the device that holds the atoms (the calls of
// DeviceEngine of the same names).
class HaloDevice {
 public:
  virtual ~HaloDevice() = default;
  virtual void set_halo_transport(HaloTransport t) = 0;
  // "CUDA IPC", or "" when this device cannot copy from another process.
  virtual std::string peer_copy_kind() const = 0;
  virtual void set_peer_swaps(const std::vector<bool>& peer) = 0;
  virtual void refresh_halo(const SwapExchange& exchange) = 0;
  // Locals and ghosts, as AtomStore holds them.
  virtual void download(AtomStore& a) const = 0;
  virtual void upload(const AtomStore& a) = 0;
  // The list of the uploaded atoms, over the halo's swaps of the last build.
  virtual void build_list() = 0;
};

class HaloTransportSetup {
 public:
  // Several ranks on devices, before the first build: the deck's
  // cuda_aware_mpi against what the library says (choose_halo_transport).
  void choose(const std::string& cuda_aware_mpi, const MpiCudaSupport& support, HaloDevice& device);
  bool tested() const { return tested_; }
  // Once, right after the first list build: picks the peer-copied swaps
  // (deck peer_copies), then one halo refresh through the chosen transport
  // must bring back the ghosts the host just built, bit for bit, on every
  // rank. Peer copies that fail it are dropped, CUDA-aware MPI that fails it
  // falls back to host-staged; host-staged that fails it is a
  // SimulationError naming `step`. Collective.
  void self_test(const std::string& peer_copies, HaloDevice& device, const HaloExchange& halo,
                 const Communicator& comm, long step);

  const TransportChoice& transport() const { return transport_; }
  // What carries the halo, why, and what the self-test found ("" before it).
  const std::string& report() const { return report_; }
  // "CUDA-aware MPI", "peer copies (CUDA IPC)", or peer copies for some of
  // `swaps` and the transport for the rest.
  std::string describe(const std::vector<HaloExchange::Swap>& swaps) const;
  // The halo's traffic each step over `swaps` (the last build's): ghost
  // positions that arrive by message (not made in place along an axis with
  // one rank), and the messages they come in.
  struct Traffic {
    long long positions = 0;
    int messages = 0;
    int peer_copies = 0;  // swaps the receiver copies from the sender's buffer
  };
  Traffic traffic(const std::vector<HaloExchange::Swap>& swaps) const;
  // Every rank unmaps the buffers its peer copies read, then all meet, so
  // none frees a buffer another still maps (undefined with CUDA IPC). The
  // peer-copied swaps stay as they were, for the summary's counts.
  void close_peer_copies(HaloDevice& device, const Communicator& comm) const;

 private:
  void choose_peer_swaps(const std::string& peer_copies, const HaloDevice& device,
                         const std::vector<HaloExchange::Swap>& swaps, const Communicator& comm);
  std::size_t peer_swap_count() const;
  // After a failed self-test: without peer copies if some swaps had them,
  // else host-staged instead of CUDA-aware MPI (`what` says why).
  void fall_back(HaloDevice& device, const Communicator& comm, const std::string& what);

  TransportChoice transport_;
  std::vector<bool> peer_swaps_;
  std::string peer_kind_;  // the device's peer_copy_kind, when peer copies were asked for
  std::string report_;
  bool tested_ = false;
};

}  // namespace tessera
