#include "system/build_system.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "deck/pair_table.hpp"
#include "deck/yaml_section.hpp"
#include "system/polymer_melt.hpp"

namespace tessera {

BuiltSystem build_system(const Deck& deck, const Units& units) {
  const SystemSpec& spec = deck.system;
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
    s = read_lammps_data(spec.read_data, spec.masses);
  }
  // Issue 29 is under way (docs/wip-molecules.md): the reader takes bonds
  // and angles, the engine does not simulate them yet. Refused rather than
  // silently run as unconnected atoms.
  if (!s.topology.empty() && spec.polymer_melt)
    throw_at(spec.polymer_melt_at, fmt::format("the melt has {} bonds; Tessera does not simulate bonds or angles yet",
                                               s.topology.bonds.size()));
  if (!s.topology.empty())
    throw_at(spec.read_data_at, fmt::format("{}: the data file has {} bonds and {} angles; Tessera does not simulate "
                                            "bonds or angles yet",
                                            spec.read_data, s.topology.bonds.size(), s.topology.angles.size()));
  if (spec.ntypes != 0 && !spec.lattice && !spec.polymer_melt && spec.ntypes != s.atoms.ntypes)
    throw_at(spec.read_data_at,
             fmt::format("the deck says {} atom types, the data file has {}", spec.ntypes, s.atoms.ntypes));

  const ExportSpec& xyz = deck.xyz;
  if (!xyz.species.empty() && static_cast<int>(xyz.species.size()) != s.atoms.ntypes)
    throw_at(xyz.species_at,
             fmt::format("{} names for the {} atom type(s) of the system", xyz.species.size(), s.atoms.ntypes));

  // Every type pair must have coefficients; the largest cutoff sets the halo.
  const auto table = resolve_pair_table(deck.potential, s.atoms.ntypes);
  double cut = 0;
  for (int i = 1; i <= s.atoms.ntypes; ++i)
    for (int j = 1; j <= s.atoms.ntypes; ++j) cut = std::max(cut, table[i * (s.atoms.ntypes + 1) + j].cutoff);
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
