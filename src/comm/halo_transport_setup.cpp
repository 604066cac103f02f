#include "comm/halo_transport_setup.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <exception>

#include "core/error.hpp"

namespace tessera {

namespace {

// One refresh through the transports as set, then this rank's ghost
// positions against `built`: how many differ, and `failure` says so (or
// what the refresh threw).
long long ghosts_differing(HaloDevice& device, const HaloExchange& halo, const Communicator& comm,
                           const AtomStore& built, std::string& failure) {
  const std::size_t first = built.nlocal, n = built.nghost;
  long long wrong = 0;
  try {
    device.refresh_halo(swap_exchange(halo, comm));
    AtomStore back;
    device.download(back);  // device -> host: once, at start-up
    if (back.nall() != built.nall()) {
      wrong = static_cast<long long>(n);
    } else {
      for (std::size_t i = first; i < first + n; ++i)
        wrong += back.x[i] != built.x[i] || back.y[i] != built.y[i] || back.z[i] != built.z[i];
    }
    if (wrong > 0) failure = fmt::format("{} of {} ghost positions on rank {} differ", wrong, n, comm.rank());
  } catch (const std::exception& e) {
    // A rank whose partner failed mid-message may wait here: MPI gives no
    // way to cancel a half-done exchange.
    wrong = 1;
    failure = fmt::format("rank {}: {}", comm.rank(), e.what());
  }
  return wrong;
}

std::size_t swaps_between_ranks(const std::vector<HaloExchange::Swap>& swaps) {
  std::size_t between = 0;
  for (const HaloExchange::Swap& w : swaps) between += !w.self;
  return between;
}

}  // namespace

void HaloTransportSetup::choose(const std::string& cuda_aware_mpi, const MpiCudaSupport& support,
                                HaloDevice& device) {
  transport_ = choose_halo_transport(cuda_aware_mpi, support);
  device.set_halo_transport(transport_.transport);
}

void HaloTransportSetup::choose_peer_swaps(const std::string& peer_copies, const HaloDevice& device,
                                           const std::vector<HaloExchange::Swap>& swaps,
                                           const Communicator& comm) {
  peer_swaps_.assign(swaps.size(), false);
  if (peer_copies == "off") return;
  const std::vector<bool> here = peer_swaps_here(swaps, comm.node_of_ranks(), comm.rank());
  peer_kind_ = device.peer_copy_kind();
  // A swap is peer-copied on every rank or on none, so each message has
  // its partner.
  for (std::size_t k = 0; k < here.size(); ++k)
    peer_swaps_[k] = comm.max(here[k] && !peer_kind_.empty() ? 0 : 1) == 0;
}

std::size_t HaloTransportSetup::peer_swap_count() const {
  return static_cast<std::size_t>(std::count(peer_swaps_.begin(), peer_swaps_.end(), true));
}

void HaloTransportSetup::self_test(const std::string& peer_copies, HaloDevice& device, const HaloExchange& halo,
                                   const Communicator& comm, long step) {
  tested_ = true;
  choose_peer_swaps(peer_copies, device, halo.swaps(), comm);
  device.set_peer_swaps(peer_swaps_);
  AtomStore built;
  device.download(built);  // device -> host: once, at start-up: the ghosts as built
  std::string fell_back;
  for (;;) {
    std::string failure;
    const long long wrong = ghosts_differing(device, halo, comm, built, failure);
    const long long ghosts = comm.sum(static_cast<long long>(built.nghost));
    const std::size_t peer = peer_swap_count();
    const std::string carried = describe(halo.swaps());
    if (comm.sum(wrong) == 0) {
      report_ = fmt::format(
          "{}{} self-test passed: {} ghost positions ({} swaps per rank, {} of them between ranks) came back bit for "
          "bit",
          fell_back, carried, ghosts, halo.swaps().size(), swaps_between_ranks(halo.swaps()));
      return;
    }
    // This rank's failure, else rank 0's, else a word that another rank's differ.
    const std::string said = comm.broadcast_text(failure);
    const std::string what = !failure.empty() ? failure : !said.empty() ? said : "another rank's ghosts differ";
    if (peer == 0 && transport_.transport != HaloTransport::kCudaAware)
      throw SimulationError(
          fmt::format("halo self-test at step {} failed with the {} transport: {}", step, carried, what));
    fell_back += carried + " failed its self-test (" + what + "), fell back; ";
    fall_back(device, comm, what);
    if (comm.rank() == 0)
      std::fprintf(stderr, "tessera: halo self-test with %s failed (%s): falling back to %s\n", carried.c_str(),
                   what.c_str(), describe(halo.swaps()).c_str());
    device.upload(built);  // the ghosts as built, whatever the failed refresh left
    device.build_list();
  }
}

void HaloTransportSetup::fall_back(HaloDevice& device, const Communicator& comm, const std::string& what) {
  if (peer_swap_count() > 0) {
    peer_swaps_.assign(peer_swaps_.size(), false);
    device.set_peer_swaps(peer_swaps_);  // unmaps the other ranks' buffers
    comm.barrier();                      // before any rank frees one of its own
  } else {
    transport_ = {HaloTransport::kHostStaged, "CUDA-aware MPI failed the start-up self-test: " + what};
    device.set_halo_transport(transport_.transport);
  }
}

std::string HaloTransportSetup::describe(const std::vector<HaloExchange::Swap>& swaps) const {
  const std::size_t peer = peer_swap_count();
  if (peer == 0) return to_string(transport_.transport);
  const std::size_t between = swaps_between_ranks(swaps);
  const std::string kind = fmt::format("peer copies ({})", peer_kind_);
  if (peer == between) return kind;
  return fmt::format("{} for {} of {} swaps between ranks, {} for the rest", kind, peer, between,
                     to_string(transport_.transport));
}

HaloTransportSetup::Traffic HaloTransportSetup::traffic(const std::vector<HaloExchange::Swap>& swaps) const {
  Traffic t;
  for (std::size_t k = 0; k < swaps.size(); ++k)
    if (!swaps[k].self) {
      t.positions += static_cast<long long>(swaps[k].count);
      ++(k < peer_swaps_.size() && peer_swaps_[k] ? t.peer_copies : t.messages);
    }
  return t;
}

void HaloTransportSetup::close_peer_copies(HaloDevice& device, const Communicator& comm) const {
  if (peer_swap_count() == 0) return;
  device.set_peer_swaps(std::vector<bool>(peer_swaps_.size(), false));
  comm.barrier();
}

}  // namespace tessera
