#pragma once
// The 3-D grid of MPI ranks over the box. Shared by `tessera plan` and the
// domain decomposition.
#include <array>
#include <string>
#include <vector>

#include "domain/box.hpp"

namespace tessera {

struct RankGrid {
  std::array<int, 3> n{1, 1, 1};
  // Cut planes along each axis as fractions of the box length, n[d] + 1 of
  // them from 0 to 1; empty: equal slabs. Load balancing moves them (the
  // same planes for every rank: a tensor-product grid, so the staged halo
  // exchange still finds every neighbour one hop away).
  std::array<std::vector<double>, 3> cut;
  int size() const { return n[0] * n[1] * n[2]; }
  // Cell (i, j, k) of rank r, and back.
  std::array<int, 3> cell_of(int r) const { return {r % n[0], (r / n[0]) % n[1], r / (n[0] * n[1])}; }
  int rank_of(const std::array<int, 3>& c) const { return c[0] + n[0] * (c[1] + n[1] * c[2]); }
  std::string str() const;  // "2 x 2 x 1"
};

// The factorisation of `nranks` whose sub-boxes have the smallest total halo
// (ghost volume within `reach` of the faces), among those whose sub-boxes are
// at least `reach` thick. Throws InputError when none is.
RankGrid choose_rank_grid(int nranks, const Box& box, double reach);

// Sub-box of rank (i, j, k) in a regular grid.
SubDomain sub_domain(const Box& box, const RankGrid& g, const std::array<int, 3>& cell);

}  // namespace tessera
