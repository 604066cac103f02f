// Large-page storage for the arrays a step streams through (core/large_pages.hpp).
#include <catch2/catch.hpp>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include "core/large_pages.hpp"

using namespace tessera;

namespace {

// The VmFlags line of the mapping of /proc/self/smaps that holds p ("" when
// none does or the file is absent).
std::string vm_flags_at(const void* p) {
  std::ifstream in("/proc/self/smaps");
  const auto addr = reinterpret_cast<std::uintptr_t>(p);
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    unsigned long lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-' && line.find(':') > line.find(' ')) {
      inside = addr >= lo && addr < hi;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return line;
  }
  return "";
}

}  // namespace

TEST_CASE("Large vectors keep their values as they grow, and large ones lie on large pages", "[large_pages]") {
  LargeVector<int> v;
  for (int k = 0; k < 1000; ++k) v.push_back(3 * k);
  CHECK(reinterpret_cast<std::uintptr_t>(v.data()) % alignof(int) == 0);
  // Past one large page: the storage moves into the large-page allocation.
  v.resize((kLargePage / sizeof(int)) * 3 + 17, -1);
  for (int k = 0; k < 1000; ++k) REQUIRE(v[k] == 3 * k);
  CHECK(v.back() == -1);
  CHECK(reinterpret_cast<std::uintptr_t>(v.data()) % kLargePage == 0);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  // The kernel records the mark on the mapping ("hg") whatever its THP mode,
  // where it was built with THP at all.
  if (std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled")) {
    const std::string flags = vm_flags_at(v.data());
    INFO(flags);
    CHECK(flags.find(" hg") != std::string::npos);
  }
#endif
  // Shrinking to small storage and growing again round-trips the values.
  v.resize(10);
  v.shrink_to_fit();
  CHECK(v.size() == 10);
  CHECK(v[9] == 27);
  LargeVector<double> copy(v.begin(), v.end());
  CHECK(copy[5] == 15.0);
}
