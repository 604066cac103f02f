#include "io/checksum.hpp"

#include <xxhash.h>

namespace tessera {

std::uint64_t checksum64(const void* data, std::size_t bytes) { return XXH3_64bits(data, bytes); }

}  // namespace tessera
