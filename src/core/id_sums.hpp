#pragma once
// The id checksums of a rank's atoms, summed over ranks at every rebuild:
// atoms must never be lost or duplicated by migration. The plain id sum
// alone misses swaps that cancel; a well-mixed hash of each id catches them.
// Host-device, so a device sums its own atoms and only two numbers cross.
#include <cstdint>

#include "core/host_device.hpp"
#include "core/types.hpp"

namespace tessera {

struct IdSums {
  std::uint64_t sum = 0, hash = 0;
};

TESSERA_HD inline std::uint64_t mix_id(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

struct IdSumsOf {
  TESSERA_HD IdSums operator()(AtomId id) const {
    const auto u = static_cast<std::uint64_t>(id);
    return IdSums{u, mix_id(u)};
  }
};

// Wrapping (modulo 2^64) sums: the same whatever the order of addition.
struct AddIdSums {
  TESSERA_HD IdSums operator()(const IdSums& a, const IdSums& b) const { return IdSums{a.sum + b.sum, a.hash + b.hash}; }
};

inline IdSums id_sums(const AtomId* id, std::size_t n) {
  IdSums s;
  for (std::size_t i = 0; i < n; ++i) s = AddIdSums{}(s, IdSumsOf{}(id[i]));
  return s;
}

}  // namespace tessera
