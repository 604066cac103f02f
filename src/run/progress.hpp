#pragma once
// How far a run is: on a terminal a live line redrawn in place (step, % done,
// atom-steps/s, ETA); in a batch log a plain line every few seconds, since
// carriage returns make a mess of a log file.
#include <chrono>
#include <vector>

#include "run/simulation.hpp"

namespace tessera {

class Progress : public StepHook {
 public:
  enum class Mode { kOff, kLive, kLines };
  // `last_step`: the run's final step; `every_seconds`: the interval of
  // plain lines (a live line redraws twice a second).
  Progress(Mode mode, long first_step, long last_step, long long natoms, double every_seconds);
  bool after_step(const Simulation& sim, bool last) override;
  bool reads_energy(long, bool) const override { return false; }
  // Clears a live line before the summary is printed.
  void finish();

  // kLive when stdout is a terminal, else kLines.
  static Mode for_stdout();

 private:
  using Clock = std::chrono::steady_clock;
  Mode mode_;
  long first_, last_;
  double natoms_;
  double every_;
  Clock::time_point start_, shown_;
  bool drawn_ = false;
};

// Several hooks after each step, in order; the run stops if any says so.
class StepHooks : public StepHook {
 public:
  explicit StepHooks(std::vector<StepHook*> hooks) : hooks_(std::move(hooks)) {}
  bool after_step(const Simulation& sim, bool last) override {
    bool go_on = true;
    for (StepHook* h : hooks_)
      if (h) go_on = h->after_step(sim, last) && go_on;
    return go_on;
  }
  bool reads_energy(long step, bool last) const override {
    for (const StepHook* h : hooks_)
      if (h && h->reads_energy(step, last)) return true;
    return false;
  }

 private:
  std::vector<StepHook*> hooks_;
};

}  // namespace tessera
