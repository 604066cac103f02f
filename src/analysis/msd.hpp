#pragma once
// Mean-squared displacement from unwrapped positions, x + image * L: the
// engine wraps atoms back into the box at list rebuilds and counts each
// crossing in the image flags, so x + image * L moves continuously.
#include <cstddef>
#include <vector>

#include "atoms/atom_store.hpp"
#include "domain/box.hpp"

namespace tessera {

inline void unwrapped_position(const AtomStore& a, std::size_t i, const Box& box, double out[3]) {
  out[0] = a.x[i] + a.ix[i] * box.length(0);
  out[1] = a.y[i] + a.iy[i] * box.length(1);
  out[2] = a.z[i] + a.iz[i] * box.length(2);
}

// Columns of one MSD row: the x, y, z components and their sum.
constexpr int kMsdColumns = 4;

// Rows of kMsdColumns values, <dx^2>, <dy^2>, <dz^2>, <|d|^2>: row 0 over
// all atoms, row t over the atoms of type t (1..ntypes). `position` and
// `origin` hold 3 values per atom and `type` one, all in the same (id)
// order, so the sums run in an order that no rank layout changes. A type
// with no atoms gives NaN.
std::vector<double> msd_values(const std::vector<double>& position, const std::vector<double>& origin,
                               const std::vector<int>& type, int ntypes);

}  // namespace tessera
