// Device errors (kernels/device/device_error.hpp): the message names the
// step, the phase and our call with its file and line, and it is on stderr
// before anything can end the process. The unwinding cases run in a child
// process, which they end.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <utility>

#include "device/exec_policy.hpp"
#include "test_support.hpp"

using namespace tessera;

namespace {

struct Child {
  int status = 0;
  std::string err;  // its stderr
};

// Runs f in a child process with stderr going to a file.
Child run_child(const test::Scratch& dir, const std::function<void()>& f) {
  const std::string path = (dir.dir / "stderr.txt").string();
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    if (!std::freopen(path.c_str(), "w", stderr)) _exit(90);
    // Catch's handler for the child's fatal signal would print a failure
    // report into the parent's log; the parent judges the child instead.
    if (!std::freopen("/dev/null", "w", stdout)) _exit(91);
    f();
    _exit(0);
  }
  Child c;
  REQUIRE(waitpid(pid, &c.status, 0) == pid);
  std::ifstream in(path);
  c.err.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return c;
}

thrust::system_error simulated(const char* what) { return thrust::system_error(EIO, thrust::generic_category(), what); }

// Thrust's vectors free their storage in noexcept destructors; after a
// sticky CUDA error the free fails too, and its exception ends the process.
struct FreesAfterStickyError {
  ~FreesAfterStickyError() noexcept(false) { throw simulated("device free failed"); }
};

int count(const std::string& s, const std::string& what) {
  int n = 0;
  for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

// The message of the DeviceError f throws ("" if none).
template <class F>
std::string device_error_of(F&& f) {
  try {
    f();
  } catch (const DeviceError& e) {
    return e.what();
  }
  return "";
}

TEST_CASE("A device error names our step, the file and the line", "[device]") {
  const std::string at = std::string(__FILE__) + ":";
  const int line = __LINE__ + 1;
  std::string message = device_error_of([] { TESSERA_DEVICE_CALL("test step", throw simulated("simulated")); });
  INFO(message);
  CHECK(message.rfind("device error in test step (", 0) == 0);
  CHECK(message.find(at + std::to_string(line) + "): ") != std::string::npos);
  CHECK(message.find("simulated") != std::string::npos);

  // Memory running out (Thrust's bad_alloc) is named too, with what helps.
  const int line2 = __LINE__ + 1;
  message = device_error_of([] { TESSERA_DEVICE_CALL("test allocation", throw std::bad_alloc()); });
  INFO(message);
  CHECK(message.rfind("out of memory in test allocation (", 0) == 0);
  CHECK(message.find(at + std::to_string(line2) + "): ") != std::string::npos);
  CHECK(message.find("tessera plan") != std::string::npos);

  // The step and phase the engine marked, and the innermost call.
  device::device_where().step = 42;
  device::device_where().phase = "Pair";
  const int line3 = __LINE__ + 2;
  message = device_error_of([] {
    TESSERA_DEVICE_CALL("outer call", [] { TESSERA_DEVICE_CALL("inner call", throw simulated("simulated")); }());
  });
  device::device_where() = {};
  INFO(message);
  CHECK(message.rfind("device error at step 42, phase Pair, in inner call (", 0) == 0);
  CHECK(message.find(":" + std::to_string(line3) + "): simulated") != std::string::npos);
}

TEST_CASE("A device error is on stderr once, before the error unwinds", "[device]") {
  test::Scratch dir("device-error-printed");
  const Child c = run_child(dir, [] {
    try {
      TESSERA_DEVICE_CALL("test step", throw simulated("simulated launch failure"));
    } catch (const DeviceError&) {
      _exit(7);  // what main() does with it: nothing more is printed
    }
  });
  INFO(c.err);
  REQUIRE(WIFEXITED(c.status));
  CHECK(WEXITSTATUS(c.status) == 7);
  CHECK(count(c.err, "tessera: device error in test step (") == 1);
  CHECK(count(c.err, "simulated launch failure") == 1);
}

TEST_CASE("A device error that ends in std::terminate while unwinding is reported first", "[device]") {
  test::Scratch dir("device-error-terminate");
  const Child c = run_child(dir, [] {
    device::report_device_errors_on_terminate();
    device::device_where().step = 17;
    device::device_where().phase = "Neighbor";
    // The first error unwinds through a destructor whose free fails: the
    // process ends in std::terminate before checked_call's catch is reached.
    TESSERA_DEVICE_CALL("test rebuild", [] {
      FreesAfterStickyError vector_storage;
      throw simulated("an illegal memory access was encountered");
    }());
  });
  INFO(c.err);
  REQUIRE(WIFSIGNALED(c.status));
  CHECK(WTERMSIG(c.status) == SIGABRT);
  CHECK(count(c.err, "tessera: device error at step 17, phase Neighbor, in test rebuild (") == 1);
  CHECK(c.err.find("device free failed") != std::string::npos);
}

TEST_CASE("Device vectors give their storage back without throwing, even after a failed free", "[device]") {
  // The allocator's deallocate is what device_vector's noexcept destructor calls.
  using Alloc = device::CountingAllocator<double>;
  CHECK(noexcept(std::declval<Alloc&>().deallocate(std::declval<Alloc::pointer>(), Alloc::size_type{})));
  const long long before = device::device_memory().now.load();
  {
    device::dvec<double> v(1000);
    CHECK(device::device_memory().now.load() == before + 8000);
  }
  CHECK(device::device_memory().now.load() == before);
}
