#pragma once
// A system's molecular topology, as global lists (MolecularTopology), onto
// the per-atom molecular fields of its atoms (atoms/molecular_fields.hpp):
// each bond on both its atoms, each angle on all three, and each atom's
// special neighbours (1-2, 1-3 and 1-4 through the bonds, as LAMMPS's
// special_bonds counts them) whose pair factor is not 1.
#include <string>

#include "atoms/atom_store.hpp"
#include "system/build_system.hpp"

namespace tessera {

// `atoms` holds the whole system (every rank builds it whole before it
// keeps its share); `special_lj`: the pair factors of 1-2, 1-3 and 1-4
// neighbours. Turns the molecular fields on. Throws InputError naming
// `source` and the atom when an atom has more bonds, angles or special
// neighbours than the fields hold.
void place_topology(const MolecularTopology& t, const double special_lj[3], AtomStore& atoms,
                    const std::string& source);

}  // namespace tessera
