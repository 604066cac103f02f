#include "manybody/manybody_styles.hpp"

#include "manybody/eam_force.hpp"

namespace tessera {

const std::vector<ManyBodyStyleEntry>& manybody_styles() {
  // Adding a style: its entries here.
  static const std::vector<ManyBodyStyleEntry> table = eam_styles();
  return table;
}

const ManyBodyStyleEntry* find_manybody_style(const std::string& name) {
  for (const auto& e : manybody_styles())
    if (e.name == name) return &e;
  return nullptr;
}

}  // namespace tessera
