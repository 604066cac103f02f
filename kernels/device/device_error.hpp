#pragma once
// A device error is reported by Tessera before anything else can end the
// process. A sticky CUDA error (an illegal address, a failed launch) makes
// every later CUDA call fail too, cudaFree among them, and Thrust frees its
// vectors and scratch in noexcept destructors: the unwinding that would
// carry the error to main() can end in std::terminate first, and main's
// message would never be printed. So the message is printed where the
// error is caught (checked_call), and, if the process ends before that, a
// terminate handler prints the device call that was running.
#include <thrust/system_error.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <string>
#include <utility>

#include "core/error.hpp"

namespace tessera::device {
inline namespace TESSERA_DEVICE_SYSTEM_NS {

// Where the device work of this thread stands: the step and phase (set by
// the engine at each phase mark) and the innermost TESSERA_DEVICE_CALL.
struct DeviceWhere {
  long step = -1;
  const char* phase = nullptr;
  const char* call = nullptr;
  const char* file = nullptr;
  int line = 0;
};
inline DeviceWhere& device_where() {
  static thread_local DeviceWhere w;
  return w;
}

// "device error at step 120, phase pair, in pair forces (file:line)"
inline std::string describe(const DeviceWhere& w, const char* kind = "device error") {
  std::string s = kind;
  if (w.step >= 0) s += " at step " + std::to_string(w.step);
  if (w.phase) s += std::string(w.step >= 0 ? ", phase " : " in phase ") + w.phase;
  if (w.call)
    s += std::string(w.step >= 0 || w.phase ? ", in " : " in ") + w.call + " (" + w.file + ":" +
         std::to_string(w.line) + ")";
  return s;
}

namespace detail {
inline std::terminate_handler& previous_terminate() {
  static std::terminate_handler h = nullptr;
  return h;
}
// Only while a device call runs: other ways to terminate keep their report.
[[noreturn]] inline void report_device_call_then_terminate() {
  const DeviceWhere& w = device_where();
  if (w.call) {
    std::string why = "the process is ending during this call";
    if (const std::exception_ptr p = std::current_exception()) {
      try {
        std::rethrow_exception(p);
      } catch (const std::exception& e) {
        why = e.what();
      } catch (...) {
        why = "an exception that is not a std::exception";
      }
    }
    std::fprintf(stderr, "tessera: %s: %s\n", describe(w).c_str(), why.c_str());
    std::fflush(stderr);
  }
  if (std::terminate_handler h = previous_terminate()) h();
  std::abort();
}
}  // namespace detail

// Installed once per process by the device engine.
inline void report_device_errors_on_terminate() {
  static const bool installed = [] {
    detail::previous_terminate() = std::set_terminate(&detail::report_device_call_then_terminate);
    return true;
  }();
  (void)installed;
}

// The call of TESSERA_DEVICE_CALL in device_where() while it runs, the
// enclosing one restored after (a nested call names the inner one).
class DeviceCallScope {
 public:
  DeviceCallScope(const char* what, const char* file, int line) : saved_(device_where()) {
    DeviceWhere& w = device_where();
    w.call = what;
    w.file = file;
    w.line = line;
  }
  ~DeviceCallScope() {
    DeviceWhere& w = device_where();
    w.call = saved_.call, w.file = saved_.file, w.line = saved_.line;
  }
  DeviceCallScope(const DeviceCallScope&) = delete;
  DeviceCallScope& operator=(const DeviceCallScope&) = delete;

 private:
  DeviceWhere saved_;
};

// Prints the message at once (stderr, flushed), then throws it as a
// DeviceError, which main() does not print again.
[[noreturn]] inline void report_device_error(const std::string& message) {
  std::fprintf(stderr, "tessera: %s\n", message.c_str());
  std::fflush(stderr);
  throw DeviceError(message);
}

// A device error (a failed launch, an illegal address, memory exhausted)
// reaches Thrust's caller as thrust::system_error, naming the CUDA error and
// the algorithm. checked_call adds which step of ours ran and where:
//   TESSERA_DEVICE_CALL("pair forces", pair_.compute(...));
template <class F>
decltype(auto) checked_call(const char* what, const char* file, int line, F&& f) {
  DeviceCallScope scope(what, file, line);
  try {
    return f();
  } catch (const DeviceError&) {
    throw;  // an inner call has reported it
  } catch (const thrust::system_error& e) {
    report_device_error(describe(device_where()) + ": " + e.what());
  } catch (const std::bad_alloc& e) {
    // Thrust's bad_alloc when device memory runs out: say where, and what helps.
    report_device_error(describe(device_where(), "out of memory") + ": " + e.what() +
                        "; fewer atoms per GPU (more ranks) or `precision: mixed` need less; "
                        "`tessera plan DECK` estimates the memory");
  }
}
#define TESSERA_DEVICE_CALL(what, ...) \
  ::tessera::device::checked_call(what, __FILE__, __LINE__, [&]() -> decltype(auto) { return __VA_ARGS__; })

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
