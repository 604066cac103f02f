#pragma once
// Every MPI call in Tessera goes through here. Without an MPI launcher (or in
// the unit tests) the communicator is serial: one rank, collectives are
// identities, and nothing touches MPI.
#include <cstdint>
#include <string>
#include <vector>

namespace tessera {

class Communicator {
 public:
  // The process-wide communicator: MPI_COMM_WORLD once MpiSession has
  // initialised MPI, else the serial one.
  static Communicator& world();

  int rank() const { return rank_; }
  int size() const { return size_; }
  bool parallel() const { return size_ > 1; }

  // Sums in rank order (gather, then add 0, 1, 2, ...): the same bits on
  // every rank and in every run with this rank count.
  void sum_in_rank_order(double* values, int n) const;
  long long sum(long long v) const;
  std::uint64_t sum_u64(std::uint64_t v) const;  // wraps modulo 2^64
  double max(double v) const;
  int max(int v) const;
  std::vector<long long> allgather(long long v) const;
  std::vector<double> allgather(double v) const;

  // Sends `out` to `to` and receives from `from` (sizes exchanged first).
  void sendrecv(int to, const std::vector<char>& out, int from, std::vector<char>& in) const;
  // Sends n_out doubles to `to` and receives n_in from `from`, counts both
  // sides know already (the halo's, fixed between rebuilds): no size
  // message first. The pointers may be device memory when the MPI library
  // is CUDA-aware (halo_transport.hpp); a count that differs from what
  // arrived is an error naming both.
  void sendrecv_doubles(int to, const double* out, std::size_t n_out, int from, double* in, std::size_t n_in) const;
  // Rank 0 receives every rank's bytes, in rank order; others get nothing.
  std::vector<std::vector<char>> gather_to_root(const std::vector<char>& mine) const;
  // Rank 0 sends parts[r] to rank r (parts is read on rank 0 only).
  std::vector<char> scatter_from_root(const std::vector<std::vector<char>>& parts) const;
  // All-to-all: part r of `to_each` goes to rank r; element r of the result
  // came from rank r. One pairwise round per partner, so no rank ever holds
  // more than its own share (used to put checkpoint rows in global-id order).
  std::vector<std::vector<char>> exchange(const std::vector<std::vector<char>>& to_each) const;
  // Rank 0's bytes to everyone.
  void broadcast(std::vector<char>& bytes) const;
  // Rank 0's text to everyone (an error found on rank 0, a file name).
  std::string broadcast_text(const std::string& text) const;
  void barrier() const;
  // Seconds this rank has spent blocked until other ranks arrived: in the
  // size handshake that opens every sendrecv (8 bytes, so the time is the
  // partner's lateness, not transfer) and in the small collectives, whose
  // cost is the last rank's arrival. The payload transfer is not counted,
  // nor is sendrecv_doubles (the steps' ghost positions, which have no
  // handshake: on a device the whole time, waiting included, is the halo
  // stream's, in the summary's Halo row; on the CPU it is Communicate).
  const double& waited_seconds() const { return waited_; }
  // Ends every rank with this exit code (an MPI job cannot exit cleanly
  // from one rank alone).
  [[noreturn]] void abort(int code) const;

  // "host" of this rank.
  std::string host() const;
  // For every rank, a label of the node it runs on (ranks that can share
  // memory, MPI_COMM_TYPE_SHARED, get the same label): the same vector on
  // every rank. Which halo partners a peer copy can reach.
  std::vector<int> node_of_ranks() const;
  // How many ranks of this rank's node (MPI_COMM_TYPE_SHARED) pass the same
  // `key`, this rank included; 1 without MPI. Collective over all ranks.
  int node_ranks_with(std::uint64_t key) const;

 private:
  Communicator() = default;
  friend class MpiSession;
  int rank_ = 0;
  int size_ = 1;
  bool mpi_ = false;
  mutable double waited_ = 0;
};

// Whether an MPI launcher (mpirun, srun with PMI/PMIx) started this process.
bool launched_by_mpi();

// The MPI library's own description ("Open MPI v4.1.4, ..."); works before
// MPI_Init.
std::string mpi_library_version();

// Whether the MPI library takes device pointers (CUDA-aware), as far as it
// says: Open MPI answers through MPIX_Query_cuda_support (<mpi-ext.h>),
// at build time and, once MPI is initialised, at run time; other libraries
// say nothing, which is "unknown".
struct MpiCudaSupport {
  enum class State { kYes, kNo, kUnknown };
  State state = State::kUnknown;
  std::string how;  // what was asked and what it answered, for the log
};
MpiCudaSupport mpi_cuda_support();

// MPI_Init / MPI_Finalize for the app, only when started by an MPI launcher
// (mpirun, srun): a plain `tessera run` stays free of MPI start-up costs.
class MpiSession {
 public:
  MpiSession(int& argc, char**& argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

 private:
  bool active_ = false;
};

}  // namespace tessera
