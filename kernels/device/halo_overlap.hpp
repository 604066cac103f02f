#pragma once
// How much of each step's halo refresh ran while the local forces did: four
// marks per step, the interior forces' start and end on the compute stream
// and the halo's start and end on the halo stream, read once the device has
// passed them (never making the host wait). On Thrust's OpenMP system the
// marks are clock readings of work done in order, so nothing overlaps.
#include <deque>

#include "device/phase_timeline.hpp"

namespace tessera::device {
inline namespace TESSERA_DEVICE_SYSTEM_NS {

struct HaloTimes {
  double halo = 0;    // seconds from the halo's start to its end, summed over steps
  double hidden = 0;  // of those, seconds while the interior forces ran
};

class HaloOverlapClock {
 public:
  HaloOverlapClock(const DeviceStream& compute, const DeviceStream& halo) : on_compute_(compute), on_halo_(halo) {}
  HaloOverlapClock(const HaloOverlapClock&) = delete;
  HaloOverlapClock& operator=(const HaloOverlapClock&) = delete;
  // Marks still queued, and those of a step that stopped midway (a halo
  // refresh that threw), go back to their pools, which free them.
  ~HaloOverlapClock() {
    for (const Step& s : open_) give_back(s);
    if (held_ & kA) on_compute_.recycle(step_.a);
    if (held_ & kB) on_compute_.recycle(step_.b);
    if (held_ & kC) on_halo_.recycle(step_.c);
  }

  void interior_start() { hold(on_compute_, step_.a, kA); }
  void interior_end() { hold(on_compute_, step_.b, kB); }
  void halo_start() { hold(on_halo_, step_.c, kC); }
  void halo_end() {
    step_.d = on_halo_.record();
    open_.push_back(step_);
    held_ = 0;  // the queued step owns them now
    collect();
  }
  const HaloTimes& times() {
    collect();
    return times_;
  }

 private:
  using Mark = StreamMarks::Mark;
  struct Step {
    Mark a{}, b{}, c{}, d{};
  };
  static constexpr unsigned kA = 1, kB = 2, kC = 4;
  // Records a mark of the current step; one left by a step that never
  // reached halo_end is reused rather than lost.
  void hold(StreamMarks& on, Mark& slot, unsigned bit) {
    if (held_ & bit) on.recycle(slot);
    slot = on.record();
    held_ |= bit;
  }
  void give_back(const Step& s) {
    on_compute_.recycle(s.a);
    on_compute_.recycle(s.b);
    on_halo_.recycle(s.c);
    on_halo_.recycle(s.d);
  }
  void collect() {
    while (!open_.empty() && on_compute_.passed(open_.front().b) && on_halo_.passed(open_.front().d)) {
      const Step& s = open_.front();
      const double tb = on_compute_.seconds(s.a, s.b), tc = on_compute_.seconds(s.a, s.c),
                   td = on_compute_.seconds(s.a, s.d);
      const double from = tc > 0 ? tc : 0, to = td < tb ? td : tb;
      times_.halo += td - tc;
      times_.hidden += to > from ? to - from : 0;
      give_back(s);
      open_.pop_front();
    }
  }

  StreamMarks on_compute_, on_halo_;
  Step step_;
  unsigned held_ = 0;  // which of step_'s marks are recorded and not yet queued
  std::deque<Step> open_;
  HaloTimes times_;
};

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
