#pragma once
// Radial distribution function g(r) from the engine's own neighbour list.
//
// The full list holds, for every local atom i, each neighbour j (local or
// ghost image) within cutoff + skin of the last build, and a list kept by
// the rebuild criterion still holds every pair now closer than the cutoff.
// Counting the listed pairs closer than r_max <= cutoff therefore counts each
// ordered pair (i, j), i != j, exactly once over all ranks: i's owner counts
// it, whether j is local there or a ghost. r_max <= L/2 keeps it to one
// periodic image of j (the minimum image).
#include <array>
#include <cstdint>
#include <vector>

#include "atoms/atom_store.hpp"
#include "neighbor/neighbor_list.hpp"

namespace tessera {

struct RdfLayout {
  int bins = 0;
  double r_max = 0;
  int ntypes = 1;
  // Row 0 of the histogram is every atom around every atom; row k >= 1 is
  // pairs[k - 1] = {centre type, neighbour type}.
  std::vector<std::array<int, 2>> pairs;
  int rows() const { return 1 + static_cast<int>(pairs.size()); }
  double width() const { return r_max / bins; }
};

// Ordered pair counts around this rank's local atoms, counts[row * bins + bin],
// bin k holding distances in [k, k + 1) * width. Integers, so the sum over
// ranks and threads is exact whatever the order.
std::vector<std::int64_t> rdf_histogram(const AtomStore& atoms, const NeighborList& list, const RdfLayout& layout);

// g(r) per row and bin: counts over the ideal-gas expectation
// N_centre * (N_neighbour - [same set]) * shell volume / V, so a finite
// ideal gas gives 1 with no O(1/N) bias and rho * sum(g * shell volume)
// counts neighbours. `atoms_of_type[t]` is the number of atoms of type t
// (index 0: all atoms). A row whose expectation is 0 (a type with no atoms)
// gives NaN: there is no g(r) to report.
std::vector<double> rdf_normalise(const std::vector<std::int64_t>& counts, const RdfLayout& layout,
                                  const std::vector<long long>& atoms_of_type, double volume);

// The middle of each bin.
std::vector<double> rdf_bin_centres(const RdfLayout& layout);

}  // namespace tessera
