#include "neighbor/neighbor_list.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace tessera {

std::string record_offsets_limit(long atoms, long limit) {
  return fmt::format("the cpu backend lists a pair style's neighbours as byte offsets of 16-byte records, "
                     "which hold at most {} atoms (locals and ghosts) a rank; this rank holds {}: run on more ranks",
                     limit, atoms);
}

const int* rows_with_shift(const NeighborList& nl, int shift, std::vector<int>& scratch) {
  if (nl.entry_shift == shift) return nl.index.data();
  // Each row's entries and its padding, so that a kernel reading whole
  // lane blocks finds the same atoms (the rest of a row's stride was
  // never written).
  scratch.resize(nl.index.size());
  const int from = nl.entry_shift;
  const int pad = std::max(nl.pad, 1);
  for (std::size_t i = 0; i < nl.count.size(); ++i) {
    const std::size_t row = i * static_cast<std::size_t>(nl.stride);
    const int filled = std::min((nl.count[i] + pad - 1) / pad * pad, nl.stride);
    for (int k = 0; k < filled; ++k) {
      const int atom = nl.index[row + k] >> from;
      if (atom > (std::numeric_limits<int>::max() >> shift)) throw std::length_error(record_offsets_limit(atom + 1L));
      scratch[row + k] = atom << shift;
    }
  }
  return scratch.data();
}

}  // namespace tessera
