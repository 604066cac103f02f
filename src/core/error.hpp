#pragma once
#include <stdexcept>
#include <string>

namespace tessera {

// Exit codes are a contract with job scripts; docs/errors.md lists them.
enum ExitCode : int {
  kExitOk = 0,
  kExitInternal = 1,
  kExitBadInput = 2,
  kExitSimulationFailed = 3,
  kExitIoFailed = 4,
  // Stopped early (signal or time budget) after writing a checkpoint: run
  // the same command with --restart auto to continue. 75 is EX_TEMPFAIL.
  kExitIncomplete = 75,
};

// Something the user gave us is wrong (deck, data file, command line).
// The message already names the file, line, column and key.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The simulation itself went wrong (NaN, atom flew too far); the message
// names the step, atom id and position.
class SimulationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Writing output failed (disk full, read-only folder, missing path). The
// message names the file and the system's reason; earlier checkpoints are
// left as they were.
class IoError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The device failed (a CUDA error, device memory exhausted). The message,
// naming the step, the phase and our call, was printed where the error was
// met (kernels/device/device_error.hpp): the unwinding that follows can end
// the process before main() could print it.
class DeviceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace tessera
