#include "bonded/id_map.hpp"

namespace tessera {

void IdMap::build(const AtomStore& a) {
  const int n = static_cast<int>(a.nall());
  first_.clear();
  first_.reserve(static_cast<std::size_t>(n));
  next_.assign(static_cast<std::size_t>(n), -1);
  last_.assign(static_cast<std::size_t>(n), -1);
  for (int k = 0; k < n; ++k) {
    const auto [it, fresh] = first_.emplace(a.id[k], k);
    if (fresh) {
      last_[k] = k;
      continue;
    }
    next_[last_[it->second]] = k;  // appended: the chain stays in index order
    last_[it->second] = k;
  }
}

}  // namespace tessera
