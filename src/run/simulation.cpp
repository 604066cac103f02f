#include "run/simulation.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <cmath>

#include "core/error.hpp"
#include "deck/pair_table.hpp"
#include "system/build_system.hpp"

namespace tessera {

Simulation::Simulation(const Deck& deck) : deck_(deck), integrator_(deck.integrator, 0) {
  if (deck_.threads > 0) omp_set_num_threads(deck_.threads);
  BuiltSystem sys = build_system(deck_);
  box_ = sys.box;
  sub_ = SubDomain::whole(box_);
  atoms_ = std::move(sys.atoms);
  natoms_ = sys.natoms_total;
  const auto table = resolve_pair_table(deck_.potential, atoms_.ntypes);
  pair_ = find_pair_style(deck_.potential.style)->make(atoms_.ntypes, table, deck_.potential.shift);
  reach_ = pair_->max_cutoff() + deck_.neighbor.skin;
  integrator_ = Integrator(deck_.integrator, natoms_);
}

void Simulation::rebuild() {
  timers_.next(Phase::kCommunicate);
  PeriodicGhosts::wrap(atoms_, box_);
  if (deck_.neighbor.sort) {
    timers_.next(Phase::kNeighbor);
    sort_atoms_spatially(atoms_, sub_, 0.5 * reach_);
  }
  timers_.next(Phase::kCommunicate);
  ghosts_.build(atoms_, sub_, reach_);
  timers_.next(Phase::kNeighbor);
  builder_.build(atoms_, sub_, reach_, nlist_);
  last_build_ = step_;
}

void Simulation::compute_forces() { pair_->compute(atoms_, nlist_); }

void Simulation::setup() {
  timers_.start(Phase::kOther);
  rebuild();
  timers_.next(Phase::kPair);
  compute_forces();
  timers_.next(Phase::kIntegrate);
  integrator_.post_force(atoms_, step_);
  timers_.stop();
  ready_ = true;
}

// LAMMPS's neigh_modify every/delay/check semantics: consider a rebuild
// every `every` steps once `delay` steps have passed since the last one; with
// `check`, rebuild only if some atom moved more than half the skin.
bool Simulation::rebuild_due() {
  const NeighborSpec& n = deck_.neighbor;
  const long ago = step_ - last_build_;
  if (ago < n.delay || ago % n.every != 0) return false;
  if (!n.check) return true;
  const double half = 0.5 * n.skin;
  return max_displacement_sq(atoms_, nlist_) > half * half;
}

// Stops the run before a bad state spreads: a non-finite position, or an
// atom that moved farther than the skin in one step (its neighbours may be
// missing from the list, so the forces would be silently wrong).
void Simulation::check_motion() const {
  const double dt = deck_.integrator.dt;
  const double limit = deck_.neighbor.skin > 0 ? deck_.neighbor.skin : 0.5 * pair_->max_cutoff();
  const double limit_sq = limit * limit / (dt * dt);
  const AtomStore& a = atoms_;
  const long n = static_cast<long>(a.nlocal);
  long bad = n;
#pragma omp parallel for schedule(static) reduction(min : bad)
  for (long i = 0; i < n; ++i) {
    const double v2 = a.vx[i] * a.vx[i] + a.vy[i] * a.vy[i] + a.vz[i] * a.vz[i];
    const bool finite = std::isfinite(a.x[i]) && std::isfinite(a.y[i]) && std::isfinite(a.z[i]) && std::isfinite(v2);
    if (!finite || v2 > limit_sq) bad = std::min(bad, i);
  }
  if (bad == n) return;
  const long i = bad;
  const double moved = dt * std::sqrt(a.vx[i] * a.vx[i] + a.vy[i] * a.vy[i] + a.vz[i] * a.vz[i]);
  const std::string what = std::isfinite(moved) && std::isfinite(a.x[i] + a.y[i] + a.z[i])
                               ? fmt::format("moved {:.6g} in one step, farther than {} {}", moved,
                                             deck_.neighbor.skin > 0 ? "the neighbor skin" : "half the cutoff", limit)
                               : std::string("has a non-finite position or velocity (NaN or inf)");
  throw SimulationError(
      fmt::format("step {}: atom {} at ({:.10g}, {:.10g}, {:.10g}) {}; the run is stopped "
                  "(time step too large, atoms overlapping, or bad potential parameters)",
                  step_, a.id[i], a.x[i], a.y[i], a.z[i], what));
}

void Simulation::run(long n, ThermoWriter* out, StepHook* hook) {
  if (!ready_) setup();
  const long every = deck_.thermo.every;
  timers_.start(Phase::kOutput);
  if (out && !thermo_started_) out->write(thermo());
  thermo_started_ = true;
  const auto t0 = PhaseTimers::Clock::now();
  const long first = step_;
  const long last = step_ + n;
  // The summary of a run stopped by an error still counts the steps it made.
  struct Account {
    Simulation& s;
    long first;
    PhaseTimers::Clock::time_point t0;
    ~Account() {
      s.timers_.stop();
      s.loop_seconds_ += std::chrono::duration<double>(PhaseTimers::Clock::now() - t0).count();
      s.steps_run_ += s.step_ - first;
    }
  } account{*this, first, t0};
  while (step_ < last) {
    ++step_;
    timers_.next(Phase::kIntegrate);
    integrator_.initial(atoms_);
    timers_.next(Phase::kNeighbor);
    check_motion();
    if (rebuild_due()) {
      rebuild();
    } else {
      timers_.next(Phase::kCommunicate);
      ghosts_.update_positions(atoms_, box_);
    }
    timers_.next(Phase::kPair);
    compute_forces();
    timers_.next(Phase::kIntegrate);
    integrator_.post_force(atoms_, step_);
    integrator_.final(atoms_);
    timers_.next(Phase::kOutput);
    if (out && ((every > 0 && step_ % every == 0) || step_ == last)) out->write(thermo());
    if (hook && !hook->after_step(*this, step_ == last)) break;
  }
}

ThermoValues Simulation::thermo() const {
  return thermo_values(step_, sum_thermo(atoms_), natoms_, box_.volume(), integrator_.thermostat_energy());
}

}  // namespace tessera
