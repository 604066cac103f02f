#pragma once
#include <vector>

#include "atoms/atom_store.hpp"
#include "backend/cpu_shares.hpp"
#include "domain/box.hpp"

namespace tessera {

// Halo for a single rank: ghost atoms are periodic images of local atoms
// within `reach` of a face. Built in three stages (x, then y, then z), each
// stage also copying the ghosts of the previous ones, so edge and corner
// images come for free; the multi-rank exchange keeps the same staging.
class PeriodicGhosts {
 public:
  // Wraps local atoms back into the box, updating image flags. This is
  // where atoms migrate between ranks once there are several.
  static void wrap(AtomStore& atoms, const Box& box);
  // Creates the ghosts of the current local positions.
  void build(AtomStore& atoms, const SubDomain& sd, double reach);
  // Moves the ghosts with their source atoms (every step between rebuilds).
  void update_positions(AtomStore& atoms, const Box& box) const;
  // Any per-atom quantity to the ghosts: `fields` (locals, then ghosts) of
  // `atoms`, positions when `periodic` (shifted as update_positions does),
  // otherwise copied from each ghost's source unchanged.
  void forward(AtomStore& atoms, const std::vector<double*>& fields, bool periodic, const Box& box) const;

 private:
  std::vector<int> source_;         // local atom each ghost images
  std::vector<signed char> shift_;  // 3 per ghost, in box lengths
  std::vector<int> picked_;         // a stage's candidates (scratch kept for its storage)
  OrderedSelection select_;
};

}  // namespace tessera
