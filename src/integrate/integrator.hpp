#pragma once
#include <vector>

#include "atoms/atom_store.hpp"
#include "comm/communicator.hpp"
#include "deck/deck.hpp"
#include "integrate/atom_ops.hpp"

namespace tessera {

// Velocity Verlet with an optional thermostat:
//   nve          plain velocity Verlet
//   langevin     plus friction and random forces (post_force)
//   nose-hoover  plus a Nose-Hoover chain (Martyna, Klein & Tuckerman, J. Chem.
//                Phys. 97, 2635 (1992)) applied as half steps around the
//                Verlet step (Trotter splitting, Tuckerman et al. 2006).
class Integrator {
 public:
  // `comm` sums the kinetic energy the chain needs over all ranks.
  Integrator(const IntegratorSpec& spec, long long natoms, const Communicator* comm = nullptr);

  // The step on any backend's atoms (atom_ops.hpp).
  void initial(AtomOps& atoms);                // (chain half step), half kick, drift
  void post_force(AtomOps& atoms, long step);  // Langevin forces for this step
  void final(AtomOps& atoms);                  // half kick, (chain half step)
  // The same on the CPU.
  void initial(AtomStore& atoms);
  void post_force(AtomStore& atoms, long step);
  void final(AtomStore& atoms);

  // Energy stored in the thermostat, so that etotal + this is conserved
  // for Nose-Hoover. Zero for nve and langevin.
  double thermostat_energy() const;
  const IntegratorSpec& spec() const { return spec_; }

  // Chain state, for checkpoints and tests.
  const std::vector<double>& chain_positions() const { return xi_; }
  const std::vector<double>& chain_velocities() const { return vxi_; }
  // Continues a chain from a checkpoint; throws InputError if the chain
  // length differs from the deck's.
  void restore_chain(const std::vector<double>& xi, const std::vector<double>& vxi);

 private:
  void chain_half_step(AtomOps& atoms);

  IntegratorSpec spec_;
  double dof_;
  const Communicator* comm_ = nullptr;
  std::vector<double> q_, xi_, vxi_;  // chain masses, positions, velocities
};

}  // namespace tessera
