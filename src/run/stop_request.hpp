#pragma once
// Why and when a run should stop before run.steps: a signal from the batch
// system (SIGTERM, SIGINT, SIGUSR1) or a wall-time budget running out. The run
// then writes a checkpoint and exits with kExitIncomplete, so the job script
// can requeue it and --restart auto continues where it stopped.
#include <chrono>
#include <optional>
#include <string>

namespace tessera {

// Installs the handlers. The first signal asks for a stop at the end of the
// current step; a second one, 1 s or more later, ends the process at once
// (exit 75) — the last checkpoint on disk is complete, since checkpoints are
// renamed into place. Repeats within 1 s are the same request.
void install_stop_signals();
// The signal received so far (0: none).
int stop_signal();
const char* signal_name(int signo);

class StopPolicy {
 public:
  using Clock = std::chrono::steady_clock;
  // max_walltime: seconds from `start` (0: none). margin: seconds kept for the
  // final checkpoint and exit. job_end: wall-clock end of the batch job.
  StopPolicy(Clock::time_point start, double max_walltime, double margin,
             std::optional<std::chrono::system_clock::time_point> job_end);

  // A reason to stop now ("SIGUSR1", "run.max_walltime", "the job's end
  // time"), or empty.
  std::string check() const;
  std::string describe() const;  // for the run banner; empty when no budget

 private:
  std::optional<Clock::time_point> deadline_;
  std::string deadline_source_;
  double margin_;
};

// The end time of the Slurm job this process runs in, if any: from
// SLURM_JOB_END_TIME (seconds since the epoch) or else `squeue`.
std::optional<std::chrono::system_clock::time_point> slurm_job_end();

}  // namespace tessera
