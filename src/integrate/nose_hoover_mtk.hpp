#pragma once
// Constant pressure: the Martyna-Tobias-Klein equations with Nose-Hoover
// chains on the particles (npt) and on the barostat, in the symplectic
// splitting of LAMMPS's fix npt / fix nph (Shinoda, Shiga & Mikami, Phys.
// Rev. B 69, 134103 (2004); Tuckerman et al., J. Phys. A 39, 5629 (2006)),
// orthorhombic boxes, iso or aniso coupling. docs/algorithms.md has the
// equations and the order of the half steps.
#include <array>
#include <vector>

#include "comm/communicator.hpp"
#include "core/units.hpp"
#include "deck/deck.hpp"
#include "domain/box.hpp"
#include "integrate/atom_ops.hpp"

namespace tessera {

// What the barostat reads and moves besides the atoms: the box and the
// virial of the last forces (Simulation is one; tests have their own).
class CellControl {
 public:
  virtual ~CellControl() = default;
  virtual const Box& box() const = 0;
  // The box becomes `to`; the locals have already been remapped into it.
  virtual void move_box(const Box& to) = 0;
  // The virial of the last forces over every atom of every rank: the sum
  // of r.F (trace) or its diagonal xx, yy, zz. Collective.
  virtual double virial_trace() const = 0;
  virtual std::array<double, 3> virial_diagonal() const = 0;
};

class NoseHooverMtk {
 public:
  NoseHooverMtk(const IntegratorSpec& spec, const Units& units, long long natoms, const Communicator* comm);

  // Before the first step of a run (LAMMPS's setup): the current
  // temperature and pressure, the chains' and the barostat's masses. Does
  // nothing after restore(), whose state already has them.
  void setup(AtomOps& atoms, const CellControl& cell, long step);
  // Step `step`'s first half (chains, barostat, half kick, drift with the
  // box remapped around it) and second half (half kick, barostat, chains).
  void initial(AtomOps& atoms, CellControl& cell, long step);
  void final(AtomOps& atoms, CellControl& cell);

  // The extended system's energy (LAMMPS's ecouple) in the current box:
  // etotal + this is conserved.
  double energy() const;

  // Everything a continuation needs, as one array (checkpoints), and back.
  std::vector<double> state() const;
  void restore(const std::vector<double>& s);

 private:
  void temperature_targets(long step);
  void pressure_targets(long step);
  // The pressure each axis is driven by (p_current_), from the current
  // velocities and the last virial, and the temperature it used.
  double measure(AtomOps& atoms, const CellControl& cell);
  void chain_half_step(AtomOps& atoms);
  void barostat_chain_half_step();
  void barostat_half_step(const Box& box);
  void scale_velocities(AtomOps& atoms);
  void remap(AtomOps& atoms, CellControl& cell);
  double sum_over(double v) const;
  // f(x) for every number of the state, in state()'s order.
  template <class Self, class F>
  static void walk_state(Self& s, F&& f);

  IntegratorSpec spec_;
  Units units_;
  long long natoms_;
  const Communicator* comm_;
  bool thermostat_, aniso_;
  int pdim_ = 3;
  double tdof_;
  double t_freq_ = 0, p_freq_ = 0;
  double tdrag_ = 1, pdrag_ = 1;
  double dt_, dthalf_, dt4_;

  // Targets of the current step.
  double t_target_ = 0, ke_target_ = 0, p_hydro_ = 0;
  double p_target_[3] = {0, 0, 0};
  // Measured state.
  double t_current_ = 0;
  double mvv_[3] = {0, 0, 0};  // mvv2e * sum m v_d^2
  double p_current_[3] = {0, 0, 0};

  // Particle chain, barostat and barostat chain (LAMMPS's eta, omega, etap);
  // each chain has one extra velocity fixed at zero above its top.
  std::vector<double> eta_, eta_dot_, eta_dotdot_, eta_mass_;
  double omega_[3] = {0, 0, 0}, omega_dot_[3] = {0, 0, 0}, omega_mass_[3] = {0, 0, 0};
  std::vector<double> etap_, etap_dot_, etap_dotdot_, etap_mass_;
  double mtk_term1_ = 0, mtk_term2_ = 0;
  double vol0_ = 0, t0_ = 0;
  double volume_ = 0;  // the box's, after the last remap
  bool ready_ = false;
};

}  // namespace tessera
