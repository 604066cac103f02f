#pragma once
#include <array>
#include <chrono>

namespace tessera {

// Wall time per phase of the step, for the performance summary.
enum class Phase { kPair, kNeighbor, kIntegrate, kCommunicate, kOutput, kOther, kCount };
const char* phase_name(Phase p);

class PhaseTimers {
 public:
  using Clock = std::chrono::steady_clock;
  void start(Phase p) {
    current_ = p;
    t0_ = Clock::now();
  }
  // Stops the running phase and starts the next one.
  void next(Phase p) {
    stop();
    start(p);
  }
  void stop() {
    const auto t = Clock::now();
    seconds_[static_cast<int>(current_)] += std::chrono::duration<double>(t - t0_).count();
    t0_ = t;
  }
  double seconds(Phase p) const { return seconds_[static_cast<int>(p)]; }
  double total() const {
    double s = 0;
    for (double v : seconds_) s += v;
    return s;
  }

 private:
  std::array<double, static_cast<int>(Phase::kCount)> seconds_{};
  Phase current_ = Phase::kOther;
  Clock::time_point t0_ = Clock::now();
};

}  // namespace tessera
