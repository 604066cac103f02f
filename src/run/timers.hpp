#pragma once
#include <algorithm>
#include <array>
#include <chrono>
#include <functional>

namespace tessera {

// Wall time per phase of the step, for the performance summary.
// kWait is the time spent blocked until other ranks arrive (see
// Communicator::waited_seconds), taken out of whichever phase it happened
// in (the halo build's and migration's size handshakes in kCommunicate,
// the displacement check's reduction in kNeighbor, thermo sums in
// kOutput); it is never started directly. A step's ghost positions go with
// no handshake, so waiting for a slower partner there stays in
// kCommunicate.
enum class Phase { kPair, kNeighbor, kIntegrate, kCommunicate, kWait, kOutput, kOther, kCount };
const char* phase_name(Phase p);
// Work a rank does by itself, whose imbalance makes the others wait.
inline bool is_compute(Phase p) { return p != Phase::kCommunicate && p != Phase::kWait && p != Phase::kOutput; }

class PhaseTimers {
 public:
  using Clock = std::chrono::steady_clock;
  // `waited` counts the seconds spent blocked in communication (owned by
  // the communicator, which outlives the timers); what it grew by during an
  // interval is booked as kWait instead of the running phase.
  void attach_wait_counter(const double* waited) { waited_ = waited; }
  // Called at every phase start (the device backend marks its queue there).
  void on_start(std::function<void(Phase)> f) { on_start_ = std::move(f); }
  void start(Phase p) {
    if (on_start_) on_start_(p);
    current_ = p;
    t0_ = Clock::now();
    w0_ = waited_ ? *waited_ : 0.0;
  }
  // Stops the running phase and starts the next one.
  void next(Phase p) {
    stop();
    start(p);
  }
  void stop() {
    const auto t = Clock::now();
    double dt = std::chrono::duration<double>(t - t0_).count();
    if (waited_) {
      const double dw = std::min(std::max(*waited_ - w0_, 0.0), dt);
      seconds_[static_cast<int>(Phase::kWait)] += dw;
      dt -= dw;
      w0_ = *waited_;
    }
    seconds_[static_cast<int>(current_)] += dt;
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
  const double* waited_ = nullptr;
  double w0_ = 0;
  std::function<void(Phase)> on_start_;
};

}  // namespace tessera
