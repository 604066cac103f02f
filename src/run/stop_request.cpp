#include "run/stop_request.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "core/error.hpp"

namespace tessera {

namespace {

volatile std::sig_atomic_t g_signal = 0;
volatile std::sig_atomic_t g_first_at = 0;  // seconds (monotonic) of the first signal

long now_seconds() {
  struct timespec t {};
  clock_gettime(CLOCK_MONOTONIC, &t);  // async-signal-safe
  return static_cast<long>(t.tv_sec);
}

void on_signal(int signo) {
  // Slurm can deliver the same stop twice within a moment (to the batch
  // shell's process group and to the step): only a repeat that comes later
  // than that (1 s or more) counts as "stop faster".
  if (g_signal != 0 && now_seconds() - g_first_at >= 1) {
    // Only async-signal-safe calls here.
    static const char msg[] = "tessera: second signal: stopping now; the last checkpoint on disk is intact\n";
    const ssize_t ignored = ::write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)ignored;
    ::_exit(kExitIncomplete);
  }
  if (g_signal != 0) return;
  g_first_at = static_cast<std::sig_atomic_t>(now_seconds());
  g_signal = signo;
}

}  // namespace

void install_stop_signals() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // file writes in progress carry on
  for (int s : {SIGTERM, SIGINT, SIGUSR1}) sigaction(s, &sa, nullptr);
}

int stop_signal() { return g_signal; }

const char* signal_name(int signo) {
  switch (signo) {
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGUSR1: return "SIGUSR1";
    default: return "a signal";
  }
}

StopPolicy::StopPolicy(Clock::time_point start, double max_walltime, double margin,
                       std::optional<std::chrono::system_clock::time_point> job_end)
    : margin_(margin) {
  if (max_walltime > 0) {
    deadline_ = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(max_walltime));
    deadline_source_ = "run.max_walltime";
  }
  if (job_end) {
    const auto left = *job_end - std::chrono::system_clock::now();
    const auto at = Clock::now() + std::chrono::duration_cast<Clock::duration>(left);
    if (!deadline_ || at < *deadline_) {
      deadline_ = at;
      deadline_source_ = "the Slurm job's end time";
    }
  }
}

std::string StopPolicy::check() const {
  if (const int s = stop_signal()) return signal_name(s);
  if (deadline_ && Clock::now() + std::chrono::duration<double>(margin_) >= *deadline_) return deadline_source_;
  return {};
}

std::string StopPolicy::describe() const {
  if (!deadline_) return {};
  const double left = std::chrono::duration<double>(*deadline_ - Clock::now()).count();
  return fmt::format("stop {:.0f} s before {} ({:.0f} s from now)", margin_, deadline_source_, left);
}

std::optional<std::chrono::system_clock::time_point> slurm_job_end() {
  if (const char* e = std::getenv("SLURM_JOB_END_TIME")) {
    char* end = nullptr;
    const long long t = std::strtoll(e, &end, 10);
    if (end != e && t > 0) return std::chrono::system_clock::from_time_t(static_cast<std::time_t>(t));
  }
  const char* job = std::getenv("SLURM_JOB_ID");
  if (!job) return std::nullopt;
  for (const char* c = job; *c; ++c)
    if (*c < '0' || *c > '9') return std::nullopt;
  // squeue prints the end time as local time, YYYY-MM-DDTHH:MM:SS.
  std::FILE* p = ::popen(fmt::format("squeue -h -j {} -o %e 2>/dev/null", job).c_str(), "r");
  if (!p) return std::nullopt;
  char buf[64] = {};
  const bool got = std::fgets(buf, sizeof buf, p) != nullptr;
  ::pclose(p);
  std::tm tm{};
  if (!got || std::sscanf(buf, "%d-%d-%dT%d:%d:%d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
                          &tm.tm_sec) != 6)
    return std::nullopt;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  tm.tm_isdst = -1;
  const std::time_t t = std::mktime(&tm);
  if (t <= 0) return std::nullopt;
  return std::chrono::system_clock::from_time_t(t);
}

}  // namespace tessera
