#include "run/metrics.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "core/error.hpp"

namespace tessera {

double resident_mib() {
  std::ifstream in("/proc/self/status");
  std::string key;
  while (in >> key) {
    if (key == "VmRSS:") {
      double kib = 0;
      in >> kib;
      return kib / 1024;
    }
    in.ignore(1 << 16, '\n');
  }
  return -1;
}

namespace {

// The lines of a metrics file with "step" <= resume_step (each line starts
// with {"step": N).
std::string lines_up_to(const std::string& path, long resume_step) {
  std::ifstream in(path);
  std::string line, kept;
  while (std::getline(in, line)) {
    long step = 0;
    if (std::sscanf(line.c_str(), "{\"step\": %ld", &step) == 1 && step <= resume_step) kept += line + "\n";
  }
  return kept;
}

}  // namespace

MetricsWriter::MetricsWriter(const MetricsSpec& spec, const Simulation& sim, long resume_step)
    : spec_(spec), last_step_(sim.step()), last_time_(Clock::now()) {
  for (int p = 0; p < static_cast<int>(Phase::kCount); ++p)
    last_phase_[p] = sim.timers().seconds(static_cast<Phase>(p));
  if (sim.comm().rank() != 0) return;
  const std::string keep = resume_step >= 0 ? lines_up_to(spec.file, resume_step) : std::string();
  file_ = std::fopen(spec.file.c_str(), "w");
  if (!file_) throw IoError(fmt::format("output.metrics.file: cannot open {}: {}", spec.file, std::strerror(errno)));
  std::fputs(keep.c_str(), file_);
  std::fflush(file_);
}

MetricsWriter::~MetricsWriter() {
  if (file_) std::fclose(file_);
}

bool MetricsWriter::after_step(const Simulation& sim, bool last) {
  bool due = last || (spec_.every > 0 && sim.step() % spec_.every == 0);
  if (spec_.every_seconds > 0) {
    due = due || std::chrono::duration<double>(Clock::now() - last_time_).count() >= spec_.every_seconds;
    due = sim.comm().max(due ? 1 : 0) != 0;  // clocks differ between ranks; the sums are collective
  }
  if (due && sim.step() > last_step_) write(sim);
  return true;
}

void MetricsWriter::write(const Simulation& sim) {
  const auto now = Clock::now();
  const double wall = std::chrono::duration<double>(now - last_time_).count();
  const long steps = sim.step() - last_step_;
  std::array<double, static_cast<int>(Phase::kCount)> phase{};
  double compute = 0;
  for (int p = 0; p < static_cast<int>(Phase::kCount); ++p) {
    const Phase ph = static_cast<Phase>(p);
    phase[p] = sim.timers().seconds(ph) - last_phase_[p];
    last_phase_[p] = sim.timers().seconds(ph);
    if (is_compute(ph)) compute += phase[p];
  }
  const Communicator& c = sim.comm();
  const std::vector<double> all = c.allgather(compute);
  double sum = 0, most = 0;
  for (double v : all) {
    sum += v;
    most = std::max(most, v);
  }
  const double mean = sum / static_cast<double>(all.size());
  const double rss = c.max(resident_mib());
  last_step_ = sim.step();
  last_time_ = now;
  if (!file_) return;
  std::string phases;
  for (int p = 0; p < static_cast<int>(Phase::kCount); ++p)
    phases += fmt::format("{}\"{}\": {:.6g}", p ? ", " : "", phase_name(static_cast<Phase>(p)), phase[p]);
  const std::string line = fmt::format(
      "{{\"step\": {}, \"time\": {:.10g}, \"interval_steps\": {}, \"interval_seconds\": {:.6g}, "
      "\"atom_steps_per_second\": {:.6g}, \"seconds_per_phase\": {{{}}}, \"ranks\": {}, "
      "\"imbalance\": {:.6g}, \"resident_mib_max\": {:.1f}, \"backend\": \"cpu\", \"gpu\": null}}\n",
      sim.step(), sim.time(), steps, wall, wall > 0 ? static_cast<double>(sim.natoms()) * steps / wall : 0.0, phases,
      c.size(), mean > 0 ? most / mean : 1.0, rss);
  if (std::fputs(line.c_str(), file_) < 0 || std::fflush(file_) != 0)
    throw IoError(
        fmt::format("step {}: cannot write output.metrics.file {}: {}", sim.step(), spec_.file, std::strerror(errno)));
}

}  // namespace tessera
