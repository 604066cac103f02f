#pragma once
// Device time per phase of the step. Once work is queued on a stream without
// waiting, the host's phase timers measure launches, and the device's time
// shows up wherever the host next waits. So each phase start also drops a
// mark into the stream (a CUDA event; a host clock reading on Thrust's
// OpenMP system, where work is done when the call returns), and the time
// between two marks, measured by the device, is booked to the first mark's
// phase. Marks are read only once the device has passed them: the timeline
// never makes the host wait.
#include <deque>
#include <utility>
#include <vector>

#include "device/exec_policy.hpp"

#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
#include "cuda_check.hpp"
#else
#include <chrono>
#endif

namespace tessera::device {
inline namespace TESSERA_DEVICE_SYSTEM_NS {

#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
// Events from a pool, recorded on the stream (cudaEventRecord does not wait).
class StreamMarks {
 public:
  using Mark = cudaEvent_t;
  explicit StreamMarks(DeviceStream s) : stream_(std::move(s)) {}
  StreamMarks(const StreamMarks&) = delete;
  StreamMarks& operator=(const StreamMarks&) = delete;
  ~StreamMarks() {
    for (cudaEvent_t e : free_) cudaEventDestroy(e);  // no throwing from a destructor
  }
  Mark record() {
    cudaEvent_t e;
    if (free_.empty()) {
      TESSERA_CUDA_CHECK(cudaEventCreate(&e));
    } else {
      e = free_.back();
      free_.pop_back();
    }
    TESSERA_CUDA_CHECK(cudaEventRecord(e, stream_.stream));
    return e;
  }
  bool passed(Mark m) const {
    const cudaError_t rc = cudaEventQuery(m);
    if (rc == cudaErrorNotReady) return false;
    TESSERA_CUDA_CHECK(rc);
    return true;
  }
  double seconds(Mark a, Mark b) const {
    float ms = 0;
    TESSERA_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    return 1e-3 * ms;
  }
  void recycle(Mark m) { free_.push_back(m); }
  void wait(Mark m) const { TESSERA_CUDA_CHECK(cudaEventSynchronize(m)); }

 private:
  DeviceStream stream_;
  std::vector<cudaEvent_t> free_;
};
#else
class StreamMarks {
 public:
  using Mark = std::chrono::steady_clock::time_point;
  explicit StreamMarks(const DeviceStream&) {}
  Mark record() { return std::chrono::steady_clock::now(); }
  bool passed(const Mark&) const { return true; }
  double seconds(const Mark& a, const Mark& b) const { return std::chrono::duration<double>(b - a).count(); }
  void recycle(const Mark&) {}
  void wait(const Mark&) const {}
};
#endif

class PhaseTimeline {
 public:
  PhaseTimeline(DeviceStream s, int nphases) : marks_(std::move(s)), seconds_(static_cast<std::size_t>(nphases), 0.0) {}
  PhaseTimeline(const PhaseTimeline&) = delete;
  PhaseTimeline& operator=(const PhaseTimeline&) = delete;
  // Marks the device has not passed yet (a run that stops or throws
  // mid-step leaves some) go back to the pool, whose destructor frees them:
  // otherwise each engine torn down that way would leak its last events.
  ~PhaseTimeline() {
    for (auto& m : open_) marks_.recycle(m.second);
  }

  // Phase `phase` starts now, in stream order.
  void mark(int phase) {
    open_.emplace_back(phase, marks_.record());
    // A run that never lets the host wait would queue marks without end:
    // past this many, wait for the oldest (it is long done in practice).
    if (open_.size() > kMaxOpen) marks_.wait(open_[1].second);
    collect();
  }
  // Seconds per phase between marks the device has passed.
  const std::vector<double>& seconds() {
    collect();
    return seconds_;
  }

 private:
  static constexpr std::size_t kMaxOpen = 4096;
  void collect() {
    while (open_.size() >= 2 && marks_.passed(open_[1].second)) {
      seconds_[static_cast<std::size_t>(open_[0].first)] += marks_.seconds(open_[0].second, open_[1].second);
      marks_.recycle(open_[0].second);
      open_.pop_front();
    }
  }

  StreamMarks marks_;
  std::deque<std::pair<int, StreamMarks::Mark>> open_;
  std::vector<double> seconds_;
};

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
