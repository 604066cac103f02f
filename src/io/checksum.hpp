#pragma once
#include <cstddef>
#include <cstdint>

namespace tessera {

// XXH3 64-bit (libxxhash): fast enough to hash every byte of a checkpoint on
// every read without showing up next to the disk time.
std::uint64_t checksum64(const void* data, std::size_t bytes);

}  // namespace tessera
