#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "core/large_pages.hpp"
#include "neighbor/cluster_pairs.hpp"
#include "neighbor/record_shift.hpp"

namespace tessera {

// Verlet list: the local atoms' neighbours (local and ghost) within cutoff +
// skin, one row per atom. Full (each pair in both atoms' rows: each atom's
// force is a sum owned by one thread, the layout the device kernels read)
// or half (each pair of locals once; see `half`). Either way the results
// are bitwise independent of the thread count. Fixed stride per atom
// (padded).
struct NeighborList {
  int stride = 0;
  int widest = 0;          // the longest row of the last build (0: none yet)
  std::vector<int> count;  // per local atom
  // index[i * stride + k]; in large pages (core/large_pages.hpp): the
  // kernels stream it whole every step.
  LargeVector<int> index;
  // Entries are atom << entry_shift: 0, atom indices, or kRecordShift, byte
  // offsets of 16-byte records (the mixed row kernel's, cpu_positions.hpp),
  // which that kernel adds to its records' address as they are, and the
  // double row kernel doubled, in the address's scale (32-byte records).
  // An x86 address scales an index by at most 8, so an index of 16- or
  // 32-byte records costs a shift per neighbour: 5-8 % of the mixed
  // kernel's time (in.lj 32k and 256k mixed, 2026-12-01). Rows of offsets
  // are built only when every force reads them (HostBackend,
  // Force::reads_record_offsets); other readers take entries through
  // rows_with_shift.
  int entry_shift = 0;
  // When > 1: stride is a multiple of it, and each row is padded up to a
  // multiple of it with the atom's own entry, so that a vector kernel can
  // read whole blocks (it must still ignore entries past count).
  int pad = 1;
  // Half list (neighbor.list: half, a CPU option; docs/algorithms.md,
  // "Half lists"): a pair of locals is listed once, in the row of the atom
  // whose slab comes first (the lower index within a slab), and the kernel adds
  // the opposite force to the partner; a ghost is listed in its local
  // partner's row only, since this rank needs only the local's force. The
  // slabs cut the sub-box along one axis, each at least reach / (colors - 1)
  // thick, so a row writes only to its own slab and the colors - 1 after it:
  // the slabs of one colour (s % colors) can run at once, the colours one
  // after another, and every sum has one order whatever the thread count.
  bool half = false;
  int colors = 0;
  std::vector<int> slab_start;  // slab s: slab_atoms[slab_start[s] .. slab_start[s + 1])
  std::vector<int> slab_atoms;  // the local atoms by slab, increasing index within one
  // The CPU's cluster layout (neighbor.layout: clusters): the pair styles
  // read `clusters` instead of the rows, which are then empty.
  bool clustered = false;
  ClusterPairs clusters;
  // Positions at the last build, for the displacement check.
  std::vector<double> x0, y0, z0;
  long builds = 0;
};

// The list's rows with entries atom << shift: its own storage when it holds
// them so, else a converted copy in `scratch` (tests and callers that built
// the other form; a run's HostBackend builds what its kernels read).
const int* rows_with_shift(const NeighborList& nl, int shift, std::vector<int>& scratch);

// Why a rank of `atoms` atoms (locals and ghosts) cannot have rows of
// record offsets: they would not fit an int.
std::string record_offsets_limit(long atoms, long limit = kRecordOffsetAtoms);

}  // namespace tessera
