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
// Peer copies between ranks on one node (CUDA IPC) are not in this version.
#include <string>

#include "comm/communicator.hpp"

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

}  // namespace tessera
