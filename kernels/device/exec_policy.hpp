#pragma once
// Where the device pipeline runs. The same headers compile with nvcc for the
// CUDA system (real GPUs) and with g++ for Thrust's OpenMP system (CI, which
// has no GPU), so every algorithm is run and tested without a GPU.
#include <thrust/system_error.h>
#include <thrust/copy.h>

#include <cstdint>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>
#include <thrust/execution_policy.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>

#include "core/host_device.hpp"

#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
#include <cuda_runtime_api.h>
#include <thrust/system/cuda/execution_policy.h>
// Code built for two device systems may end up in one program (the CUDA
// kernels library and an OpenMP build of the same headers): distinct
// namespaces keep their inline functions from being merged by the linker.
#define TESSERA_DEVICE_SYSTEM_NS cuda_system
#else
#define TESSERA_DEVICE_SYSTEM_NS host_system
#if THRUST_DEVICE_SYSTEM != THRUST_DEVICE_SYSTEM_OMP
#error "the device pipeline is built for Thrust's CUDA or OpenMP system"
#endif
#include <thrust/system/omp/execution_policy.h>
#endif

#include "device/device_array.hpp"
#include "device/device_error.hpp"
#include "device/scratch_cache.hpp"

namespace tessera::device {
inline namespace TESSERA_DEVICE_SYSTEM_NS {

// The pipeline's arrays: no value-initialisation, capacity kept
// (device_array.hpp).
template <class T>
using dvec = DeviceArray<T>;

template <class T>
T* raw(dvec<T>& v) {
  return thrust::raw_pointer_cast(v.data());
}
template <class T>
const T* raw(const dvec<T>& v) {
  return thrust::raw_pointer_cast(v.data());
}

#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
// The stream a pipeline's work is queued on. Thrust's par_nosync returns as
// soon as an algorithm is queued; the host waits only where it takes a value
// (a reduction, a count that sizes an array, a copy to the host), and the
// phase timeline (phase_timeline.hpp) reads the device's time from events.
// The stream does not synchronise with the default stream
// (cudaStreamNonBlocking; the build also gives each host thread its own
// default stream, --default-stream per-thread): a device array's own
// operations that touch memory (growth, element access, host copies, frees;
// device_array.hpp) run on Thrust's default stream, so every one of them
// goes through the helpers below,
// which first wait for the owner's stream. Nothing is ordered by the legacy
// default stream's implicit synchronisation, nor by cudaFree's.
// TESSERA_BLOCKING_STREAMS (CMake option) brings back blocking streams and
// the legacy default stream, to tell a missed wait from a kernel fault.
struct DeviceStream {
  cudaStream_t stream = nullptr;      // nullptr: only before create()
  std::shared_ptr<CUstream_st> owner;  // set by create(): the last copy destroys it
  std::shared_ptr<ScratchCache> scratch = std::make_shared<ScratchCache>();  // Thrust's temporaries on this stream
  std::shared_ptr<dvec<std::uint64_t>> stage = std::make_shared<dvec<std::uint64_t>>();  // stage_scratch()

  static DeviceStream create() {
    cudaStream_t s = nullptr;
#ifdef TESSERA_BLOCKING_STREAMS
    const unsigned flags = cudaStreamDefault;
#else
    const unsigned flags = cudaStreamNonBlocking;
#endif
    const cudaError_t rc = cudaStreamCreateWithFlags(&s, flags);
    if (rc != cudaSuccess)
      throw std::runtime_error(std::string("cudaStreamCreateWithFlags: ") + cudaGetErrorString(rc));
    DeviceStream d;
    d.stream = s;
    d.owner.reset(s, [](cudaStream_t x) { cudaStreamDestroy(x); });
    return d;
  }
};
// Thrust's scratch comes from the stream's cache (scratch_cache.hpp), never
// from cudaMalloc/cudaFree per call.
inline auto policy(const DeviceStream& s) { return thrust::cuda::par_nosync(*s.scratch).on(s.stream); }
// One stream waits for what another has queued so far (an event recorded
// on `from`), without the host waiting.
class StreamOrder {
 public:
  StreamOrder() {
    const cudaError_t rc = cudaEventCreateWithFlags(&event_, cudaEventDisableTiming);
    if (rc != cudaSuccess) throw std::runtime_error(std::string("cudaEventCreateWithFlags: ") + cudaGetErrorString(rc));
  }
  StreamOrder(const StreamOrder&) = delete;
  StreamOrder& operator=(const StreamOrder&) = delete;
  ~StreamOrder() { cudaEventDestroy(event_); }
  void after(const DeviceStream& from, const DeviceStream& waits) {
    cudaError_t rc = cudaEventRecord(event_, from.stream);
    if (rc == cudaSuccess) rc = cudaStreamWaitEvent(waits.stream, event_, 0);
    if (rc != cudaSuccess) throw std::runtime_error(std::string("stream order: ") + cudaGetErrorString(rc));
  }

 private:
  cudaEvent_t event_ = nullptr;
};
#else
struct DeviceStream {
  std::shared_ptr<ScratchCache> scratch = std::make_shared<ScratchCache>();
  std::shared_ptr<dvec<std::uint64_t>> stage = std::make_shared<dvec<std::uint64_t>>();  // stage_scratch()
  static DeviceStream create() { return {}; }
};
// The same scratch cache as on a GPU, so that its bookkeeping runs here too.
inline auto policy(const DeviceStream& s) { return thrust::omp::par(*s.scratch); }
// Work on the OpenMP system is done when the call returns: nothing to order.
struct StreamOrder {
  void after(const DeviceStream&, const DeviceStream&) {}
};
#endif

// Host memory the GPU's copy engines read and write directly (page-locked):
// a copy to or from it runs asynchronously at full bus speed, where one from
// ordinary memory is staged by the driver through a buffer of its own. The
// halo's host-staged transport keeps one per swap. On Thrust's OpenMP
// system it is ordinary memory.
template <class T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  PinnedBuffer(PinnedBuffer&& o) noexcept : p_(o.p_), n_(o.n_), cap_(o.cap_) { o.p_ = nullptr, o.n_ = o.cap_ = 0; }
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    std::swap(cap_, o.cap_);
    return *this;
  }
  ~PinnedBuffer() { free(); }
  // Holds n elements afterwards (contents not kept). The allocation only
  // grows, with a quarter to spare: a swap's count changes at nearly every
  // rebuild, and cudaFreeHost waits for the whole device.
  void resize(std::size_t n) {
    if (n <= cap_) {
      n_ = n;
      return;
    }
    free();
    const std::size_t cap = n + n / 4;
#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
    void* p = nullptr;
    const cudaError_t rc = cudaMallocHost(&p, cap * sizeof(T));
    if (rc != cudaSuccess) {
      (void)cudaGetLastError();
      throw std::runtime_error("cudaMallocHost of " + std::to_string(cap * sizeof(T)) + " bytes (" __FILE__ ":" +
                               std::to_string(__LINE__) + "): " + cudaGetErrorString(rc));
    }
    p_ = static_cast<T*>(p);
#else
    p_ = new T[cap];
#endif
    n_ = n;
    cap_ = cap;
  }
  T* data() { return p_; }
  const T* data() const { return p_; }
  std::size_t size() const { return n_; }
  std::size_t capacity() const { return cap_; }

