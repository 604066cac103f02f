#pragma once
// The CPU side of every device test: the engine's own pieces, run in the
// order of Simulation::rebuild, on a copy of a Simulation's atoms. Owning the
// pieces lets a test move atoms and refresh ghosts between rebuilds, which
// Simulation does only inside run().
#include "atoms/atom_store.hpp"
#include "domain/periodic_ghosts.hpp"
#include "neighbor/verlet_builder.hpp"
#include "potentials/pair_style.hpp"
#include "run/simulation.hpp"

namespace tessera::test {

struct CpuReference {
  explicit CpuReference(const Simulation& sim)
      : atoms(sim.atoms()), sd(sim.sub_domain()), reach(sim.reach()), pair(sim.pair()) {}

  void rebuild() {
    PeriodicGhosts::wrap(atoms, sd.global);
    sort_atoms_spatially(atoms, sd, 0.5 * reach);
    ghosts.build(atoms, sd, reach);
    builder.build(atoms, sd, reach, list);
  }
  void refresh_ghosts() { ghosts.update_positions(atoms, sd.global); }
  void compute_forces() { pair.compute(atoms, list); }

  AtomStore atoms;
  SubDomain sd;
  double reach;
  const PairStyle& pair;
  PeriodicGhosts ghosts;
  VerletBuilder builder;
  NeighborList list;
};

}  // namespace tessera::test
