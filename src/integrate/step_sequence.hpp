#pragma once
// The order of one step and the rules of when, written once: Simulation::run
// supplies the pieces, from the CPU backend or a device engine
// (src/run/device_engine.hpp).
#include "deck/deck.hpp"

namespace tessera {

// One velocity Verlet step (docs/architecture.md, "The step"). `Loop` has
// initial(), check_motion(), rebuild_due(), rebuild(), refresh_ghosts(),
// compute_forces(), post_force() and final() for the step being made.
template <class Loop>
void verlet_step(Loop& loop) {
  loop.initial();
  loop.check_motion();
  if (loop.rebuild_due())
    loop.rebuild();
  else
    loop.refresh_ghosts();
  loop.compute_forces();
  loop.post_force();
  loop.final();
}

// LAMMPS's neigh_modify every/delay/check: consider a rebuild every `every`
// steps once `delay` steps have passed since the last one; with `check`,
// rebuild only if some atom moved more than half the skin, which
// `max_displacement_sq()` (over all ranks) tells. It is called only then,
// since it is a reduction over every atom. A box that changed since the
// build (a barostat) brings periodic images closer by up to `box_drift`
// (how far its corners moved), which the skin must also cover, as in
// LAMMPS's neighbor check.
// Whether this step's rule considers a rebuild at all (with `check`, only
// if an atom moved far enough).
inline bool rebuild_considered(const NeighborSpec& n, long steps_since_build) {
  return steps_since_build >= n.delay && steps_since_build % n.every == 0;
}
// Whether this step's rule asks for max_displacement_sq(): a device fuses
// that reduction with the motion guard's when it does.
inline bool displacement_due(const NeighborSpec& n, long steps_since_build) {
  return n.check && rebuild_considered(n, steps_since_build);
}
template <class MaxDisplacementSq>
bool rebuild_due(const NeighborSpec& n, long steps_since_build, double box_drift,
                 MaxDisplacementSq&& max_displacement_sq) {
  if (!rebuild_considered(n, steps_since_build)) return false;
  if (!n.check) return true;
  const double half = 0.5 * (n.skin - box_drift);
  if (half <= 0) return true;
  return max_displacement_sq() > half * half;
}

// Thermo at every `every` steps (0: never) and after the last step of a run.
inline bool thermo_due(long step, long every, long last) { return (every > 0 && step % every == 0) || step == last; }

}  // namespace tessera
