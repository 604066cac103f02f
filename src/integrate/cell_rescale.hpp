#pragma once
// Stochastic cell rescaling (C-rescale): Bernetti & Bussi, J. Chem. Phys.
// 153, 114107 (2020), for orthorhombic boxes, iso or aniso (each side on
// its own, as the semi-isotropic and anisotropic variants of GROMACS's
// pcoupl = C-rescale; Del Tatto et al., Appl. Sci. 12, 1139 (2022)). It
// runs beside a thermostat (langevin or nose-hoover): once per step, first
// in the step, the box, the positions (fractional coordinates kept) and
// the velocities are scaled by a factor drawn from a first-order stochastic
// equation for the logarithm of the volume. docs/algorithms.md, section
// 4.5, has the equations, where the move sits in the step, the conserved
// quantity and the keys of the draws.
#include <array>
#include <vector>

#include "comm/communicator.hpp"
#include "core/units.hpp"
#include "deck/deck.hpp"
#include "integrate/atom_ops.hpp"
#include "integrate/nose_hoover_mtk.hpp"

namespace tessera {

// What one move is made from, for CellRescale and the tests' closed form.
struct CellRescaleInput {
  double pressure_target;          // P0 at this step
  std::array<double, 3> pressure;  // the driving pressure: iso, the scalar in all three; aniso, xx yy zz
  double volume;
  double kt;  // boltz T of the thermostat, in energy units
  double compressibility, damping, dt;
  double nktv2p;  // energy / volume to pressure
  bool aniso;
};

// The change of each side's logarithm, ln(L'/L), for the standard normal
// draws `normal` (iso reads normal[0] only):
//   iso    d ln V = -(beta dt / tau) (P0 - P) + sqrt(2 kT beta dt / (V tau)) xi,
//          each side d ln V / 3
//   aniso  d ln L_d = -(beta dt / (3 tau)) (P0 - P_dd) + sqrt(2 kT beta dt / (3 V tau)) xi_d
std::array<double, 3> cell_rescale_strain(const CellRescaleInput& in, const std::array<double, 3>& normal);

// The barostat's standard normal draws of `step`: Philox keyed by (seed,
// step), stream kBarostat, id 0, Box-Muller on its four words. The same on
// every rank and backend.
std::array<double, 4> cell_rescale_normals(std::uint64_t seed, long step);

class CellRescale {
 public:
  CellRescale(const IntegratorSpec& spec, const Units& units, long long natoms, const Communicator* comm);

  // The move of step `step`, before anything else of the step: the pressure
  // of the current velocities and the last forces' virial, the draw, then
  // box, positions and velocities scaled. Collective.
  void move(AtomOps& atoms, CellControl& cell, long step);
  // At the end of the step, with the new forces' virial: the second half of
  // the trapezoid that estimates the potential energy the move changed.
  // Collective.
  void finish(const CellControl& cell);

  // With langevin: the work the Langevin forces of a step will do on the
  // particles (Integrator::post_force), kept here for ecouple.
  void add_heat(double q) { heat_ += q; }
  // The energy the barostat (and, with langevin, the thermostat) took out
  // of the particles so far: etotal + this (+ a Nose-Hoover chain's
  // energy) is conserved.
  double energy() const { return energy_ - heat_; }
  // The log strain of the last move, per side (tests).
  const std::array<double, 3>& last_strain() const { return strain_; }

  // Everything a continuation needs (checkpoints), and back.
  std::vector<double> state() const { return {energy_, heat_}; }
  void restore(const std::vector<double>& s);

 private:
  // The per-side virial (iso: the trace, a third on each side).
  std::array<double, 3> virial(const CellControl& cell) const;

  IntegratorSpec spec_;
  Units units_;
  double dof_;
  const Communicator* comm_;
  bool aniso_;
  double energy_ = 0;  // minus the barostat's work
  double heat_ = 0;    // the Langevin forces' work
  std::array<double, 3> strain_{0, 0, 0};
  bool pending_ = false;  // between move() and finish()
};

}  // namespace tessera
