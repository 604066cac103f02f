#pragma once
// DeviceArray<T>: the storage of every device array of the pipeline (`dvec`).
//
// thrust::device_vector value-initialises: every resize that grows its size,
// even inside the capacity, launches a fill kernel, and construction with a
// size does too. The pipeline writes every element it reads (a gather, a
// scan, a kernel over all atoms), so those fills were pure cost: about 30
// launches per rebuild, and with them the reallocation of every array whose
// size changed. Here a resize inside the capacity is bookkeeping only, and
// growth past it allocates once, with a sixteenth to spare when a count crept
// past the capacity, so the slowly changing counts of a run (ghosts,
// migrants, the list's pitch) settle after a few rebuilds. Storage goes back only
// through release() or the destructor.
//
// Nothing reads an element it has not written: on Thrust's OpenMP system
// (the tests, CI) the elements a resize adds are filled with all bits set
// (NaN for floating point, -1 for integers), so a reader that relied on
// value-initialisation fails there rather than on a GPU.
#include <thrust/copy.h>
#include <thrust/device_allocator.h>
#include <thrust/device_ptr.h>
#include <thrust/device_reference.h>

#include <atomic>
#include <cstddef>
#include <cstring>
#include <iterator>
#include <type_traits>
#include <utility>

namespace tessera::device {
inline namespace TESSERA_DEVICE_SYSTEM_NS {

// Bytes held in device arrays now and at most, for the run's report of
// device memory per atom. Thrust's own scratch (sort and scan buffers,
// scratch_cache.hpp) is not counted.
struct DeviceMemory {
  std::atomic<long long> now{0}, peak{0};
  std::atomic<long long> failed_frees{0};  // frees after a sticky device error
  std::atomic<long long> allocations{0};   // ever made: a settled run adds none
  void add(long long n) {
    const long long v = now.fetch_add(n) + n;
    long long p = peak.load();
    while (v > p && !peak.compare_exchange_weak(p, v)) {
    }
  }
  // For tests that measure one run after others in the same process.
  void reset_peak() { peak.store(now.load()); }
};
inline DeviceMemory& device_memory() {
  static DeviceMemory m;
  return m;
}

// thrust's device allocator, counting into device_memory().
template <class T>
struct CountingAllocator : thrust::device_allocator<T> {
  using base = thrust::device_allocator<T>;
  using pointer = typename base::pointer;
  using size_type = typename base::size_type;
  template <class U>
  struct rebind {
    using other = CountingAllocator<U>;
  };
  CountingAllocator() = default;
  template <class U>
  CountingAllocator(const CountingAllocator<U>&) {}
  pointer allocate(size_type n) {
    pointer p = base::allocate(n);
    device_memory().add(static_cast<long long>(n * sizeof(T)));
    device_memory().allocations.fetch_add(1);
    return p;
  }
  // Never throws: it runs in DeviceArray's destructor, also while an
  // earlier device error unwinds the stack, and after a sticky CUDA error
  // cudaFree fails too (device_error.hpp). That first error is the one
  // reported; the memory goes with the context.
  void deallocate(pointer p, size_type n) noexcept {
    try {
      base::deallocate(p, n);
    } catch (...) {
      device_memory().failed_frees.fetch_add(1);
    }
    device_memory().add(-static_cast<long long>(n * sizeof(T)));
  }
};

template <class T>
class DeviceArray {
  static_assert(std::is_trivially_copyable_v<T>, "device arrays hold plain values");

 public:
  using value_type = T;
  using size_type = std::size_t;
  using iterator = thrust::device_ptr<T>;
  using const_iterator = thrust::device_ptr<const T>;
  using reference = thrust::device_reference<T>;
  using const_reference = thrust::device_reference<const T>;

  DeviceArray() = default;
  explicit DeviceArray(size_type n) { resize(n); }
  DeviceArray(const DeviceArray& o) { *this = o; }
  DeviceArray& operator=(const DeviceArray& o) {
    if (this == &o) return *this;
    clear();
    resize(o.n_);
    if (o.n_) thrust::copy(o.begin(), o.end(), begin());
    return *this;
  }
  DeviceArray(DeviceArray&& o) noexcept { swap(o); }
  DeviceArray& operator=(DeviceArray&& o) noexcept {
    DeviceArray gone(std::move(*this));
    swap(o);
    return *this;
  }
  ~DeviceArray() { free_storage(); }

  iterator begin() { return iterator(p_); }
  iterator end() { return iterator(p_ + n_); }
  const_iterator begin() const { return const_iterator(p_); }
  const_iterator end() const { return const_iterator(p_ + n_); }
  iterator data() { return begin(); }
  const_iterator data() const { return begin(); }
  size_type size() const { return n_; }
  size_type capacity() const { return cap_; }
  bool empty() const { return n_ == 0; }
  // Host access to one element: a copy each way on a GPU (read_element and
  // write_element in exec_policy.hpp order it after a stream's work).
  reference operator[](size_type i) { return begin()[static_cast<std::ptrdiff_t>(i)]; }
  const_reference operator[](size_type i) const { return begin()[static_cast<std::ptrdiff_t>(i)]; }

  // n elements afterwards; the first min(n, size()) kept, the others
  // unwritten. Allocates only past the capacity.
  void resize(size_type n) {
    if (n > cap_) grow(grown(n), true);
    poison(n_, n);
    n_ = n;
  }
  // n elements afterwards, none of them kept: growth neither copies nor
  // holds old and new storage together.
  void resize_discarding(size_type n) {
    if (n > cap_) {
      free_storage();
      grow(grown(n), false);
    }
    poison(0, n);
    n_ = n;
  }
  // Room for n elements, the size unchanged.
  void reserve(size_type n) {
    if (n > cap_) grow(grown(n), true);
  }
  void clear() { n_ = 0; }
  // Gives the storage back (the size becomes 0).
  void release() {
    free_storage();
    n_ = cap_ = 0;
  }
  void swap(DeviceArray& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    std::swap(cap_, o.cap_);
  }
  // The elements of a host range, in storage grown as resize() grows it.
  template <class It>
  void assign(It first, It last) {
    const auto n = static_cast<size_type>(std::distance(first, last));
    resize(n);
    if (n) thrust::copy(first, last, begin());
  }

 private:
  // The capacity for n elements: n plus a sixteenth when n crept just past
  // the old capacity (ghosts, migrants), so that such counts settle after a
  // few rebuilds; exactly n for a first storage or a jump past a sixteenth
  // (a list's stride, which keeps its own room). Either way each growth is
  // by at least a sixteenth.
  size_type grown(size_type n) const { return cap_ == 0 || n > cap_ + cap_ / 16 ? n : n + n / 16; }
  // Storage for `cap` elements, the current ones copied over if `keep`. The
  // callers of exec_policy.hpp have waited for the stream that uses the old
  // storage, and Thrust's copy on its default stream returns when it is done.
  void grow(size_type cap, bool keep) {
    CountingAllocator<T> alloc;
    T* p = thrust::raw_pointer_cast(alloc.allocate(cap));
    if (keep && n_) thrust::copy(begin(), end(), iterator(p));
    free_storage();
    p_ = p;
    cap_ = cap;
  }
  // Keeps cap_ (a storage given back for a larger one still says how large
  // the array has been); release() and the destructor clear it.
  void free_storage() noexcept {
    if (p_) CountingAllocator<T>{}.deallocate(thrust::device_pointer_cast(p_), cap_);
    p_ = nullptr;
  }
  void poison(size_type from, size_type to) {
#if THRUST_DEVICE_SYSTEM != THRUST_DEVICE_SYSTEM_CUDA
    if (to > from) std::memset(static_cast<void*>(p_ + from), 0xFF, (to - from) * sizeof(T));
#else
    (void)from, (void)to;
#endif
  }

  T* p_ = nullptr;
  size_type n_ = 0, cap_ = 0;
};

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
