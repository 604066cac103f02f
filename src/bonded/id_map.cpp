#include "bonded/id_map.hpp"

#include <algorithm>

namespace tessera {

void IdMap::build(const AtomStore& a) {
  const int n = static_cast<int>(a.nall());
  next_.assign(static_cast<std::size_t>(n), -1);
  last_.assign(static_cast<std::size_t>(n), -1);
  AtomId top = 0;
  for (int k = 0; k < n; ++k) top = std::max(top, a.id[k]);
  const bool dense = top < 16 * static_cast<AtomId>(n) + 1024;
  first_.clear();
  if (dense) {
    dense_.assign(static_cast<std::size_t>(top) + 1, -1);
  } else {
    std::vector<int>().swap(dense_);
    first_.reserve(static_cast<std::size_t>(n));
  }
  for (int k = 0; k < n; ++k) {
    int* head;
    if (dense) {
      head = &dense_[static_cast<std::size_t>(a.id[k])];
    } else {
      head = &first_.emplace(a.id[k], -1).first->second;
    }
    if (*head < 0) {
      *head = k;
      last_[k] = k;
      continue;
    }
    next_[last_[*head]] = k;  // appended: the chain stays in index order
    last_[*head] = k;
  }
}

}  // namespace tessera
