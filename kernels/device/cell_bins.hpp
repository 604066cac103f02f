#pragma once
// Atoms grouped by cell on the device, the twin of CellBins
// (src/neighbor/cell_grid.hpp): a stable sort by cell keeps increasing atom
// index within a cell, as the CPU's counting sort does, so the order (and
// what depends on it) is a function of the positions alone.
#include <thrust/binary_search.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#include "device/exec_policy.hpp"
#include "neighbor/cell_grid.hpp"

namespace tessera::device {
inline namespace TESSERA_DEVICE_SYSTEM_NS {

namespace detail {

struct CellOf {
  CellGrid grid;
  const double* x;
  const double* y;
  const double* z;
  TESSERA_HD int operator()(int i) const { return grid.cell_of(x[i], y[i], z[i]); }
};

}  // namespace detail

struct DeviceCellBins {
  dvec<int> atoms;  // per binned slot: the atom
  dvec<int> start;  // atoms of cell c sit in slots [start[c], start[c+1])

  // Bins atoms [0, n) of positions x, y, z into the cells of g. Each slot's
  // cell, the sort's key, lives in the stage scratch (exec_policy.hpp) until
  // find_starts() has read it: the caller's next take of that scratch ends it.
  void bin(const DeviceStream& s, const CellGrid& g, const double* x, const double* y, const double* z, int n) {
    n_ = n;
    cell_ = stage_scratch<int>(s, static_cast<std::size_t>(n));
    resize_for_overwrite(s, atoms, n);
    thrust::transform(policy(s), thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(n), cell_,
                      detail::CellOf{g, x, y, z});
    thrust::sequence(policy(s), atoms.begin(), atoms.end());
    thrust::stable_sort_by_key(policy(s), cell_, cell_ + n, atoms.begin());
  }

  // Fills start (count() + 1 entries) from the sorted cells of bin(), with
  // no take of the stage scratch in between.
  void find_starts(const DeviceStream& s, const CellGrid& g) {
    const int ncells = g.count();
    resize_for_overwrite(s, start, static_cast<std::size_t>(ncells) + 1);
    thrust::lower_bound(policy(s), cell_, cell_ + n_, thrust::counting_iterator<int>(0),
                        thrust::counting_iterator<int>(ncells + 1), start.begin());
  }

 private:
  thrust::device_ptr<int> cell_;  // per binned slot: its cell, ascending
  int n_ = 0;
};

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
