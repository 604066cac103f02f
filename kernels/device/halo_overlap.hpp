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

  void interior_start() { step_.a = on_compute_.record(); }
  void interior_end() { step_.b = on_compute_.record(); }
  void halo_start() { step_.c = on_halo_.record(); }
  void halo_end() {
    step_.d = on_halo_.record();
    open_.push_back(step_);
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
  void collect() {
    while (!open_.empty() && on_compute_.passed(open_.front().b) && on_halo_.passed(open_.front().d)) {
      const Step& s = open_.front();
      const double tb = on_compute_.seconds(s.a, s.b), tc = on_compute_.seconds(s.a, s.c),
                   td = on_compute_.seconds(s.a, s.d);
      const double from = tc > 0 ? tc : 0, to = td < tb ? td : tb;
      times_.halo += td - tc;
      times_.hidden += to > from ? to - from : 0;
      on_compute_.recycle(s.a);
      on_compute_.recycle(s.b);
      on_halo_.recycle(s.c);
      on_halo_.recycle(s.d);
      open_.pop_front();
    }
  }

  StreamMarks on_compute_, on_halo_;
  Step step_;
  std::deque<Step> open_;
  HaloTimes times_;
};

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
