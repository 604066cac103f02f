#include "system/build_system.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.hpp"
#include "deck/pair_table.hpp"
#include "deck/yaml_section.hpp"
#include "bonded/bonded_registry.hpp"
#include "manybody/manybody_styles.hpp"
#include "system/place_topology.hpp"
#include "system/polymer_melt.hpp"
#include "system/potential_masses.hpp"

namespace tessera {

namespace {

// The coefficients of each bond (or angle) type: the deck's entry, else the
// data file's row; every type that the system has must get one.
std::vector<BondedCoeffs> resolve_bonded(const std::optional<BondedSpec>& spec, const char* which, int ntypes,
                                         std::size_t count, const std::vector<std::vector<double>>& file_rows,
                                         const std::string& file_style, const std::vector<BondedStyleEntry>& styles,
                                         const std::string& source, const Deck& deck) {
  const std::string section = std::string(which) + "s";  // the deck's key
  const std::string File = which == std::string("bond") ? "Bond Coeffs" : "Angle Coeffs";
  if (!spec) {
    if (count > 0)
      throw InputError(fmt::format("{}: the system has {} {}{}; give the deck a `{}:` section with their style "
                                   "(e.g. {}: {{style: {}}})",
                                   deck.path, count, which, count == 1 ? "" : "s", section, section,
                                   styles.front().name));
    return {};
  }
  if (count == 0)
    throw_at(spec->at, fmt::format("the system ({}) has no {}s", source, which));
  const BondedStyleEntry& entry = *find_bonded_style(styles, spec->style);
  std::vector<BondedCoeffs> by_type(static_cast<std::size_t>(ntypes) + 1);
  std::vector<bool> given(by_type.size(), false);
  for (const auto& e : spec->coeffs) {
    if (e.type > ntypes)
      throw_at(e.at, fmt::format("{} type {}, but the system has {} {} type{}", which, e.type, ntypes, which,
                                 ntypes == 1 ? "" : "s"));
    by_type[e.type].c = e.coeffs;
    given[e.type] = true;
  }
  for (int t = 1; t <= ntypes; ++t) {
    if (given[t]) continue;
    const bool in_file = static_cast<std::size_t>(t) < file_rows.size() && !file_rows[t].empty();
    if (!in_file)
      throw_at(spec->at, fmt::format("{} type {} has no coefficients: give them in {}.coeffs or in the data "
                                     "file's {} section",
                                     which, t, section, File));
    if (!file_style.empty() && file_style != spec->style)
      throw_at(spec->at, fmt::format("{}: its {} are for style {}, but {}.style is {}; give {}.coeffs for type {}",
                                     source, File, file_style, section, spec->style, section, t));
    if (file_rows[t].size() != entry.coeff_names.size())
      throw_at(spec->at, fmt::format("{}: {} type {} has {} coefficients; {} style {} takes {} ({})", source, File, t,
                                     file_rows[t].size(), which, spec->style, entry.coeff_names.size(),
                                     fmt::join(entry.coeff_names, " ")));
    for (std::size_t k = 0; k < file_rows[t].size(); ++k) by_type[t].c[k] = file_rows[t][k];
    if (const char* bad = entry.check(by_type[t]))
      throw_at(spec->at, fmt::format("{}: {} type {}: {}", source, File, t, bad));
  }
  return by_type;
}

}  // namespace

BuiltSystem build_system(const Deck& deck, const Units& units) {
  const SystemSpec& spec = deck.system;
  const ManyBodyStyleEntry* mb = find_manybody_style(deck.potential.style);
  const bool file_masses = mb && mb->file_masses;
  BuiltSystem s;
  if (spec.lattice) {
    s = build_lattice(*spec.lattice, spec.ntypes, spec.masses);
  } else if (spec.polymer_melt) {
    // The builder's errors (a walk or push-off that fails) are the deck's:
    // they get the block's place in it.
    try {
      s = build_polymer_melt(*spec.polymer_melt, spec.ntypes, spec.masses);
    } catch (const InputError& e) {
      std::string why = e.what();
      if (why.rfind("polymer_melt: ", 0) == 0) why.erase(0, 14);
      throw_at(spec.polymer_melt_at, why);
    }
  } else {
    s = read_lammps_data(spec.read_data, spec.masses, file_masses);
  }
  // Before the velocities, which are drawn for the masses the run uses.
  if (file_masses) {
    const std::string given_by = spec.masses.empty() ? spec.read_data + ": Masses" : spec.masses_at.str();
    s.notes = take_file_masses(mb->file_masses(deck.potential, s.atoms.ntypes), s.atoms.mass_of_type, given_by);
  }
  const std::string source = spec.read_data.empty() ? deck.path : spec.read_data;
  s.bond_coeffs = resolve_bonded(deck.bonds, "bond", s.topology.nbond_types, s.topology.bonds.size(),
                                 s.topology.bond_coeffs, s.topology.bond_style, bond_styles(), source, deck);
  s.angle_coeffs = resolve_bonded(deck.angles, "angle", s.topology.nangle_types, s.topology.angles.size(),
                                  s.topology.angle_coeffs, s.topology.angle_style, angle_styles(), source, deck);
  if (!s.topology.empty()) place_topology(s.topology, deck.special_bonds.lj, s.atoms, source);
  if (spec.ntypes != 0 && !spec.lattice && !spec.polymer_melt && spec.ntypes != s.atoms.ntypes)
    throw_at(spec.read_data_at,
             fmt::format("the deck says {} atom types, the data file has {}", spec.ntypes, s.atoms.ntypes));

  const ExportSpec& xyz = deck.xyz;
  if (!xyz.species.empty() && static_cast<int>(xyz.species.size()) != s.atoms.ntypes)
    throw_at(xyz.species_at,
             fmt::format("{} names for the {} atom type(s) of the system", xyz.species.size(), s.atoms.ntypes));

  // Every type pair must have coefficients; the largest cutoff sets the halo.
  // (A many-body potential's cutoff is its file's: the deck loader put it in
  // potential.cutoff.)
  double cut = deck.potential.cutoff;
  if (!mb) {
    const auto table = resolve_pair_table(deck.potential, s.atoms.ntypes);
    cut = 0;
    for (int i = 1; i <= s.atoms.ntypes; ++i)
      for (int j = 1; j <= s.atoms.ntypes; ++j) cut = std::max(cut, table[i * (s.atoms.ntypes + 1) + j].cutoff);
  }
  const double reach = cut + deck.neighbor.skin;
  for (int d = 0; d < 3; ++d)
    if (reach > 0.5 * s.box.length(d)) {
      DeckLocation at = deck.potential.cutoff_at;
      throw_at(at, fmt::format("cutoff {} + neighbor skin {} = {} is longer than half the box along {} ({}); "
                               "use a larger system or a shorter cutoff",
                               cut, deck.neighbor.skin, reach, char('x' + d), 0.5 * s.box.length(d)));
    }
  if (deck.velocity) create_velocities(s.atoms, deck.velocity->temperature, deck.velocity->seed, units);
  if (s.natoms_total < 2) throw InputError(deck.path + ": the system needs at least 2 atoms");
  return s;
}

}  // namespace tessera
