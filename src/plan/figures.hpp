#pragma once
#include <string>
#include <vector>

namespace tessera {

// One measured throughput figure: a run of the LJ melt benchmark on one
// device (benchmarks/results/gpu-figures.csv, written by the GPU check in
// scripts/gpu/device-run.sh; docs/gpu.md). `tessera plan` estimates time per
// step from these and from nothing else.
struct Figure {
  std::string date, commit, device, backend, precision, layout;
  long long atoms = 0;
  int ranks = 1;
  double atom_steps_per_s = 0;
  std::string where;  // "FILE:LINE", for messages
};

// The header every figures file starts with (after '#' comment lines).
extern const char* const kFiguresHeader;

// Reads a figures file's text. A line that is not a figure is an InputError
// naming `name`, the line and the column.
std::vector<Figure> parse_figures(const std::string& text, const std::string& name);

// A file's figures and its name, for the output.
struct Figures {
  std::vector<Figure> rows;
  std::string name;
};

// The figures file at `path`; with an empty path, the one this binary was
// built with (benchmarks/results/gpu-figures.csv).
Figures load_figures(const std::string& path);

// Time per step on one device when the largest rank holds `atoms` atoms,
// from the single-rank CUDA figures of that device with the deck's
// precision and neighbour layout: atoms / throughput, the throughput
// interpolated linearly in log(atoms) between the measured sizes. Below the
// smallest measured size it is a bound, that size's time per step (kAtMost);
// above the largest, that size's throughput carried on (kBeyond).
struct StepEstimate {
  enum Side { kWithin, kAtMost, kBeyond };
  std::string device;
  double seconds = 0, atom_steps_per_s = 0;
  long long measured_lo = 0, measured_hi = 0;
  int points = 0;
  Side side = kWithin;
  std::string newest_date, newest_commit;
};
std::vector<StepEstimate> estimate_step_time(const std::vector<Figure>& figures, const std::string& precision,
                                             const std::string& layout, long long atoms);

}  // namespace tessera
