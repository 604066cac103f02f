#pragma once
// What the deck and the data reader need to know of a bond or angle style
// before any coefficients exist: its name, its coefficients' names (LAMMPS
// bond_coeff / angle_coeff order) and its check, made from the style lists
// (bonded/bonded_list.hpp) so that a style is registered by being listed.
// `make` turns coefficients by type into the style's force
// (bonded/bonded_forces.hpp), as potentials/pair_style.hpp's entries do.
#include <memory>
#include <string>
#include <vector>

#include "bonded/bonded_forces.hpp"
#include "bonded/bonded_list.hpp"

namespace tessera {

struct BondedStyleEntry {
  std::string name;
  std::vector<std::string> coeff_names;
  // Why these coefficients make no sense, or nullptr when they are fine.
  const char* (*check)(const BondedCoeffs&);
  // by_type: coefficients of types 1..n at [1..n] ([0] unused), checked.
  std::unique_ptr<Force> (*make)(const std::vector<BondedCoeffs>& by_type, std::shared_ptr<const BondedAtoms> atoms);
};

template <template <class> class ForceOf, class Style>
std::unique_ptr<Force> make_bonded_force(const std::vector<BondedCoeffs>& by_type,
                                         std::shared_ptr<const BondedAtoms> atoms) {
  std::vector<typename Style::Params> params;
  for (const BondedCoeffs& c : by_type) params.push_back(Style::params(c));
  return std::make_unique<ForceOf<Style>>(std::move(params), std::move(atoms));
}

template <template <class> class ForceOf, class Style>
BondedStyleEntry describe_bonded_style() {
  return BondedStyleEntry{Style::name, std::vector<std::string>(Style::coeff_names, Style::coeff_names + Style::ncoeff),
                          &Style::check, &make_bonded_force<ForceOf, Style>};
}

template <template <class> class ForceOf, class... Styles>
std::vector<BondedStyleEntry> describe_bonded_styles(BondedStyleList<Styles...>) {
  return {describe_bonded_style<ForceOf, Styles>()...};
}

inline const std::vector<BondedStyleEntry>& bond_styles() {
  static const std::vector<BondedStyleEntry> table = describe_bonded_styles<BondForce>(BondStyles{});
  return table;
}

inline const std::vector<BondedStyleEntry>& angle_styles() {
  static const std::vector<BondedStyleEntry> table = describe_bonded_styles<AngleForce>(AngleStyles{});
  return table;
}

inline const BondedStyleEntry* find_bonded_style(const std::vector<BondedStyleEntry>& table, const std::string& name) {
  for (const auto& e : table)
    if (e.name == name) return &e;
  return nullptr;
}

}  // namespace tessera
