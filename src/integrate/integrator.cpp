#include "integrate/integrator.hpp"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "core/error.hpp"
#include "integrate/cpu_atom_ops.hpp"

namespace tessera {

// Each factor stands where LAMMPS's fixes have it; in lj units all are 1 and
// x * 1 and x / 1 are exact, so lj runs keep every bit.
Integrator::Integrator(const IntegratorSpec& spec, const Units& units, long long natoms, const Communicator* comm)
    : spec_(spec),
      dof_(3.0 * static_cast<double>(natoms) - 3.0),
      kt_(units.boltz * spec.temperature),
      mvv2e_(units.mvv2e),
      dtf_(0.5 * spec.dt * units.ftm2v),
      comm_(comm) {
  if (spec_.style == IntegratorStyle::kLangevin) {
    inv_damp_ = 1.0 / (spec_.damping * units.ftm2v);
    noise_scale_ = std::sqrt(24.0 * kt_ / (spec_.damping * spec_.dt * units.mvv2e)) / units.ftm2v;
  }
  if (spec_.style == IntegratorStyle::kNoseHoover) {
    const double kt = kt_, tau2 = spec_.damping * spec_.damping;
    q_.assign(spec_.chain, kt * tau2);
    q_[0] = dof_ * kt * tau2;
    xi_.assign(spec_.chain, 0.0);
    vxi_.assign(spec_.chain, 0.0);
  }
  if (spec_.barostat()) mtk_ = std::make_unique<NoseHooverMtk>(spec_, units, natoms, comm);
  if (spec_.c_rescale) crescale_ = std::make_unique<CellRescale>(spec_, units, natoms, comm);
}

void Integrator::setup(AtomOps& a, const CellControl& cell, long step) {
  if (mtk_) mtk_->setup(a, cell, step);
}

// The cell rescaling move comes first in the step: it reads the pressure
// the last step ended with (thermo's), before the thermostat touches the
// velocities.
void Integrator::initial(AtomOps& a, CellControl& cell, long step) {
  if (mtk_) return mtk_->initial(a, cell, step);
  if (crescale_) crescale_->move(a, cell, step);
  verlet_initial(a);
}

void Integrator::final(AtomOps& a, CellControl& cell) {
  if (mtk_) return mtk_->final(a, cell);
  verlet_final(a);
  if (crescale_) crescale_->finish(cell);
}

std::vector<double> Integrator::barostat_state() const {
  if (mtk_) return mtk_->state();
  if (crescale_) return crescale_->state();
  return {};
}

void Integrator::restore_barostat(const std::vector<double>& s) {
  if (mtk_) return mtk_->restore(s);
  if (crescale_) return crescale_->restore(s);
}

void Integrator::restore_chain(const std::vector<double>& xi, const std::vector<double>& vxi,
                               const std::vector<double>& kinetic) {
  if (xi.size() != xi_.size() || vxi.size() != vxi_.size())
    throw InputError(fmt::format("the checkpoint holds a thermostat chain of length {}, the deck asks for {}",
                                 xi.size(), xi_.size()));
  xi_ = xi;
  vxi_ = vxi;
  mv2_carried_ = kinetic.empty() ? -1 : kinetic[0];
}

void Integrator::initial(AtomOps& a) {
  if (mtk_ || crescale_) throw std::logic_error("Integrator: a barostat moves the box: call initial(atoms, cell, step)");
  verlet_initial(a);
}

void Integrator::verlet_initial(AtomOps& a) {
  if (spec_.style == IntegratorStyle::kNoseHoover) chain_half_step(a, false);
  a.half_kick(dtf_);
  a.drift(spec_.dt);
}

void Integrator::post_force(AtomOps& a, long step, bool first) {
  if (spec_.style != IntegratorStyle::kLangevin) return;
  const LangevinKeys keys{inv_damp_, noise_scale_, spec_.seed, static_cast<unsigned long long>(step)};
  a.langevin(keys);
  // With a barostat, econserve is meant to be conserved: the heat the
  // Langevin forces will bring goes to ecouple.
  if (crescale_) {
    double heat = a.langevin_heat(keys, dtf_, first);
    if (comm_) comm_->sum_in_rank_order(&heat, 1);
    crescale_->add_heat(heat * mvv2e_ * dtf_);
  }
}

void Integrator::final(AtomOps& a) {
  if (mtk_ || crescale_) throw std::logic_error("Integrator: a barostat moves the box: call final(atoms, cell)");
  verlet_final(a);
}

void Integrator::verlet_final(AtomOps& a) {
  a.half_kick(dtf_);
  if (spec_.style == IntegratorStyle::kNoseHoover) chain_half_step(a, true);
}

void Integrator::initial(AtomStore& a) {
  CpuAtomOps ops(a);
  initial(ops);
}

void Integrator::post_force(AtomStore& a, long step) {
  CpuAtomOps ops(a);
  post_force(ops, step);
}

void Integrator::final(AtomStore& a) {
  CpuAtomOps ops(a);
  final(ops);
}

// Propagates the chain over dt/2 and scales the particle velocities once.
// The kinetic energy is summed once a step, after the second half kick, as
// LAMMPS's fix nvt computes t_current: the next step's first half takes it
// as this half leaves it (scaled by s^2), since nothing touches the
// velocities in between. That is one reduction, and on a device one wait,
// fewer a step. A cell rescaling barostat moves the velocities in between,
// so with one the first half sums afresh too.
void Integrator::chain_half_step(AtomOps& a, bool after_kick) {
  const int m = spec_.chain;
  const double kt = kt_;
  const double dt2 = 0.5 * spec_.dt, dt4 = 0.25 * spec_.dt, dt8 = 0.125 * spec_.dt;
  double mv2 = mv2_carried_;
  if (after_kick || mv2 < 0 || crescale_) {
    mv2 = a.sum_mv2();
    if (comm_) comm_->sum_in_rank_order(&mv2, 1);
    mv2 *= mvv2e_;  // in energy units from here on
  }
  auto force = [&](int k) {
    return k == 0 ? (mv2 - dof_ * kt) / q_[0] : (q_[k - 1] * vxi_[k - 1] * vxi_[k - 1] - kt) / q_[k];
  };
  // Outer chain element inwards.
  vxi_[m - 1] += force(m - 1) * dt4;
  for (int k = m - 2; k >= 0; --k) {
    const double e = std::exp(-vxi_[k + 1] * dt8);
    vxi_[k] = (vxi_[k] * e + force(k) * dt4) * e;
  }
  const double s = std::exp(-vxi_[0] * dt2);
  a.scale_velocities(s);
  mv2 *= s * s;
  for (int k = 0; k < m; ++k) xi_[k] += vxi_[k] * dt2;
  // And back out.
  for (int k = 0; k < m - 1; ++k) {
    const double e = std::exp(-vxi_[k + 1] * dt8);
    vxi_[k] = (vxi_[k] * e + force(k) * dt4) * e;
  }
  vxi_[m - 1] += force(m - 1) * dt4;
  mv2_carried_ = after_kick ? mv2 : -1;
}

double Integrator::thermostat_energy() const {
  if (mtk_) return mtk_->energy();
  const double barostat = crescale_ ? crescale_->energy() : 0.0;
  if (spec_.style != IntegratorStyle::kNoseHoover) return barostat;
  const double kt = kt_;
  double e = dof_ * kt * xi_[0];
  for (int k = 0; k < spec_.chain; ++k) {
    e += 0.5 * q_[k] * vxi_[k] * vxi_[k];
    if (k > 0) e += kt * xi_[k];
  }
  return e + barostat;
}

}  // namespace tessera
