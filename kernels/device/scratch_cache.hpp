#pragma once
// Thrust's temporaries (the buffers of its sorts, scans, reductions and
// copy_if), kept between calls, one cache per stream. Without it every such
// call allocates its scratch with cudaMalloc and frees it with cudaFree as
// it returns; cudaFree waits for the whole device, so a step with a
// reduction in it (the displacement check) stalled the host on every stream
// and a rebuild paid a dozen allocate/free pairs. A block handed back goes
// to its stream's free list with no CUDA call, so the free that follows a
// call queued with par_nosync (its kernels may still be running) is safe:
// the next user of the block is later work on the same stream. Caches are
// never shared between streams for that reason.
//
// Blocks are kept, not returned: the cache holds at most what the largest
// calls in flight at once needed. When no free block is large enough, the
// free ones are given back first (a rare, synchronising cudaFree) and the
// new block has a quarter to spare, so sizes that creep up as atoms migrate
// do not pile up blocks.
#include <cstddef>
#include <cstdlib>
#include <map>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>

#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
#include <cuda_runtime_api.h>
#endif

namespace tessera::device {
inline namespace TESSERA_DEVICE_SYSTEM_NS {

class ScratchCache {
 public:
  using value_type = char;  // what Thrust's allocator interface asks for

  ScratchCache() = default;
  ScratchCache(const ScratchCache&) = delete;
  ScratchCache& operator=(const ScratchCache&) = delete;
  ~ScratchCache() {
    for (auto& [p, n] : used_) give_back(p);  // only after a device error unwound a call
    for (auto& [n, p] : free_) give_back(p);
  }

  char* allocate(std::ptrdiff_t bytes) {
    const std::size_t n = bytes > 0 ? static_cast<std::size_t>(bytes) : 1;
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = free_.lower_bound(n);
    if (it == free_.end()) {
      for (auto& [size, p] : free_) {
        give_back(p);
        held_ -= size;
      }
      free_.clear();
      const std::size_t size = n + n / 4;
      char* p = take(size);
      held_ += size;
      ++allocations_;
      used_.emplace(p, size);
      return p;
    }
    char* p = it->second;
    used_.emplace(p, it->first);
    free_.erase(it);
    return p;
  }

  // Runs in Thrust's destructors, also while a device error unwinds: never
  // throws and makes no CUDA call.
  void deallocate(char* p, std::size_t) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = used_.find(p);
    if (it == used_.end()) return;
    try {
      free_.emplace(it->second, p);
    } catch (...) {
      give_back(p);  // out of host memory for the list entry: let the block go
      held_ -= it->second;
    }
    used_.erase(it);
  }

  std::size_t held_bytes() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return held_;
  }
  // Blocks allocated from the device over the cache's life (a test's handle
  // on "nothing was allocated in a steady state").
  long allocations() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return allocations_;
  }

 private:
  static char* take(std::size_t n) {
#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
    void* p = nullptr;
    const cudaError_t rc = cudaMalloc(&p, n);
    if (rc != cudaSuccess) {
      (void)cudaGetLastError();
      if (rc == cudaErrorMemoryAllocation) throw std::bad_alloc();
      throw std::runtime_error("cudaMalloc of " + std::to_string(n) + " bytes of Thrust scratch: " +
                               cudaGetErrorString(rc));
    }
    return static_cast<char*>(p);
#else
    return static_cast<char*>(::operator new(n));
#endif
  }
  static void give_back(char* p) noexcept {
#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
    (void)cudaFree(p);  // a failure here follows an error already reported
#else
    ::operator delete(p);
#endif
  }

  mutable std::mutex mutex_;
  std::multimap<std::size_t, char*> free_;  // by size, for the smallest that fits
  std::map<char*, std::size_t> used_;
  std::size_t held_ = 0;
  long allocations_ = 0;
};

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
