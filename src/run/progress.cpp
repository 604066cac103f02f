#include "run/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>

#include "comm/communicator.hpp"

namespace tessera {

namespace {
std::string duration_text(double s) {
  const long t = static_cast<long>(s + 0.5);
  return fmt::format("{}:{:02d}:{:02d}", t / 3600, static_cast<int>(t / 60 % 60), static_cast<int>(t % 60));
}
}  // namespace

Progress::Progress(Mode mode, long first_step, long last_step, long long natoms, double every_seconds)
    : mode_(mode),
      first_(first_step),
      last_(last_step),
      natoms_(static_cast<double>(natoms)),
      every_(every_seconds),
      start_(Clock::now()),
      shown_(start_) {}

Progress::Mode Progress::for_stdout() {
  // mpirun hands rank 0 a pseudo-terminal even when its output goes to a
  // file, so under an MPI launcher only plain lines are safe.
  if (launched_by_mpi()) return Mode::kLines;
  return isatty(STDOUT_FILENO) ? Mode::kLive : Mode::kLines;
}

bool Progress::after_step(const Simulation& sim, bool last) {
  if (mode_ == Mode::kOff || last) return true;
  const auto now = Clock::now();
  const double since_shown = std::chrono::duration<double>(now - shown_).count();
  // A terminal shows the line from the first step on, then twice a second.
  const bool first_live = mode_ == Mode::kLive && !drawn_;
  if (!first_live && since_shown < (mode_ == Mode::kLive ? 0.5 : every_)) return true;
  shown_ = now;
  const long step = sim.step();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double done = static_cast<double>(step - first_);
  const double rate = elapsed > 0 ? done / elapsed : 0;  // steps per second
  const double left = rate > 0 ? static_cast<double>(last_ - step) / rate : 0;
  const double percent = last_ > 0 ? 100.0 * static_cast<double>(step) / static_cast<double>(last_) : 100.0;
  if (mode_ == Mode::kLive) {
    // Then back to column 0: the next thermo line, longer than this one,
    // simply overwrites it.
    fmt::print("\r\033[Kstep {} of {} ({:.1f}%), {:.3g} atom-steps/s, ETA {}\r", step, last_, percent, rate * natoms_,
               duration_text(left));
    drawn_ = true;
  } else {
    const std::time_t eta = std::time(nullptr) + static_cast<std::time_t>(left);
    char at[32];
    std::strftime(at, sizeof at, "%Y-%m-%d %H:%M:%S", std::localtime(&eta));
    fmt::print("Progress: step {} of {} ({:.1f}%), {:.3g} atom-steps/s, ETA {} (at {})\n", step, last_, percent,
               rate * natoms_, duration_text(left), at);
  }
  std::fflush(stdout);
  return true;
}

void Progress::finish() {
  if (drawn_) fmt::print("\r\033[K");
  std::fflush(stdout);
}

}  // namespace tessera