 private:
  void free() {
#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
    if (p_) cudaFreeHost(p_);
#else
    delete[] p_;
#endif
    p_ = nullptr;
    n_ = cap_ = 0;
  }
  T* p_ = nullptr;
  std::size_t n_ = 0, cap_ = 0;
};

// The host waits until what is queued on `s` has run (a buffer MPI is about
// to read is complete).
inline void synchronize(const DeviceStream& s) {
#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
  const cudaError_t rc = cudaStreamSynchronize(s.stream);
  if (rc != cudaSuccess) throw std::runtime_error(std::string("cudaStreamSynchronize: ") + cudaGetErrorString(rc));
#else
  (void)s;
#endif
}

// Waits for both streams, swallowing errors: for destructors, so that
// nothing queued outlives the arrays it uses (their frees run on Thrust's
// default stream). An error here was already met and reported.
inline void quiesce(const DeviceStream& a, const DeviceStream& b) noexcept {
  try {
    synchronize(a);
    synchronize(b);
  } catch (...) {
  }
}

// A device array's own operations that touch memory (growth, element
// access, host copies, giving storage back) run on Thrust's default stream,
// which does not wait for the pipeline's streams: each helper below that
// may do one first waits for `s`, the stream that queues the array's users.
// Work of the halo stream is joined back into the compute stream by an
// event (force_pipeline.hpp), so waiting for the compute stream covers it
// too.

// n elements afterwards (the first ones kept, the rest unwritten). Inside
// the capacity this is bookkeeping: no wait, no allocation, no launch, so
// per-step and per-rebuild callers cost nothing once the run has settled.
// Past it the array grows (device_array.hpp), after what `s` queued.
template <class T>
void resize(const DeviceStream& s, dvec<T>& v, std::size_t n) {
  if (n > v.capacity()) synchronize(s);
  v.resize(n);
}

// Room for n elements without changing the size (so that later resizes up
// to n are bookkeeping).
template <class T>
void reserve(const DeviceStream& s, dvec<T>& v, std::size_t n) {
  if (n <= v.capacity()) return;
  synchronize(s);
  v.reserve(n);
}

// The same, when the contents need not be kept (arrays a rebuild rewrites
// whole): growth then never copies, nor holds old and new storage together.
template <class T>
void resize_for_overwrite(const DeviceStream& s, dvec<T>& v, std::size_t n) {
  if (n > v.capacity()) synchronize(s);
  v.resize_discarding(n);
}

