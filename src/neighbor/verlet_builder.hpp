#pragma once
#include "atoms/atom_store.hpp"
#include "domain/box.hpp"
#include "neighbor/cell_grid.hpp"
#include "neighbor/neighbor_list.hpp"

namespace tessera {

// Builds full Verlet lists from cell bins. Holds its scratch arrays so that
// rebuilds do not allocate.
class VerletBuilder {
 public:
  // Every pair closer than `reach` (cutoff + skin) is listed.
  void build(const AtomStore& atoms, const SubDomain& sd, double reach, NeighborList& out);

 private:
  CellBins bins_;
};

// Reorders the local atoms by the cell they sit in, so that atoms close in
// space are close in memory (better cache and GPU coalescing).
void sort_atoms_spatially(AtomStore& atoms, const SubDomain& sd, double cell_size);

// Largest squared displacement of a local atom since the list was built.
double max_displacement_sq(const AtomStore& atoms, const NeighborList& nl);

}  // namespace tessera
