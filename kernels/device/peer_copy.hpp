#pragma once
// Peer copies: a rank copies a halo buffer straight out of the memory of
// another process on its node, with no MPI message carrying the data
// (device_halo.hpp runs the protocol around it).
//  - CUDA: the exporter's device buffer is shared through a CUDA IPC handle;
//    the importer maps it once per buffer and copies device to device,
//    within the GPU when the ranks share one, over NVLink or PCIe when not.
//  - Thrust's OpenMP system (CI, which has no GPU): the same protocol over
//    Linux cross-memory attach: the handle is the process id and the
//    address, the copy process_vm_readv. It exercises the handshake, the
//    signals and the fallback that the CUDA path uses, on every CI run.
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "device/exec_policy.hpp"

#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
#include <cuda_runtime_api.h>
#else
#include <sys/uio.h>
#include <unistd.h>
#endif

namespace tessera::device {
inline namespace TESSERA_DEVICE_SYSTEM_NS {

inline const char* peer_copy_kind() {
#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
  return "CUDA IPC";
#else
  return "cross-memory attach";
#endif
}

namespace detail {
#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
inline void peer_check(cudaError_t rc, const char* what) {
  if (rc == cudaSuccess) return;
  // The runtime keeps a failed call's error as the thread's last error, and
  // Thrust's next launch would report it as its own: the caller survives
  // this failure (the self-test falls back), so it must not linger.
  (void)cudaGetLastError();
  throw std::runtime_error(std::string("peer copy: ") + what + ": " + cudaGetErrorName(rc) + " (" +
                           cudaGetErrorString(rc) + ")");
}
#else
struct CmaHandle {
  std::int64_t pid;
  std::uint64_t address;
};
#endif
}  // namespace detail

// What another process needs to reach the buffer at `p` (the start of its
// allocation): a fixed number of bytes, sent once per allocation.
inline std::vector<char> export_peer_buffer(const double* p) {
#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
  cudaIpcMemHandle_t h;
  detail::peer_check(cudaIpcGetMemHandle(&h, const_cast<double*>(p)), "cudaIpcGetMemHandle");
  std::vector<char> out(sizeof h);
  std::memcpy(out.data(), &h, sizeof h);
#else
  const detail::CmaHandle h{static_cast<std::int64_t>(getpid()),
                            static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(p))};
  std::vector<char> out(sizeof h);
  std::memcpy(out.data(), &h, sizeof h);
#endif
  return out;
}

// Another process's buffer, opened from its handle.
class PeerImport {
 public:
  PeerImport() = default;
  PeerImport(const PeerImport&) = delete;
  PeerImport& operator=(const PeerImport&) = delete;
  PeerImport(PeerImport&& o) noexcept : handle_(std::move(o.handle_)), peer_(o.peer_) { o.peer_ = nullptr; }
  PeerImport& operator=(PeerImport&& o) noexcept {
    std::swap(handle_, o.handle_);
    std::swap(peer_, o.peer_);
    return *this;
  }
  ~PeerImport() { close(); }

  bool is_open_to(const std::vector<char>& handle) const { return peer_ != nullptr && handle == handle_; }

  void open(const std::vector<char>& handle) {
    close();
#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
    cudaIpcMemHandle_t h;
    if (handle.size() != sizeof h) throw std::runtime_error("peer copy: a CUDA IPC handle of the wrong size arrived");
    std::memcpy(&h, handle.data(), sizeof h);
    void* p = nullptr;
    // Lazy peer access: ranks on different GPUs of a node map each other's
    // memory over NVLink or PCIe as the devices allow.
    detail::peer_check(cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess), "cudaIpcOpenMemHandle");
    peer_ = p;
#else
    detail::CmaHandle h;
    if (handle.size() != sizeof h) throw std::runtime_error("peer copy: a handle of the wrong size arrived");
    std::memcpy(&h, handle.data(), sizeof h);
    if (h.pid <= 0 || h.address == 0) throw std::runtime_error("peer copy: the handle names no process or buffer");
    peer_ = reinterpret_cast<void*>(static_cast<std::uintptr_t>(h.address));
#endif
    handle_ = handle;
  }

  void close() noexcept {
#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
    // A failure to unmap leaves nothing to do but go on, without leaving
    // its error for the next launch to report.
    if (peer_ && cudaIpcCloseMemHandle(peer_) != cudaSuccess) (void)cudaGetLastError();
#endif
    peer_ = nullptr;
    handle_.clear();
  }

  // Copies n doubles from the peer's buffer into `dst` (this process's
  // device memory), queued on `s`; returns once they are there.
  void pull(const DeviceStream& s, double* dst, std::size_t n) const {
    if (n == 0) return;
    if (!peer_) throw std::logic_error("peer copy: pull from a buffer never opened");
#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
    detail::peer_check(cudaMemcpyAsync(dst, peer_, n * sizeof(double), cudaMemcpyDeviceToDevice, s.stream),
                       "cudaMemcpyAsync from the peer buffer");
    detail::peer_check(cudaStreamSynchronize(s.stream), "cudaStreamSynchronize after the peer copy");
#else
    (void)s;
    detail::CmaHandle h;
    std::memcpy(&h, handle_.data(), sizeof h);
    std::size_t done = 0;
    const std::size_t bytes = n * sizeof(double);
    while (done < bytes) {
      iovec local{reinterpret_cast<char*>(dst) + done, bytes - done};
      iovec remote{static_cast<char*>(peer_) + done, bytes - done};
      const ssize_t got = process_vm_readv(static_cast<pid_t>(h.pid), &local, 1, &remote, 1, 0);
      if (got <= 0)
        throw std::runtime_error(std::string("peer copy: process_vm_readv from process ") + std::to_string(h.pid) +
                                 ": " + (got < 0 ? std::strerror(errno) : "nothing read"));
      done += static_cast<std::size_t>(got);
    }
#endif
  }

 private:
  std::vector<char> handle_;
  void* peer_ = nullptr;
};

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
