#pragma once
// What a piece of code writes to the process's stderr (file descriptor 2,
// so fmt::print(stderr, ...) and MPI's own messages alike), for tests of
// warnings. Not thread-safe: one capture at a time.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace tessera::test {

template <class F>
std::string captured_stderr(F&& f) {
  char path[] = "/tmp/tessera-stderr-XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) throw std::runtime_error("captured_stderr: mkstemp failed");
  std::fflush(stderr);
  const int saved = dup(2);
  dup2(fd, 2);
  struct Restore {
    int saved, fd;
    const char* path;
    ~Restore() {
      std::fflush(stderr);
      dup2(saved, 2);
      close(saved);
      close(fd);
    }
  };
  try {
    Restore r{saved, fd, path};
    f();
  } catch (...) {
    std::remove(path);
    throw;
  }
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  std::remove(path);
  return text.str();
}

}  // namespace tessera::test
