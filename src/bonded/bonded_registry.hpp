#pragma once
// What the deck and the data reader need to know of a bond or angle style
// before any coefficients exist: its name, its coefficients' names (LAMMPS
// bond_coeff / angle_coeff order) and its check, made from the style lists
// (bonded/bonded_list.hpp) so that a style is registered by being listed.
// Work in progress (issue 29): nothing outside the tests uses it yet; the
// engine's bonded Force would add a `make` here, as potentials/pair_style.hpp
// does for pair styles.
#include <string>
#include <vector>

#include "bonded/bonded_list.hpp"

namespace tessera {

struct BondedStyleEntry {
  std::string name;
  std::vector<std::string> coeff_names;
  // Why these coefficients make no sense, or nullptr when they are fine.
  const char* (*check)(const BondedCoeffs&);
};

template <class Style>
BondedStyleEntry describe_bonded_style() {
  return BondedStyleEntry{Style::name, std::vector<std::string>(Style::coeff_names, Style::coeff_names + Style::ncoeff),
                          &Style::check};
}

template <class... Styles>
std::vector<BondedStyleEntry> describe_bonded_styles(BondedStyleList<Styles...>) {
  return {describe_bonded_style<Styles>()...};
}

inline const std::vector<BondedStyleEntry>& bond_styles() {
  static const std::vector<BondedStyleEntry> table = describe_bonded_styles(BondStyles{});
  return table;
}

inline const std::vector<BondedStyleEntry>& angle_styles() {
  static const std::vector<BondedStyleEntry> table = describe_bonded_styles(AngleStyles{});
  return table;
}

inline const BondedStyleEntry* find_bonded_style(const std::vector<BondedStyleEntry>& table, const std::string& name) {
  for (const auto& e : table)
    if (e.name == name) return &e;
  return nullptr;
}

}  // namespace tessera
