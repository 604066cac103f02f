#pragma once
#include <cstdint>

namespace tessera {

// Global atom ids are 64-bit so that 500M-atom systems keep unique ids.
using AtomId = std::int64_t;

}  // namespace tessera
