#pragma once
// The CPU's cluster-pair list (`neighbor.layout: clusters` on the CPU
// backend): atoms grouped in clusters of kClusterSize nearby atoms, and for
// each cluster of locals the clusters close enough to hold a pair within
// the list's reach. The kernel (backend/cpu_cluster_kernel.hpp) then takes
// a cluster pair's 4 x 4 atom pairs as one block of lanes: a neighbour
// cluster's coordinates are one contiguous load shared by four atoms
// instead of a gather per neighbour, and each pair is computed once (as in
// GROMACS's nbnxm CPU kernels), at the price of pairs beyond the cutoff
// inside the blocks.
//
// Clusters: the region (sub-box plus ghost reach) is cut into columns in x
// and y about one cluster wide; a column's atoms are sorted by z and cut
// into runs of 4, locals and ghosts apart, so a cluster holds locals only
// or ghosts only. Local clusters come first, column by column with x the
// slowest index, so a strip of columns along x is one range of clusters.
//
// Each pair once: a pair of local clusters is listed in the lower one's
// row (the self pair included, the kernel keeping each atom pair once), a
// ghost cluster in every local row that reaches it. Threads: the strips
// (slabs) are wide enough that a row's partners lie in its own slab or the
// next two, so slabs s, s+3, s+6, ... run at once, the three colours one
// after another, and every force sum has one order whatever the thread
// count (as NeighborList::half).
#include <vector>

namespace tessera {

struct AtomStore;
struct SubDomain;

constexpr int kClusterSize = 4;
constexpr int kClusterColors = 3;

struct ClusterPairs {
  int nlocal_clusters = 0;  // clusters [0, nlocal_clusters) hold locals, the rest ghosts
  int nclusters = 0;
  std::vector<int> atom;        // [c * kClusterSize + k]: an atom's index, or -1 (a short cluster's padding)
  // Local cluster c's partners: partner[row_start[c] .. row_start[c + 1]),
  // c itself first, then local clusters, ghosts from ghost_start[c] on; in a
  // fixed order (columns x then y, increasing z within one).
  std::vector<int> row_start;
  std::vector<int> ghost_start;
  std::vector<int> partner;
  std::vector<int> slab_start;  // slab s: local clusters [slab_start[s], slab_start[s + 1])
  long pairs() const { return static_cast<long>(partner.size()); }
};

// Builds the clusters and their rows from the atoms' present positions
// (locals and ghosts), listing every cluster pair whose bounding boxes are
// closer than `reach`. Holds its scratch so that rebuilds reuse memory.
class ClusterBuilder {
 public:
  void build(const AtomStore& atoms, const SubDomain& sd, double reach, ClusterPairs& out);

 private:
  std::vector<int> col_, order_, col_start_, col_clusters_, next_, slab_of_, run_end_;
  std::vector<double> bb_;  // per cluster: lo x y z, hi x y z
  std::vector<double> pos_;  // per cluster: x[S], y[S], z[S]
  std::vector<std::vector<int>> runs_;  // per thread: its rows' partners
};

}  // namespace tessera
