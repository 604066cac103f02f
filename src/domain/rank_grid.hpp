#pragma once
// The 3-D grid of MPI ranks over the box. Shared by `tessera plan` and the
// domain decomposition.
#include <array>
#include <string>

#include "domain/box.hpp"

namespace tessera {

struct RankGrid {
  std::array<int, 3> n{1, 1, 1};
  int size() const { return n[0] * n[1] * n[2]; }
  std::string str() const;  // "2 x 2 x 1"
};

// The factorisation of `nranks` whose sub-boxes have the smallest total halo
// (ghost volume within `reach` of the faces), among those whose sub-boxes are
// at least `reach` thick. Throws InputError when none is.
RankGrid choose_rank_grid(int nranks, const Box& box, double reach);

// Sub-box of rank (i, j, k) in a regular grid.
SubDomain sub_domain(const Box& box, const RankGrid& g, const std::array<int, 3>& cell);

}  // namespace tessera
