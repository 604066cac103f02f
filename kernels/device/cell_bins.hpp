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
  dvec<int> cell;   // per binned slot: its cell, ascending
  dvec<int> atoms;  // per binned slot: the atom
  dvec<int> start;  // atoms of cell c sit in slots [start[c], start[c+1])

  // Bins atoms [0, n) of positions x, y, z into the cells of g.
  void bin(const DeviceStream& s, const CellGrid& g, const double* x, const double* y, const double* z, int n) {
    resize_exact(s, cell, n);
    resize_exact(s, atoms, n);
    thrust::transform(policy(s), thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(n), cell.begin(),
                      detail::CellOf{g, x, y, z});
    thrust::sequence(policy(s), atoms.begin(), atoms.end());
    thrust::stable_sort_by_key(policy(s), cell.begin(), cell.end(), atoms.begin());
  }

  void release_all(const DeviceStream& s) {
    release(s, cell);
    release(s, atoms);
    release(s, start);
  }

  // Fills start (count() + 1 entries) from the sorted cells of bin().
  void find_starts(const DeviceStream& s, const CellGrid& g) {
    const int ncells = g.count();
    resize_exact(s, start, static_cast<std::size_t>(ncells) + 1);
    thrust::lower_bound(policy(s), cell.begin(), cell.end(), thrust::counting_iterator<int>(0),
                        thrust::counting_iterator<int>(ncells + 1), start.begin());
  }
};

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
