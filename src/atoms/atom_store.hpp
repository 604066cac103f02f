#pragma once
#include <algorithm>
#include <cstddef>
#include <vector>

#include "atoms/atom_fields.hpp"
#include "atoms/ghost_shares.hpp"
#include "core/types.hpp"

namespace tessera {

// Per-atom data as flat arrays (structure of arrays): local atoms occupy
// [0, nlocal), ghost atoms [nlocal, nlocal + nghost). The device's
// DeviceAtoms has the same arrays, both made from the field registry, so
// every field is a plain array of scalars.
struct AtomStore {
  std::size_t nlocal = 0;
  std::size_t nghost = 0;
  int ntypes = 1;
  std::vector<double> mass_of_type;  // index 0 unused: types are 1-based as in LAMMPS
  // How the CPU's threads split the ghosts; set by the periodic ghosts'
  // build, dropped by resize_ghosts.
  GhostShares ghost_shares;

  // One array per entry of the field registry (atoms/atom_fields.hpp):
  // id, type, x y z (local and ghost); vx vy vz, fx fy fz, ix iy iz
  // (periodic image counts), pe and virial (per-atom energy and virial
  // trace) for locals only.
#define TESSERA_HOST_FIELD(member, T, name, component, width, roles) std::vector<T> member;
  TESSERA_ATOM_FIELDS(TESSERA_HOST_FIELD)
#undef TESSERA_HOST_FIELD

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
