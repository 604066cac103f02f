#pragma once
// How the halo's positions travel between ranks when the atoms live on GPUs.
// Two transports, both through MPI:
//  - host-staged: each swap's packed positions are copied into a pinned
//    host buffer, MPI sends that, and the received buffer is copied back.
//    Works with any MPI library.
//  - CUDA-aware: the device buffers themselves are handed to MPI, which
//    moves them (GPUDirect, NVLink or its own staging). Needs a library that
//    takes device pointers: handing them to one that does not crashes the
//    process, so `auto` takes it only when the library says it can.
// And for swaps whose partners share the rank's node, when the deck asks
// (peer_copies: auto), a third that bypasses MPI for the data:
//  - peer copies: each rank copies its ghosts' positions straight out of
//    the sender's device buffer (CUDA IPC), MPI carrying only signals
//    (kernels/device/device_halo.hpp).
#include <string>
#include <vector>

#include "comm/communicator.hpp"
#include "comm/halo_exchange.hpp"

namespace tessera {

enum class HaloTransport { kHostStaged, kCudaAware };

const char* to_string(HaloTransport t);  // "host-staged", "CUDA-aware MPI"

struct TransportChoice {
  HaloTransport transport = HaloTransport::kHostStaged;
  std::string why;  // one clause for the log: the option and what the library said
};

// `option` is the deck's cuda_aware_mpi (auto, on, off). `on` is taken as
// the user's word, even against the library's answer (some libraries are
// CUDA-aware without a way to say so); the start-up self-test still checks
// what arrives.
TransportChoice choose_halo_transport(const std::string& option, const MpiCudaSupport& support);

// Per swap, whether this rank could peer-copy it: a swap between ranks
// (not to itself) whose `to` and `from` both run on this rank's node
// (`node_of_rank` as Communicator::node_of_ranks gives it). A swap is
// peer-copied only where every rank says yes.
std::vector<bool> peer_swaps_here(const std::vector<HaloExchange::Swap>& swaps, const std::vector<int>& node_of_rank,
                                  int rank);

}  // namespace tessera
