#include "potentials/pair_style_impl.hpp"
#include "potentials/potential_list.hpp"

namespace tessera {

namespace {
template <class... Pots>
std::vector<PairStyleEntry> describe_all(PotentialList<Pots...>) {
  return {describe_pair_style<Pots>()...};
}
}  // namespace

// Adding a potential: see potential_list.hpp.
const std::vector<PairStyleEntry>& pair_styles() {
  static const std::vector<PairStyleEntry> table = describe_all(Potentials{});
  return table;
}

const PairStyleEntry* find_pair_style(const std::string& name) {
  for (const auto& e : pair_styles())
    if (e.name == name) return &e;
  return nullptr;
}

}  // namespace tessera
