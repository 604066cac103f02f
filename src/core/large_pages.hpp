#pragma once
// Storage for the arrays a step streams through whole (the neighbour rows,
// the pair kernels' packed records): allocations of at least 2 MiB are
// 2 MiB-aligned and marked for transparent huge pages (MADV_HUGEPAGE).
//
// Why: Debian's default THP mode is `madvise`, so without the mark every
// array is in 4 KiB pages. A 256,000-atom LJ melt's rows are 115 MB, read
// once a step; each 4 KiB of them costs a TLB walk, and the records they
// index are read at random over 5 MB. Marked, the mixed row kernel's Pair
// phase fell 4-7 % there (2-vCPU EPYC, 2026-11-30; benchmarks/NOTES.md).
// Only these arrays: a huge page is zeroed whole when first touched (and on
// this VM first backed by the host), which a short-lived buffer would pay
// each time it is made.
// Where THP is off (`never`) or the system is not Linux the mark does
// nothing and the arrays are ordinary.
#include <cstddef>
#include <cstdlib>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace tessera {

inline constexpr std::size_t kLargePage = std::size_t{2} << 20;

// Raw storage for `bytes`: large-page aligned and marked when at least one
// large page, else from operator new. Free with release_large(p, bytes).
inline void* allocate_large(std::size_t bytes) {
  if (bytes < kLargePage) return ::operator new(bytes);
  const std::size_t rounded = (bytes + kLargePage - 1) / kLargePage * kLargePage;
  void* p = std::aligned_alloc(kLargePage, rounded);
  if (p == nullptr) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  // A hint: failure (THP off, an old kernel) leaves ordinary pages.
  (void)madvise(p, rounded, MADV_HUGEPAGE);
#endif
  return p;
}
inline void release_large(void* p, std::size_t bytes) noexcept {
  if (bytes < kLargePage)
    ::operator delete(p);
  else
    std::free(p);
}

template <class T>
struct LargePageAllocator {
  using value_type = T;
  LargePageAllocator() = default;
  template <class U>
  LargePageAllocator(const LargePageAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(allocate_large(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t n) noexcept { release_large(p, n * sizeof(T)); }
  // Growth default-initialises (an int or a double is left unwritten):
  // every user overwrites what it sizes, and a value-initialising resize
  // wrote a large array twice, the first time, with the page faults, on
  // one thread while the others waited.
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible<U>::value) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  template <class U>
  bool operator==(const LargePageAllocator<U>&) const noexcept {
    return true;
  }
  template <class U>
  bool operator!=(const LargePageAllocator<U>&) const noexcept {
    return false;
  }
};

// A vector whose storage, once large, lies in marked large pages.
template <class T>
using LargeVector = std::vector<T, LargePageAllocator<T>>;

}  // namespace tessera
