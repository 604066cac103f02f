#include "comm/communicator.hpp"
#include "comm/mpi_handle.hpp"  // <mpi.h>, C API only
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // Open MPI's extensions: the CUDA-support query
#endif

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <chrono>
#include <cstdlib>
#include <stdexcept>

namespace tessera {

namespace {
// Adds the lifetime of the object to a wait counter.
class WaitClock {
 public:
  explicit WaitClock(double& counter) : counter_(counter), t0_(std::chrono::steady_clock::now()) {}
  ~WaitClock() { counter_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count(); }
  WaitClock(const WaitClock&) = delete;
  WaitClock& operator=(const WaitClock&) = delete;

 private:
  double& counter_;
  std::chrono::steady_clock::time_point t0_;
};
}  // namespace

namespace {

void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw std::runtime_error(fmt::format("MPI {} failed: {}", what, std::string(text, len)));
}

}  // namespace

Communicator& Communicator::world() {
  static Communicator c;
  return c;
}

void Communicator::sum_in_rank_order(double* v, int n) const {
  if (!mpi_ || size_ == 1) return;
  std::vector<double> all(static_cast<std::size_t>(n) * size_);
  const WaitClock waiting(waited_);
  check(MPI_Allgather(v, n, MPI_DOUBLE, all.data(), n, MPI_DOUBLE, MPI_COMM_WORLD), "Allgather");
  for (int k = 0; k < n; ++k) {
    double s = 0;
    for (int r = 0; r < size_; ++r) s += all[static_cast<std::size_t>(r) * n + k];
    v[k] = s;
  }
}

long long Communicator::sum(long long v) const {
  if (!mpi_ || size_ == 1) return v;
  long long out = 0;
  const WaitClock waiting(waited_);
  check(MPI_Allreduce(&v, &out, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD), "Allreduce");
  return out;
}

std::uint64_t Communicator::sum_u64(std::uint64_t v) const {
  if (!mpi_ || size_ == 1) return v;
  std::uint64_t out = 0;
  const WaitClock waiting(waited_);
  check(MPI_Allreduce(&v, &out, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD), "Allreduce");
  return out;
}

double Communicator::max(double v) const {
  if (!mpi_ || size_ == 1) return v;
  double out = 0;
  const WaitClock waiting(waited_);
  check(MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "Allreduce");
  return out;
}

int Communicator::max(int v) const {
  if (!mpi_ || size_ == 1) return v;
  int out = 0;
  const WaitClock waiting(waited_);
  check(MPI_Allreduce(&v, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD), "Allreduce");
  return out;
}

std::vector<long long> Communicator::allgather(long long v) const {
  std::vector<long long> out(static_cast<std::size_t>(size_), v);
  const WaitClock waiting(waited_);
  if (mpi_ && size_ > 1)
    check(MPI_Allgather(&v, 1, MPI_LONG_LONG, out.data(), 1, MPI_LONG_LONG, MPI_COMM_WORLD), "Allgather");
  return out;
}

std::vector<double> Communicator::allgather(double v) const {
  std::vector<double> out(static_cast<std::size_t>(size_), v);
  const WaitClock waiting(waited_);
  if (mpi_ && size_ > 1)
    check(MPI_Allgather(&v, 1, MPI_DOUBLE, out.data(), 1, MPI_DOUBLE, MPI_COMM_WORLD), "Allgather");
  return out;
}

