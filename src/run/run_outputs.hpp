#pragma once
#include <chrono>
#include <memory>
#include <string>

#include "analysis/analysis.hpp"
#include "io/topology_writer.hpp"
#include "run/simulation.hpp"
#include "run/stop_request.hpp"

namespace tessera {

class H5mdWriter;
class TextTrajectory;

// Checkpoints, the H5MD trajectory and the text trajectories (LAMMPS dump,
// extended XYZ), called by the step loop after each step. Opened before the
// first step, so a path that cannot be written fails at start-up, not hours
// into the run.
class RunOutputs : public StepHook {
 public:
  // resume_step: the checkpoint step a restarted run continues from, or -1.
  // `stop` (may be null) is asked after every step whether to stop early.
  // `msd_origin`: a restarted run's (resumed_msd_origin), for analysis.msd.
  RunOutputs(const Deck& deck, const Simulation& sim, long resume_step, const StopPolicy* stop = nullptr,
             MsdOrigin msd_origin = {});
  ~RunOutputs() override;

  // The state before the first step of a fresh run (trajectory frame 0).
  void initial(const Simulation& sim);
  bool after_step(const Simulation& sim, bool last) override;
  // An H5MD frame's observables only; the other outputs read no energy.
  bool reads_energy(long step, bool last) const override;
  // The final checkpoint, unless this step already has one.
  void finish(const Simulation& sim);

  const std::string& last_checkpoint() const { return last_checkpoint_; }
  // Report each checkpoint and frame written on stdout.
  void set_verbose(bool on) { verbose_ = on; }
  // Why the run stopped early ("SIGTERM", "run.max_walltime", ...); empty if not.
  const std::string& stop_reason() const { return stop_reason_; }

 private:
  void write_checkpoint_now(const Simulation& sim);
  void write_frame(const Simulation& sim);
  void open_text_trajectories(const Simulation& sim, long resume_step);
  void write_text_frames(const Simulation& sim);
  // The deck's analysis due at this step.
  void sample_analysis(const Simulation& sim);
  // Ids, types, positions, images and molecule ids of every atom, the bonds
  // and angles, the masses, box and step, on rank 0 (collective; the other
  // ranks get an empty one). `state`: also the velocities and the bond and
  // angle coefficients, with the positions wrapped into the box (output.data).
  Topology gather_topology(const Simulation& sim, bool state = false) const;
  // output.data's LAMMPS data file of the current state (collective).
  void write_data_file(const Simulation& sim);
  // The LAMMPS data file beside the H5MD trajectory (topology_writer.hpp),
  // on rank 0.
  void write_topology_file(const Topology& t, long resume_step) const;
  // Unwrapped positions and types of every atom, by id, on rank 0 (collective).
  std::vector<double> gather_msd_rows(const Simulation& sim) const;

  const Deck& deck_;
  std::unique_ptr<H5mdWriter> trajectory_;
  std::unique_ptr<TextTrajectory> dump_, xyz_;
  std::unique_ptr<Analysis> analysis_;
  const StopPolicy* stop_;
  bool root_ = true;  // rank 0: the one that writes files
  bool verbose_ = false;
  std::string stop_reason_;
  std::string last_checkpoint_;
  long last_checkpoint_step_ = -1;
  long last_data_step_ = -1;
  std::chrono::steady_clock::time_point last_checkpoint_time_;
};

}  // namespace tessera
