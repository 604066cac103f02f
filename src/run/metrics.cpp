#include "run/metrics.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "core/error.hpp"
#include "io/text_output.hpp"
#include "telemetry/gpu_binding.hpp"
#include "telemetry/nvml.hpp"

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

MetricsWriter::MetricsWriter(const MetricsSpec& spec, const Simulation& sim, long resume_step)
    : spec_(spec), last_step_(sim.step()), last_time_(Clock::now()) {
  const Nvml& nvml = Nvml::system();
  if (nvml.available()) gpu_ = gpu_for_local_rank(launcher_local_rank().value_or(0), nvml.device_count());
  for (int p = 0; p < static_cast<int>(Phase::kCount); ++p)
    last_phase_[p] = sim.timers().seconds(static_cast<Phase>(p));
  if (sim.comm().rank() != 0) return;
  if (resume_step < 0) {
    file_ = create_text(spec.file, "output.metrics.file");
    return;
  }
  // Each line starts with {"step": N.
  LineScanner in(spec.file);
  const std::uint64_t keep = bytes_through_step(in, resume_step, [](LineScanner& s) -> std::optional<long> {
    std::string line;
    long step = 0;
    if (!s.next(line) || std::sscanf(line.c_str(), "{\"step\": %ld", &step) != 1) return std::nullopt;
    return step;
  });
  file_ = append_after(spec.file, keep, "output.metrics.file");
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
  const std::string gpus = gpu_json(c);
  last_step_ = sim.step();
  last_time_ = now;
  if (!file_) return;
  std::string phases;
  for (int p = 0; p < static_cast<int>(Phase::kCount); ++p)
    phases += fmt::format("{}\"{}\": {:.6g}", p ? ", " : "", phase_name(static_cast<Phase>(p)), phase[p]);
  const std::string line = fmt::format(
      "{{\"step\": {}, \"time\": {:.10g}, \"interval_steps\": {}, \"interval_seconds\": {:.6g}, "
      "\"atom_steps_per_second\": {:.6g}, \"seconds_per_phase\": {{{}}}, \"ranks\": {}, "
      "\"imbalance\": {:.6g}, \"resident_mib_max\": {:.1f}, \"backend\": \"cpu\", \"gpu\": {}}}\n",
      sim.step(), sim.time(), steps, wall, wall > 0 ? static_cast<double>(sim.natoms()) * steps / wall : 0.0, phases,
      c.size(), mean > 0 ? most / mean : 1.0, rss, gpus);
  if (std::fputs(line.c_str(), file_) < 0 || std::fflush(file_) != 0)
    throw IoError(
        fmt::format("step {}: cannot write output.metrics.file {}: {}", sim.step(), spec_.file, std::strerror(errno)));
}

std::string MetricsWriter::gpu_json(const Communicator& c) const {
  std::string mine;
  if (gpu_ >= 0) {
    if (const auto g = Nvml::system().sample(gpu_)) mine = fmt::format("{{\"rank\": {}, {}", c.rank(), gpu_sample_json(*g).substr(1));
  }
  const std::vector<std::vector<char>> all = c.gather_to_root(std::vector<char>(mine.begin(), mine.end()));
  std::string list;
  for (const auto& one : all) {
    if (one.empty()) continue;
    list += list.empty() ? "[" : ", ";
    list.append(one.begin(), one.end());
  }
  return list.empty() ? "null" : list + "]";
}

}  // namespace tessera