void Communicator::sendrecv(int to, const std::vector<char>& out, int from, std::vector<char>& in) const {
  if (!mpi_ || (to == rank_ && from == rank_)) {
    in = out;
    return;
  }
  long long n_out = static_cast<long long>(out.size()), n_in = 0;
  {
    const WaitClock waiting(waited_);
    check(MPI_Sendrecv(&n_out, 1, MPI_LONG_LONG, to, 1, &n_in, 1, MPI_LONG_LONG, from, 1, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE),
          "Sendrecv (size)");
  }
  in.resize(static_cast<std::size_t>(n_in));
  // Messages past 2 GiB would need chunking; a halo that large means a
  // sub-box of hundreds of millions of atoms.
  if (n_out > (1LL << 31) - 1 || n_in > (1LL << 31) - 1) throw std::runtime_error("halo message over 2 GiB");
  check(MPI_Sendrecv(out.data(), static_cast<int>(n_out), MPI_BYTE, to, 2, in.data(), static_cast<int>(n_in), MPI_BYTE,
                     from, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
        "Sendrecv");
}

void Communicator::sendrecv_doubles(int to, const double* out, std::size_t n_out, int from, double* in,
                                    std::size_t n_in) const {
  if (!mpi_) {
    if (n_in != n_out)
      throw std::runtime_error(fmt::format("halo: {} values sent to this rank itself, {} expected", n_out, n_in));
    // Host memory only: without MPI no device transport is chosen. With MPI
    // a message to this rank itself goes through MPI too, which (when
    // CUDA-aware) can read device buffers where memcpy cannot.
    if (n_out > 0) std::memcpy(in, out, n_out * sizeof(double));
    return;
  }
  constexpr std::size_t kMax = (std::size_t{1} << 31) - 1;
  if (n_out > kMax || n_in > kMax) throw std::runtime_error("halo message over 2^31 values");
  MPI_Status status;
  check(MPI_Sendrecv(out, static_cast<int>(n_out), MPI_DOUBLE, to, 3, in, static_cast<int>(n_in), MPI_DOUBLE, from, 3,
                     MPI_COMM_WORLD, &status),
        "Sendrecv (halo)");
  int got = 0;
  check(MPI_Get_count(&status, MPI_DOUBLE, &got), "Get_count");
  if (static_cast<std::size_t>(got) != n_in)
    throw std::runtime_error(
        fmt::format("halo: rank {} received {} values from rank {}, expected {}", rank_, got, from, n_in));
}

namespace {
// Checkpoint and trajectory parts can pass the 2 GiB an int count allows.
constexpr long long kChunk = 1LL << 30;

void send_bytes(const char* data, long long n, int to, int tag) {
  for (long long at = 0; at < n; at += kChunk)
    check(MPI_Send(data + at, static_cast<int>(std::min(kChunk, n - at)), MPI_BYTE, to, tag, MPI_COMM_WORLD), "Send");
}

void recv_bytes(char* data, long long n, int from, int tag) {
  for (long long at = 0; at < n; at += kChunk)
    check(MPI_Recv(data + at, static_cast<int>(std::min(kChunk, n - at)), MPI_BYTE, from, tag, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE),
          "Recv");
}
}  // namespace

std::vector<std::vector<char>> Communicator::gather_to_root(const std::vector<char>& mine) const {
  std::vector<std::vector<char>> out;
  if (!mpi_ || size_ == 1) {
    out.push_back(mine);
    return out;
  }
  long long n = static_cast<long long>(mine.size());
  std::vector<long long> sizes(static_cast<std::size_t>(size_));
  check(MPI_Gather(&n, 1, MPI_LONG_LONG, sizes.data(), 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD), "Gather");
  if (rank_ != 0) {
    send_bytes(mine.data(), n, 0, 3);
    return out;
  }
  out.resize(static_cast<std::size_t>(size_));
  out[0] = mine;
  for (int r = 1; r < size_; ++r) {
    out[r].resize(static_cast<std::size_t>(sizes[r]));
    recv_bytes(out[r].data(), sizes[r], r, 3);
  }
  return out;
}

std::vector<char> Communicator::scatter_from_root(const std::vector<std::vector<char>>& parts) const {
  if (!mpi_ || size_ == 1) return parts.empty() ? std::vector<char>() : parts[0];
  std::vector<long long> sizes(static_cast<std::size_t>(size_), 0);
  if (rank_ == 0) {
    if (static_cast<int>(parts.size()) != size_) throw std::logic_error("scatter_from_root: one part per rank");
    for (int r = 0; r < size_; ++r) sizes[r] = static_cast<long long>(parts[r].size());
  }
  long long n = 0;
  check(MPI_Scatter(sizes.data(), 1, MPI_LONG_LONG, &n, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD), "Scatter");
  if (rank_ == 0) {
    for (int r = 1; r < size_; ++r) send_bytes(parts[r].data(), sizes[r], r, 4);
    return parts[0];
  }
  std::vector<char> mine(static_cast<std::size_t>(n));
  recv_bytes(mine.data(), n, 0, 4);
  return mine;
}

std::vector<std::vector<char>> Communicator::exchange(const std::vector<std::vector<char>>& to_each) const {
  if (static_cast<int>(to_each.size()) != size_) throw std::logic_error("exchange: one part per rank");
  std::vector<std::vector<char>> from_each(static_cast<std::size_t>(size_));
  from_each[rank_] = to_each[rank_];
  if (!mpi_ || size_ == 1) return from_each;
  std::vector<long long> out_sizes(static_cast<std::size_t>(size_)), in_sizes(static_cast<std::size_t>(size_));
  for (int r = 0; r < size_; ++r) out_sizes[r] = static_cast<long long>(to_each[r].size());
  check(MPI_Alltoall(out_sizes.data(), 1, MPI_LONG_LONG, in_sizes.data(), 1, MPI_LONG_LONG, MPI_COMM_WORLD),
        "Alltoall");
  for (int k = 1; k < size_; ++k) {
    const int to = (rank_ + k) % size_, from = (rank_ - k + size_) % size_;
    if (out_sizes[to] > (1LL << 31) - 1 || in_sizes[from] > (1LL << 31) - 1)
      throw std::runtime_error("exchange: one rank's part is over 2 GiB");
    from_each[from].resize(static_cast<std::size_t>(in_sizes[from]));
    check(MPI_Sendrecv(to_each[to].data(), static_cast<int>(out_sizes[to]), MPI_BYTE, to, 5, from_each[from].data(),
                       static_cast<int>(in_sizes[from]), MPI_BYTE, from, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
          "Sendrecv (exchange)");
  }
  return from_each;
}

void Communicator::broadcast(std::vector<char>& bytes) const {
  if (!mpi_ || size_ == 1) return;
  long long n = static_cast<long long>(bytes.size());
  check(MPI_Bcast(&n, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD), "Bcast");
  bytes.resize(static_cast<std::size_t>(n));
  if (n > 0) check(MPI_Bcast(bytes.data(), static_cast<int>(n), MPI_BYTE, 0, MPI_COMM_WORLD), "Bcast");
}

std::string Communicator::broadcast_text(const std::string& text) const {
  std::vector<char> bytes(text.begin(), text.end());
  broadcast(bytes);
  return std::string(bytes.begin(), bytes.end());
}

void Communicator::barrier() const {
  if (mpi_ && size_ > 1) check(MPI_Barrier(MPI_COMM_WORLD), "Barrier");
}

void Communicator::abort(int code) const {
  std::fflush(stdout);
  std::fflush(stderr);
  if (mpi_ && size_ > 1) MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

std::vector<int> Communicator::node_of_ranks() const {
  std::vector<int> out(static_cast<std::size_t>(size_), 0);
  if (!mpi_ || size_ == 1) return out;
  MPI_Comm node = MPI_COMM_NULL;
  check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node), "Comm_split_type");
  // The label is the world rank of the node's first rank.
  int leader = rank_;
  const int rc = MPI_Bcast(&leader, 1, MPI_INT, 0, node);
  MPI_Comm_free(&node);
  check(rc, "Bcast (node)");
  const WaitClock waiting(waited_);
  check(MPI_Allgather(&leader, 1, MPI_INT, out.data(), 1, MPI_INT, MPI_COMM_WORLD), "Allgather");
  return out;
}

int Communicator::node_ranks_with(std::uint64_t key) const {
  if (!mpi_ || size_ == 1) return 1;
  MPI_Comm node = MPI_COMM_NULL;
  check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node), "Comm_split_type");
  int n = 1;
  int rc = MPI_Comm_size(node, &n);
  std::vector<std::uint64_t> keys(static_cast<std::size_t>(n > 0 ? n : 1), 0);
  if (rc == MPI_SUCCESS) {
    const WaitClock waiting(waited_);
    rc = MPI_Allgather(&key, 1, MPI_UINT64_T, keys.data(), 1, MPI_UINT64_T, node);
  }
  MPI_Comm_free(&node);
  check(rc, "Allgather (node)");
  return static_cast<int>(std::count(keys.begin(), keys.end(), key));
}

