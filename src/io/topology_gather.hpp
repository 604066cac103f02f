#pragma once
// The run's global bond and angle lists, rebuilt at output time from the
// per-atom molecular fields (atoms/molecular_fields.hpp), where every bond
// is stored on both its atoms and every angle on all three: each rank's
// locals contribute the bonds whose partner has the larger id (each bond
// once) and the angles of which they are the vertex (each angle once), and
// rank 0 puts them in id order. The lists are the same on any rank layout.
#include <cstdint>
#include <vector>

#include "atoms/atom_store.hpp"
#include "comm/communicator.hpp"

namespace tessera {

struct Connectivity {
  // type, atom, atom per bond: the smaller id first, sorted by (atom, atom, type).
  std::vector<std::int64_t> bonds;
  // type, end, vertex, end per angle (LAMMPS's order: the vertex in the
  // middle), sorted by (vertex, end, end, type).
  std::vector<std::int64_t> angles;
  std::size_t nbonds() const { return bonds.size() / 3; }
  std::size_t nangles() const { return angles.size() / 4; }
};

// This rank's share of the lists, sorted as above (no communication).
Connectivity local_connectivity(const AtomStore& atoms);

// Every rank's share, on rank 0 (the others get empty lists). Collective.
// Empty lists where the molecular fields are off.
Connectivity gather_connectivity(const AtomStore& atoms, const Communicator& comm);

}  // namespace tessera
