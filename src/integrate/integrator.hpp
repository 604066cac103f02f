#pragma once
#include <memory>
#include <vector>

#include "atoms/atom_store.hpp"
#include "comm/communicator.hpp"
#include "core/units.hpp"
#include "deck/deck.hpp"
#include "integrate/atom_ops.hpp"
#include "integrate/cell_rescale.hpp"
#include "integrate/nose_hoover_mtk.hpp"

namespace tessera {

// Velocity Verlet with an optional thermostat:
//   nve          plain velocity Verlet
//   langevin     plus friction and random forces (post_force)
//   nose-hoover  plus a Nose-Hoover chain (Martyna, Klein & Tuckerman, J. Chem.
//                Phys. 97, 2635 (1992)) applied as half steps around the
//                Verlet step (Trotter splitting, Tuckerman et al. 2006).
//   npt, nph     constant pressure (nose_hoover_mtk.hpp), which also moves
//                the box: these take the CellControl overloads.
// langevin and nose-hoover may carry a stochastic cell rescaling barostat
// (cell_rescale.hpp), which also needs the CellControl overloads.
class Integrator {
 public:
  // `comm` sums the kinetic energy the chain needs over all ranks. The
  // factors taken from `units` are kept, not the table.
  Integrator(const IntegratorSpec& spec, const Units& units, long long natoms, const Communicator* comm = nullptr);

  // Before a run's first step (the barostat's masses and first pressure);
  // then each step on any backend's atoms, the box in `cell`.
  void setup(AtomOps& atoms, const CellControl& cell, long step);
  void initial(AtomOps& atoms, CellControl& cell, long step);
  void final(AtomOps& atoms, CellControl& cell);
  // The step on any backend's atoms (atom_ops.hpp), for the styles that
  // leave the box alone.
  void initial(AtomOps& atoms);                // (chain half step), half kick, drift
  // Langevin forces for this step; `first`: those of setup, before the run.
  void post_force(AtomOps& atoms, long step, bool first = false);
  void final(AtomOps& atoms);                  // half kick, (chain half step)
  // The same on the CPU.
  void initial(AtomStore& atoms);
  void post_force(AtomStore& atoms, long step);
  void final(AtomStore& atoms);

  // Energy stored in the thermostat (and barostat), so that etotal + this
  // is conserved for nose-hoover, npt and nph; plus the energy a cell
  // rescaling barostat took from the particles. Zero for nve and langevin.
  double thermostat_energy() const;
  const IntegratorSpec& spec() const { return spec_; }
  // Whether final() is one half kick and nothing more (no chain, no
  // barostat; Langevin's forces are in f by then), and its dtf: such a kick
  // may be owed to the next step's first, which uses the same forces
  // (Simulation's owed kick).
  bool final_is_half_kick() const {
    return !mtk_ && !crescale_ && spec_.style != IntegratorStyle::kNoseHoover;
  }
  double half_kick_dtf() const { return dtf_; }

  // Chain state, for checkpoints and tests.
  const std::vector<double>& chain_positions() const { return xi_; }
  const std::vector<double>& chain_velocities() const { return vxi_; }
  // The kinetic energy the chain carries into the next step (one value),
  // or nothing when the next step must sum it afresh.
  std::vector<double> chain_kinetic() const {
    return mv2_carried_ >= 0 ? std::vector<double>{mv2_carried_} : std::vector<double>{};
  }
  // Continues a chain from a checkpoint; throws InputError if the chain
  // length differs from the deck's.
  void restore_chain(const std::vector<double>& xi, const std::vector<double>& vxi,
                     const std::vector<double>& kinetic = {});
  // Velocities were changed outside the step (a user's edit between runs):
  // the next step sums the kinetic energy afresh.
  void velocities_changed() { mv2_carried_ = -1; }
  // The barostat, for npt and nph; null otherwise.
  const NoseHooverMtk* barostat() const { return mtk_.get(); }
  NoseHooverMtk* barostat() { return mtk_.get(); }
  // The cell rescaling barostat of langevin or nose-hoover; null otherwise.
  const CellRescale* cell_rescale() const { return crescale_.get(); }
  // Either barostat's state, for checkpoints (empty without one), and back:
  // throws InputError if it does not fit this deck's barostat.
  std::vector<double> barostat_state() const;
  void restore_barostat(const std::vector<double>& s);

 private:
  // `after_kick`: the step's second chain half step, which measures the
  // kinetic energy and carries it, scaled, into the next step's first.
  void chain_half_step(AtomOps& atoms, bool after_kick);
  // The thermostatted velocity Verlet halves, which initial(atoms) and
  // final(atoms) refuse to run alone when a barostat needs the cell.
  void verlet_initial(AtomOps& atoms);
  void verlet_final(AtomOps& atoms);

  IntegratorSpec spec_;
  double dof_;
  double kt_;                              // boltz T, the thermostats' energy
  double mvv2e_;                           // sum m v^2 to energy, for the chain
  double dtf_;                             // the half kick's (dt/2) ftm2v
  double inv_damp_ = 0, noise_scale_ = 0;  // LangevinForce's
  const Communicator* comm_ = nullptr;
  std::vector<double> q_, xi_, vxi_;  // chain masses, positions, velocities
  // sum m v^2 (energy units, all ranks) after the last chain scaling, for
  // the next step's first half, as LAMMPS's fix nvt carries t_current; -1:
  // sum afresh.
  double mv2_carried_ = -1;
  std::unique_ptr<NoseHooverMtk> mtk_;
  std::unique_ptr<CellRescale> crescale_;
};

}  // namespace tessera
