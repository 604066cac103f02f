#pragma once
// The step loop on the device, one rank: Simulation::run's step (verlet_step),
// rebuild rule and blow-up guard (src/integrate/step_sequence.hpp,
// motion_guard.hpp) over a DeviceForcePipeline, with the Integrator driving
// the device atoms through DeviceAtomOps. Only scalars cross to the host:
// the reductions, and one atom when the guard stops the run.
#include "core/error.hpp"
#include "device/device_atom_ops.hpp"
#include "device/force_pipeline.hpp"
#include "integrate/integrator.hpp"
#include "integrate/motion_guard.hpp"
#include "integrate/step_sequence.hpp"
#include "thermo/thermo.hpp"

namespace tessera::device {
inline namespace TESSERA_DEVICE_SYSTEM_NS {

// What the loop takes from the deck and the system.
struct StepperConfig {
  NeighborSpec neighbor;  // every, delay, check, skin
  MotionLimit limit;
  long thermo_every = 0;
  long long natoms = 0;
  double volume = 0;
};

inline StepperConfig stepper_config(const Deck& deck, double max_cutoff, long long natoms, double volume) {
  return {deck.neighbor, motion_limit(deck.neighbor.skin, max_cutoff, deck.integrator.dt), deck.thermo.every, natoms,
          volume};
}

template <class Pot>
class DeviceStepper {
 public:
  // `pipe` holds the atoms (uploaded), `integrator` the thermostat state;
  // both outlive the stepper. `step`: the step the atoms are at.
  DeviceStepper(DeviceForcePipeline<Pot>& pipe, Integrator& integrator, const StepperConfig& config, long step = 0)
      : pipe_(pipe), integrator_(integrator), config_(config), ops_(pipe.atoms(), pipe.stream()), step_(step) {}

  // Simulation::setup: list, forces and Langevin forces for the current step.
  void setup() {
    rebuild();
    pipe_.compute_forces();
    integrator_.post_force(ops_, step_);
    ready_ = true;
  }

  // Advances n steps. after_step(*this, thermo_step) follows every step, with
  // thermo_step true where Simulation::run writes thermo; returning false
  // stops the run after that step. Throws SimulationError from the guard.
  template <class AfterStep>
  void run(long n, AfterStep&& after_step) {
    if (!ready_) setup();
    const long last = step_ + n;
    Loop loop{*this};
    while (step_ < last) {
      ++step_;
      verlet_step(loop);
      if (!after_step(*this, thermo_due(step_, config_.thermo_every, last))) break;
    }
  }

  void run(long n) {
    run(n, [](const DeviceStepper&, bool) { return true; });
  }

  ThermoValues thermo() const {
    const DeviceSums d = pipe_.sums();
    return thermo_values(step_, ThermoSums{d.mv2, d.pe, d.virial}, config_.natoms, config_.volume,
                         integrator_.thermostat_energy());
  }

  long step() const { return step_; }
  long last_build() const { return last_build_; }
  const DeviceForcePipeline<Pot>& pipeline() const { return pipe_; }

 private:
  struct Loop;

  void rebuild() {
    pipe_.rebuild();
    last_build_ = step_;
  }

  void check_motion() const {
    const DeviceAtoms& a = pipe_.atoms();
    const int bad = first_bad_atom(pipe_.stream(), a, config_.limit.speed_sq);
    if (bad == a.nlocal) return;
    // One atom's values to the host, for the message.
    throw SimulationError(bad_motion_message(step_, "", a.id[bad], a.x[bad], a.y[bad], a.z[bad], a.vx[bad], a.vy[bad],
                                             a.vz[bad], config_.limit));
  }

  DeviceForcePipeline<Pot>& pipe_;
  Integrator& integrator_;
  StepperConfig config_;
  DeviceAtomOps ops_;
  long step_ = 0;
  long last_build_ = 0;
  bool ready_ = false;
};

// verlet_step's view of the device loop.
template <class Pot>
struct DeviceStepper<Pot>::Loop {
  DeviceStepper& s;
  void initial() { s.integrator_.initial(s.ops_); }
  void check_motion() const { s.check_motion(); }
  bool rebuild_due() {
    return tessera::rebuild_due(s.config_.neighbor, s.step_ - s.last_build_,
                                [&] { return s.pipe_.max_displacement_sq(); });
  }
  void rebuild() { s.rebuild(); }
  void refresh_ghosts() { s.pipe_.refresh_ghosts(); }
  void compute_forces() { s.pipe_.compute_forces(); }
  void post_force() { s.integrator_.post_force(s.ops_, s.step_); }
  void final() { s.integrator_.final(s.ops_); }
};

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