std::string Communicator::host() const {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(v)) return true;
  return false;
}

std::string mpi_library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  MPI_Get_library_version(text, &len);
  std::string s(text, static_cast<std::size_t>(len));
  const auto end = s.find_first_of("\n,");  // the first clause is the name and version
  return s.substr(0, end);
}

MpiCudaSupport mpi_cuda_support() {
  MpiCudaSupport s;
#if defined(MPIX_CUDA_AWARE_SUPPORT)
  const bool built = MPIX_CUDA_AWARE_SUPPORT != 0;
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (!initialised) {
    // Open MPI decides run-time support in MPI_Init: before it, only the
    // build's answer exists.
    s.state = built ? MpiCudaSupport::State::kYes : MpiCudaSupport::State::kNo;
    s.how = fmt::format("MPIX_CUDA_AWARE_SUPPORT = {} in its build; a run also asks MPIX_Query_cuda_support()",
                        MPIX_CUDA_AWARE_SUPPORT);
    return s;
  }
  const int now = MPIX_Query_cuda_support();
  s.state = built && now ? MpiCudaSupport::State::kYes : MpiCudaSupport::State::kNo;
  s.how = fmt::format("MPIX_CUDA_AWARE_SUPPORT = {}, MPIX_Query_cuda_support() = {}", MPIX_CUDA_AWARE_SUPPORT, now);
#else
  s.how = "the MPI library has no CUDA-support query (MPIX_CUDA_AWARE_SUPPORT undefined)";
#endif
  return s;
}

MpiSession::MpiSession(int& argc, char**& argv) {
  if (!launched_by_mpi()) return;
  int provided = 0;
  check(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided), "Init");
  // Errors come back as codes that check() turns into messages, instead of
  // MPI's default of aborting without saying where.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  Communicator& c = Communicator::world();
  c.mpi_ = true;
  check(MPI_Comm_rank(MPI_COMM_WORLD, &c.rank_), "Comm_rank");
  check(MPI_Comm_size(MPI_COMM_WORLD, &c.size_), "Comm_size");
  active_ = true;
}

MpiSession::~MpiSession() {
  if (active_) MPI_Finalize();
}

MPI_Comm mpi_handle(const Communicator& c) {
  if (!c.parallel()) throw std::logic_error("mpi_handle: the communicator is serial");
  return MPI_COMM_WORLD;
}

}  // namespace tessera
