#pragma once
#include <cstddef>
#include <vector>

namespace tessera {

// Full Verlet list: every local atom lists all its neighbours (local and
// ghost) within cutoff + skin. Each pair is stored twice; that costs twice the
// pair work of a half list, but the force on an atom is then a sum in a fixed
// order owned by one thread, so results are bitwise independent of the
// thread count and the same loop body runs on CPU threads and GPU threads.
// Fixed stride per atom (padded), the layout a GPU kernel reads as it is.
struct NeighborList {
  int stride = 0;
  std::vector<int> count;  // per local atom
  std::vector<int> index;  // index[i * stride + k]
  // When > 1: stride is a multiple of it, and each row is padded up to a
  // multiple of it with the atom's own index, so that a vector kernel can
  // read whole blocks (it must still ignore entries past count).
  int pad = 1;
  // Positions at the last build, for the displacement check.
  std::vector<double> x0, y0, z0;
  long builds = 0;
};

}  // namespace tessera
