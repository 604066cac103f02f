#pragma once
// A fresh folder per test case, removed afterwards, for tests that write files.
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace tessera::test {

struct Scratch {
  std::filesystem::path dir;
  explicit Scratch(const std::string& name) {
    static int made = 0;  // two alive in one process never share a folder
    dir = std::filesystem::temp_directory_path() / fmt::format("tessera-{}-{}-{}", name, ::getpid(), ++made);
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  ~Scratch() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  std::string file(const std::string& name) const { return (dir / name).string(); }
};

}  // namespace tessera::test
