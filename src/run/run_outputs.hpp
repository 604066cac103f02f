#pragma once
#include <chrono>
#include <memory>
#include <string>

#include "run/simulation.hpp"

namespace tessera {

class H5mdWriter;

// Checkpoints and the H5MD trajectory, called by the step loop after each
// step. Opened before the first step, so a path that cannot be written fails
// at start-up, not hours into the run.
class RunOutputs : public StepHook {
 public:
  // resume_step: the checkpoint step a restarted run continues from, or -1.
  RunOutputs(const Deck& deck, const Simulation& sim, long resume_step);
  ~RunOutputs() override;

  // The state before the first step of a fresh run (trajectory frame 0).
  void initial(const Simulation& sim);
  void after_step(const Simulation& sim, bool last) override;
  // The final checkpoint, unless this step already has one.
  void finish(const Simulation& sim);

  const std::string& last_checkpoint() const { return last_checkpoint_; }

 private:
  void write_checkpoint_now(const Simulation& sim);
  void write_frame(const Simulation& sim);

  const Deck& deck_;
  std::unique_ptr<H5mdWriter> trajectory_;
  std::string last_checkpoint_;
  long last_checkpoint_step_ = -1;
  std::chrono::steady_clock::time_point last_checkpoint_time_;
};

}  // namespace tessera
