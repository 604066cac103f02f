#include "integrate/nose_hoover_mtk.hpp"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "core/error.hpp"
#include "integrate/ramp.hpp"

namespace tessera {

// Every factor stands where LAMMPS's fix nh has it (fix_nh.cpp of 29 Sep
// 2021), so that runs from the same data file follow it to round-off: the
// order of the half steps, which temperature each one sees (the freshly
// measured one or the one the chain scaled), the particle chain's masses
// renewed from the target at each half step while the barostat's stay as
// setup made them, and the chain's stale second derivatives above its
// first element.
NoseHooverMtk::NoseHooverMtk(const IntegratorSpec& spec, const Units& units, long long natoms,
                             const Communicator* comm)
    : spec_(spec),
      units_(units),
      natoms_(natoms),
      comm_(comm),
      thermostat_(spec.style == IntegratorStyle::kNpt),
      aniso_(spec.coupling == PressureCoupling::kAniso),
      tdof_(3.0 * static_cast<double>(natoms) - 3.0),
      dt_(spec.dt),
      dthalf_(0.5 * spec.dt),
      dt4_(0.25 * spec.dt) {
  if (!spec.barostat()) throw std::logic_error("NoseHooverMtk: not an npt or nph integrator");
  p_freq_ = 1.0 / spec.pressure_damping;
  pdrag_ = 1.0 - dt_ * p_freq_ * spec.drag;
  if (thermostat_) {
    t_freq_ = 1.0 / spec.damping;
    tdrag_ = 1.0 - dt_ * t_freq_ * spec.drag;
    eta_.assign(spec.chain, 0.0);
    eta_dot_.assign(spec.chain + 1, 0.0);
    eta_dotdot_.assign(spec.chain, 0.0);
    eta_mass_.assign(spec.chain, 0.0);
  }
  etap_.assign(spec.pressure_chain, 0.0);
  etap_dot_.assign(spec.pressure_chain + 1, 0.0);
  etap_dotdot_.assign(spec.pressure_chain, 0.0);
  etap_mass_.assign(spec.pressure_chain, 0.0);
}

double NoseHooverMtk::sum_over(double v) const {
  if (comm_) comm_->sum_in_rank_order(&v, 1);
  return v;
}

void NoseHooverMtk::temperature_targets(long step) {
  t_target_ = spec_.temperature + ramp_fraction(step, spec_.ramp_steps) * (spec_.temperature_stop - spec_.temperature);
  ke_target_ = tdof_ * units_.boltz * t_target_;
}

void NoseHooverMtk::pressure_targets(long step) {
  const double delta = ramp_fraction(step, spec_.ramp_steps);
  p_hydro_ = 0.0;
  for (int i = 0; i < 3; ++i) {
    p_target_[i] = spec_.pressure + delta * (spec_.pressure_stop - spec_.pressure);
    p_hydro_ += p_target_[i];
  }
  p_hydro_ /= pdim_;
}

double NoseHooverMtk::measure(AtomOps& atoms, const CellControl& cell) {
  const double tfactor = units_.mvv2e / (tdof_ * units_.boltz);
  const double inv_volume = 1.0 / cell.box().volume();
  double t;
  if (!aniso_) {
    t = sum_over(atoms.sum_mv2()) * tfactor;
    const double w = cell.virial_trace();
    const double p = (tdof_ * units_.boltz * t + w) / 3.0 * inv_volume * units_.nktv2p;
    for (double& pc : p_current_) pc = p;
  } else {
    double axes[3];
    atoms.sum_mv2_axes(axes);
    if (comm_) comm_->sum_in_rank_order(axes, 3);
    t = (axes[0] + axes[1] + axes[2]) * tfactor;
    const std::array<double, 3> w = cell.virial_diagonal();
    for (int i = 0; i < 3; ++i) {
      mvv_[i] = axes[i] * units_.mvv2e;
      p_current_[i] = (mvv_[i] + w[i]) * inv_volume * units_.nktv2p;
    }
  }
  for (double pc : p_current_)
    if (!std::isfinite(pc)) throw SimulationError(fmt::format("npt/nph: the pressure is {}: the run is unstable", pc));
  return t;
}

void NoseHooverMtk::setup(AtomOps& atoms, const CellControl& cell, long step) {
  if (ready_) return;
  vol0_ = cell.box().volume();
  t_current_ = measure(atoms, cell);
  if (thermostat_) {
    temperature_targets(step);
  } else {
    // nph: the barostat's masses come from the starting temperature.
    if (t0_ == 0.0) {
      t0_ = t_current_;
      if (t0_ < 1e-6)
        throw InputError(fmt::format("nph: the starting temperature is {}, too close to zero to set the "
                                     "barostat's mass (give the atoms velocities)",
                                     t0_));
    }
    t_target_ = t0_;
  }
  pressure_targets(step);
  const double kt = units_.boltz * t_target_;
  if (thermostat_) {
    eta_mass_[0] = tdof_ * kt / (t_freq_ * t_freq_);
    for (std::size_t k = 1; k < eta_.size(); ++k) eta_mass_[k] = kt / (t_freq_ * t_freq_);
    for (std::size_t k = 1; k < eta_.size(); ++k)
      eta_dotdot_[k] = (eta_mass_[k - 1] * eta_dot_[k - 1] * eta_dot_[k - 1] - kt) / eta_mass_[k];
  }
  const double nkt = static_cast<double>(natoms_ + 1) * kt;
  for (double& w : omega_mass_) w = nkt / (p_freq_ * p_freq_);
  for (std::size_t k = 0; k < etap_.size(); ++k) etap_mass_[k] = kt / (p_freq_ * p_freq_);
  for (std::size_t k = 1; k < etap_.size(); ++k)
    etap_dotdot_[k] = (etap_mass_[k - 1] * etap_dot_[k - 1] * etap_dot_[k - 1] - kt) / etap_mass_[k];
  volume_ = cell.box().volume();
  ready_ = true;
}

void NoseHooverMtk::initial(AtomOps& atoms, CellControl& cell, long step) {
  if (!ready_) throw std::logic_error("NoseHooverMtk::initial before setup");
  if (!etap_.empty()) barostat_chain_half_step();
  if (thermostat_) {
    temperature_targets(step);
    chain_half_step(atoms);
  }
  // The pressure of the velocities the chain just scaled (the temperature
  // the barostat's MTK term sees stays the chain's scaled one, as LAMMPS).
  measure(atoms, cell);
  pressure_targets(step);
  barostat_half_step(cell.box());
  scale_velocities(atoms);
  atoms.half_kick(0.5 * dt_ * units_.ftm2v);
  remap(atoms, cell);
  atoms.drift(dt_);
  remap(atoms, cell);
}

void NoseHooverMtk::final(AtomOps& atoms, CellControl& cell) {
  atoms.half_kick(0.5 * dt_ * units_.ftm2v);
  scale_velocities(atoms);
  t_current_ = measure(atoms, cell);
  barostat_half_step(cell.box());
  if (thermostat_) chain_half_step(atoms);
  if (!etap_.empty()) barostat_chain_half_step();
}

namespace {

// One half step (dt/2) of a Nose-Hoover chain in LAMMPS's order (its
// nhc_temp_integrate and nhc_press_integrate are this with different first
// forces): positions x, velocities v (one more than x, the top one zero),
// forces a, masses q. force0() is the first element's force from what the
// chain thermostats; scale(f) applies that element's factor to it.
template <class Force0, class Scale>
void nhc_half_step(std::vector<double>& x, std::vector<double>& v, std::vector<double>& a,
                     const std::vector<double>& q, double kt, double drag, double dt, Force0 force0, Scale scale) {
  const int m = static_cast<int>(x.size());
  const double dthalf = 0.5 * dt, dt4 = 0.25 * dt, dt8 = 0.125 * dt;
  a[0] = force0();
  double expfac;
  for (int k = m - 1; k > 0; --k) {
    expfac = std::exp(-dt8 * v[k + 1]);
    v[k] *= expfac;
    v[k] += a[k] * dt4;
    v[k] *= drag;
    v[k] *= expfac;
  }
  expfac = std::exp(-dt8 * v[1]);
  v[0] *= expfac;
  v[0] += a[0] * dt4;
  v[0] *= drag;
  v[0] *= expfac;
  for (int k = 0; k < m; ++k) x[k] += dthalf * v[k];
  scale(std::exp(-dthalf * v[0]));
  a[0] = force0();
  v[0] *= expfac;
  v[0] += a[0] * dt4;
  v[0] *= expfac;
  for (int k = 1; k < m; ++k) {
    expfac = std::exp(-dt8 * v[k + 1]);
    v[k] *= expfac;
    a[k] = (q[k - 1] * v[k - 1] * v[k - 1] - kt) / q[k];
    v[k] += a[k] * dt4;
    v[k] *= expfac;
  }
}

}  // namespace

void NoseHooverMtk::chain_half_step(AtomOps& atoms) {
  const double kt = units_.boltz * t_target_;
  eta_mass_[0] = tdof_ * kt / (t_freq_ * t_freq_);
  for (std::size_t k = 1; k < eta_.size(); ++k) eta_mass_[k] = kt / (t_freq_ * t_freq_);
  nhc_half_step(
      eta_, eta_dot_, eta_dotdot_, eta_mass_, kt, tdrag_, dt_,
      [&] { return eta_mass_[0] > 0.0 ? (tdof_ * units_.boltz * t_current_ - ke_target_) / eta_mass_[0] : 0.0; },
      [&](double f) {
        atoms.scale_velocities(f);
        t_current_ *= f * f;
      });
}

void NoseHooverMtk::barostat_chain_half_step() {
  const double kt = units_.boltz * t_target_;
  // LAMMPS counts one degree of freedom for iso here (three in energy()).
  const double lkt_press = aniso_ ? 3 * kt : kt;
  nhc_half_step(
      etap_, etap_dot_, etap_dotdot_, etap_mass_, kt, pdrag_, dt_,
      [&] {
        double ke = 0.0;
        for (int i = 0; i < 3; ++i) ke += omega_mass_[i] * omega_dot_[i] * omega_dot_[i];
        return (ke - lkt_press) / etap_mass_[0];
      },
      [&](double f) {
        for (double& w : omega_dot_) w *= f;
      });
}

void NoseHooverMtk::barostat_half_step(const Box& box) {
  const double volume = box.volume();
  const double n = static_cast<double>(pdim_ * natoms_);
  mtk_term1_ = 0.0;
  if (spec_.mtk) mtk_term1_ = (aniso_ ? mvv_[0] + mvv_[1] + mvv_[2] : tdof_ * units_.boltz * t_current_) / n;
  for (int i = 0; i < 3; ++i) {
    const double f = (p_current_[i] - p_hydro_) * volume / (omega_mass_[i] * units_.nktv2p) + mtk_term1_ / omega_mass_[i];
    omega_dot_[i] += f * dthalf_;
    omega_dot_[i] *= pdrag_;
  }
  mtk_term2_ = 0.0;
  if (spec_.mtk) mtk_term2_ = (omega_dot_[0] + omega_dot_[1] + omega_dot_[2]) / n;
}

void NoseHooverMtk::scale_velocities(AtomOps& atoms) {
  double f[3];
  for (int i = 0; i < 3; ++i) f[i] = std::exp(-dt4_ * (omega_dot_[i] + mtk_term2_));
  atoms.scale_velocities_twice(f);
}

// Half a step of box motion: each side scaled by exp(omega_dot dt/2) about
// the box's centre, the atoms keeping their fractional places.
void NoseHooverMtk::remap(AtomOps& atoms, CellControl& cell) {
  const Box from = cell.box();
  Box to = from;
  for (int i = 0; i < 3; ++i) {
    omega_[i] += dthalf_ * omega_dot_[i];
    const double expfac = std::exp(dthalf_ * omega_dot_[i]);
    const double centre = 0.5 * (from.lo[i] + from.hi[i]);
    to.lo[i] = (from.lo[i] - centre) * expfac + centre;
    to.hi[i] = (from.hi[i] - centre) * expfac + centre;
  }
  atoms.remap(from, to);
  cell.move_box(to);
  volume_ = to.volume();
}

double NoseHooverMtk::energy() const {
  const double kt = units_.boltz * t_target_;
  double e = 0.0;
  if (thermostat_) {
    e += ke_target_ * eta_[0] + 0.5 * eta_mass_[0] * eta_dot_[0] * eta_dot_[0];
    for (std::size_t k = 1; k < eta_.size(); ++k) e += kt * eta_[k] + 0.5 * eta_mass_[k] * eta_dot_[k] * eta_dot_[k];
  }
  double lkt_press = 0.0;
  for (int i = 0; i < 3; ++i) {
    e += 0.5 * omega_dot_[i] * omega_dot_[i] * omega_mass_[i] + p_hydro_ * (volume_ - vol0_) / (pdim_ * units_.nktv2p);
    lkt_press += kt;
  }
  if (!etap_.empty()) {
    e += lkt_press * etap_[0] + 0.5 * etap_mass_[0] * etap_dot_[0] * etap_dot_[0];
    for (std::size_t k = 1; k < etap_.size(); ++k)
      e += kt * etap_[k] + 0.5 * etap_mass_[k] * etap_dot_[k] * etap_dot_[k];
  }
  return e;
}

// state()'s layout, written and read by the same walk.
template <class Self, class F>
void NoseHooverMtk::walk_state(Self& s, F&& f) {
  for (auto* v : {&s.eta_, &s.eta_dot_, &s.eta_dotdot_, &s.eta_mass_, &s.etap_, &s.etap_dot_, &s.etap_dotdot_,
                  &s.etap_mass_})
    for (auto& x : *v) f(x);
  for (auto* a : {s.omega_, s.omega_dot_, s.omega_mass_, s.p_target_, s.p_current_, s.mvv_})
    for (int i = 0; i < 3; ++i) f(a[i]);
  for (auto* x : {&s.mtk_term1_, &s.mtk_term2_, &s.vol0_, &s.t0_, &s.t_target_, &s.ke_target_, &s.p_hydro_,
                  &s.t_current_, &s.volume_})
    f(*x);
}

std::vector<double> NoseHooverMtk::state() const {
  std::vector<double> out;
  walk_state(*this, [&](const double& x) { out.push_back(x); });
  return out;
}

void NoseHooverMtk::restore(const std::vector<double>& s) {
  std::size_t n = 0;
  walk_state(*this, [&](double&) { ++n; });
  if (s.size() != n)
    throw InputError(fmt::format("the checkpoint's barostat state has {} values, this deck's npt/nph needs {} (a "
                                 "different chain length?)",
                                 s.size(), n));
  std::size_t k = 0;
  walk_state(*this, [&](double& x) { x = s[k++]; });
  ready_ = true;
}

}  // namespace tessera
