#pragma once
// Live metrics (deck output.metrics): one JSON object per line, flushed as
// it is written, for dashboards and `tail -f`. Each line covers the interval
// since the previous one: throughput, seconds per phase, load imbalance over
// the ranks and memory, and, where the driver's NVML library answers, each
// rank's GPU (utilisation, temperature, memory). Rank 0 writes; every rank
// takes part in the sums.
#include <array>
#include <chrono>
#include <cstdio>
#include <string>

#include "deck/deck.hpp"
#include "run/simulation.hpp"

namespace tessera {

class MetricsWriter : public StepHook {
 public:
  // resume_step >= 0: appends to the file, first dropping lines past that
  // step (left by a run that died after its last checkpoint).
  MetricsWriter(const MetricsSpec& spec, const Simulation& sim, long resume_step);
  ~MetricsWriter() override;
  MetricsWriter(const MetricsWriter&) = delete;
  MetricsWriter& operator=(const MetricsWriter&) = delete;
  bool after_step(const Simulation& sim, bool last) override;
  bool reads_energy(long, bool) const override { return false; }

 private:
  void write(const Simulation& sim);
  // NVML's reading of every rank's GPU, gathered on rank 0 as a JSON array
  // ("null" when no rank has one). Collective.
  std::string gpu_json(const Communicator& c) const;
  using Clock = std::chrono::steady_clock;
  MetricsSpec spec_;
  std::FILE* file_ = nullptr;
  long last_step_ = 0;
  Clock::time_point last_time_;
  std::array<double, static_cast<int>(Phase::kCount)> last_phase_{};
  int gpu_ = -1;  // this rank's GPU by NVML index, -1 when NVML shows none
};

// Resident memory of this process in MiB (Linux /proc), or -1.
double resident_mib();

}  // namespace tessera