// n elements of T, unwritten, from storage that the stages of a rebuild on
// stream `s` take in turn: the sort's and the migration's gathers, the
// ghosts' candidates, the cluster build's keys and then its bounds. One
// such array per stream is live at a time: a stage's take ends the last
// one, whose readers were queued on `s` before the new writers, so the
// reuse is ordered by the stream. Kept between rebuilds, like every array
// of the pipeline, it costs the largest stage's need once, where separate
// arrays per stage would each be held for the whole run.
template <class T>
thrust::device_ptr<T> stage_scratch(const DeviceStream& s, std::size_t n) {
  static_assert(alignof(T) <= alignof(std::uint64_t), "stage scratch is 8-byte aligned");
  dvec<std::uint64_t>& words = *s.stage;
  resize_for_overwrite(s, words, (n * sizeof(T) + sizeof(std::uint64_t) - 1) / sizeof(std::uint64_t));
  return thrust::device_pointer_cast(reinterpret_cast<T*>(raw(words)));
}

// Gives the storage back, once what `s` queued has run. Only where asked
// for: the pipeline keeps its arrays' storage from rebuild to rebuild.
template <class T>
void release(const DeviceStream& s, dvec<T>& v) {
  synchronize(s);
  v.release();
}

// One element, read or written by the host in the order of `s`.
template <class T>
T read_element(const DeviceStream& s, const dvec<T>& v, std::size_t i) {
  synchronize(s);
  return v[i];
}
template <class T>
void write_element(const DeviceStream& s, dvec<T>& v, std::size_t i, const T& value) {
  synchronize(s);
  v[i] = value;
}

// The first n elements of d into h (resized to n), after what `s` queued.
template <class T>
void to_host(const DeviceStream& s, const dvec<T>& d, std::size_t n, std::vector<T>& h) {
  synchronize(s);
  h.resize(n);
  thrust::copy(d.begin(), d.begin() + static_cast<long>(n), h.begin());
}
// h into d from element `at` on (d already that long), after what `s`
// queued; the copy is done when this returns.
template <class T>
void to_device(const DeviceStream& s, const std::vector<T>& h, dvec<T>& d, std::size_t at = 0) {
  synchronize(s);
  if (!h.empty()) thrust::copy(h.begin(), h.end(), d.begin() + static_cast<long>(at));
}
// d holds exactly h's elements.
template <class T>
void assign(const DeviceStream& s, dvec<T>& d, const std::vector<T>& h) {
  synchronize(s);
  d.assign(h.begin(), h.end());
}

// Copies between device and host memory queued on stream `s` only, so they
// are ordered after what `s` queued and nothing else (a copy on a default
// stream would not be ordered with `s` at all, or, with blocking streams,
// would wait for the forces on the other stream too). The copy to the host returns
// once the data is there; the copy to the device is ordered before what is
// queued on `s` next, and `h` must stay untouched until that has run (with
// pinned memory the copy really is asynchronous).
inline void copy_to_host(const DeviceStream& s, const dvec<double>& d, double* h) {
#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
  cudaError_t rc = cudaMemcpyAsync(h, thrust::raw_pointer_cast(d.data()), d.size() * sizeof(double),
                                   cudaMemcpyDeviceToHost, s.stream);
  if (rc == cudaSuccess) rc = cudaStreamSynchronize(s.stream);
  if (rc != cudaSuccess) throw std::runtime_error(std::string("copy to host: ") + cudaGetErrorString(rc));
#else
  (void)s;
  thrust::copy(d.begin(), d.end(), h);
#endif
}
inline void copy_to_device(const DeviceStream& s, const double* h, dvec<double>& d) {
#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
  const cudaError_t rc = cudaMemcpyAsync(thrust::raw_pointer_cast(d.data()), h, d.size() * sizeof(double),
                                         cudaMemcpyHostToDevice, s.stream);
  if (rc != cudaSuccess) throw std::runtime_error(std::string("copy to device: ") + cudaGetErrorString(rc));
#else
  (void)s;
  thrust::copy(h, h + d.size(), d.begin());
#endif
}

// Runs a host-device functor over [0, n): the Thrust twin of cpu_for
// (src/backend/cpu_exec.hpp) and cuda_for (kernels/for_each_atom.cuh).
template <class F>
void for_each_index(const DeviceStream& s, int n, const F& f) {
  if (n > 0) thrust::for_each(policy(s), thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(n), f);
}

// Generic maximum for reductions (thrust::maximum is on its way out of CCCL).
struct MaxOf {
  template <class T>
  TESSERA_HD T operator()(const T& a, const T& b) const {
    return a < b ? b : a;
  }
};
struct MinOf {
  template <class T>
  TESSERA_HD T operator()(const T& a, const T& b) const {
    return b < a ? b : a;
  }
};

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
