#pragma once
#include <algorithm>
#include <cstddef>
#include <vector>

#include "core/types.hpp"

namespace tessera {

// Per-atom data as flat arrays (structure of arrays): local atoms occupy
// [0, nlocal), ghost atoms [nlocal, nlocal + nghost). A GPU backend mirrors
// these arrays one to one, so every field here is a plain array of scalars.
struct AtomStore {
  std::size_t nlocal = 0;
  std::size_t nghost = 0;
  int ntypes = 1;
  std::vector<double> mass_of_type;  // index 0 unused: types are 1-based as in LAMMPS

  // Local and ghost.
  std::vector<AtomId> id;
  std::vector<int> type;
  std::vector<double> x, y, z;
  // Local only.
  std::vector<double> vx, vy, vz;
  std::vector<double> fx, fy, fz;
  std::vector<int> ix, iy, iz;     // periodic image counts
  std::vector<double> pe, virial;  // per-atom energy and virial trace

  std::size_t nall() const { return nlocal + nghost; }

  // Sizes the local arrays for n atoms and drops all ghosts.
  void resize_local(std::size_t n);
  // Sizes the ghost part of the shared arrays.
  void resize_ghosts(std::size_t n);
  // Indices of the local atoms sorted by global id: the order checkpoints,
  // trajectories and layout-independent sums use.
  std::vector<std::size_t> local_order_by_id() const;
  // Reorders the local atoms: new position k holds old atom order[k].
  void permute_local(const std::vector<std::size_t>& order);
};

}  // namespace tessera
