#pragma once
#include "atoms/atom_store.hpp"
#include "domain/box.hpp"
#include "neighbor/cell_grid.hpp"
#include "neighbor/cluster_pairs.hpp"
#include "neighbor/neighbor_list.hpp"

namespace tessera {

// Builds Verlet lists from cell bins. Holds its scratch arrays so that
// rebuilds do not allocate.
class VerletBuilder {
 public:
  // Every pair closer than `reach` (cutoff + skin) is listed: in both atoms'
  // rows, or with `half` once, with the slabs that schedule it
  // (NeighborList::half). Entries are atom << entry_shift
  // (NeighborList::entry_shift; 0 for half lists).
  void build(const AtomStore& atoms, const SubDomain& sd, double reach, NeighborList& out, bool half = false,
             int entry_shift = 0);

  // Rows of at least this many bytes are written by streaming stores
  // (verlet_builder.cpp says why); the same lists either way.
  static constexpr std::size_t kStreamRowsFrom = std::size_t{32} << 20;
  void set_stream_rows_from(std::size_t bytes) { stream_rows_from_ = bytes; }

 private:
  std::size_t stream_rows_from_ = kStreamRowsFrom;
  CellBins bins_;
  std::vector<int> slab_;  // per local atom, for a half list
};

// The CPU's cluster layout (NeighborList::clustered), built into a
// NeighborList so that the displacement check and the build count work as
// for rows.
class ClusterListBuilder {
 public:
  void build(const AtomStore& atoms, const SubDomain& sd, double reach, NeighborList& out);

 private:
  ClusterBuilder clusters_;
};

// Records a build: the locals' positions (for the displacement check) and
// the count.
void note_build(const AtomStore& atoms, NeighborList& nl);

// How many slabs of at least `reach` / 2 fit in `extent`: a half list's
// rows then write to their own slab and the next two (3 colours).
constexpr int kHalfListColors = 3;
inline int half_list_slabs(double extent, double reach) {
  const double n = extent * (kHalfListColors - 1) / reach;
  return n < 1 ? 1 : static_cast<int>(n);
}

// Reorders the local atoms by the cell they sit in, so that atoms close in
// space are close in memory (better cache and GPU coalescing).
void sort_atoms_spatially(AtomStore& atoms, const SubDomain& sd, double cell_size);

// Largest squared displacement of a local atom since the list was built.
double max_displacement_sq(const AtomStore& atoms, const NeighborList& nl);

}  // namespace tessera
