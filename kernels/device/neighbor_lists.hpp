#pragma once
// The device's neighbour lists as data: what the builders fill
// (neighbor_build.hpp, cluster_list.hpp) and the forces and reductions read.
// Apart from the builders, so that a source that only reads or holds a list
// does not include them: nvcc compiles every kernel an inline function of a
// header instantiates, used or not, in each source that includes it.
#include <cstdint>

#include "device/exec_policy.hpp"
#include "device/packed_positions.hpp"

namespace tessera::device {
inline namespace TESSERA_DEVICE_SYSTEM_NS {

constexpr int kClusterSize = 8;

struct DeviceClusterList {
  int stride = 0;       // cluster pairs per row
  int next_stride = 0;  // what the last build needed, with room to spare
  int nrows = 0;   // clusters holding at least one local atom
  dvec<int> slot_atom;    // atom in each slot; cluster c is slots [first[c], first[c+1])
  dvec<int> first;        // per cluster, plus the end
  dvec<int> row_cluster;  // per row: its cluster
  dvec<int> count;        // per row: cluster pairs; may exceed stride only inside a build
  dvec<int> cj;           // [row * stride + k]: the other cluster
  dvec<std::uint8_t> jmask;  // its atoms within reach of the row cluster's box
  // Rows whose listed atoms are all local (inner) and the rest (outer): the
  // inner rows' forces need not wait for the halo (force_pipeline.hpp).
  dvec<int> inner, outer;
};

// Either per-atom rows (the default, the CPU's layout) or, when `clustered`,
// a cluster list (cluster_list.hpp), which takes about a fifth of the memory.
struct DeviceNeighborList {
  bool clustered = false;
  DeviceClusterList clusters;
  int stride = 0;   // room for neighbours per atom
  long pitch = 0;   // nlocal rounded up to a warp's 32 threads
  dvec<int> count;  // per local atom; may exceed stride only inside a build
  // index[k * pitch + i]: neighbour k of every local atom side by side (the
  // transpose of the CPU's rows), so the threads of a warp, one atom each,
  // read or write one contiguous run at each k instead of 32 cache lines.
  dvec<int> index;
  // Rows only: local atoms whose neighbours are all local (inner), and the
  // rest (outer), so forces on the inner ones need not wait for the halo.
  dvec<int> inner, outer;
  // Rows only: the tiles of mixed precision's float positions over the
  // region the last build covered (packed_positions.hpp).
  TileFrame tiles;
  // Positions at the last build, for the displacement check.
  dvec<double> x0, y0, z0;
  long builds = 0;
  long generation = 0;  // builds by this process (builds follows a checkpoint's count): what id maps key on
  long grows = 0;  // builds that found a row longer than stride and ran again
  int widest = 0;  // rows only: the longest row of the last build
};

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
