#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "atoms/atom_store.hpp"
#include "comm/communicator.hpp"
#include "comm/halo_exchange.hpp"
#include "comm/halo_transport_setup.hpp"
#include "core/units.hpp"
#include "deck/deck.hpp"
#include "domain/box.hpp"
#include "domain/rank_grid.hpp"
#include "integrate/integrator.hpp"
#include "io/checkpoint.hpp"
#include "neighbor/neighbor_list.hpp"
#include "forces/force_list.hpp"
#include "potentials/pair_style.hpp"
#include "run/atom_backend.hpp"
#include "run/device_engine.hpp"
#include "run/timers.hpp"
#include "system/build_system.hpp"
#include "thermo/thermo.hpp"

namespace tessera {

class Simulation;

// Called by Simulation::run after every step (outputs other than thermo).
class StepHook {
 public:
  virtual ~StepHook() = default;
  // `last`: the final step of this run() call. Returns false to stop the
  // run after this step.
  virtual bool after_step(const Simulation& sim, bool last) = 0;
  // Whether after_step(step) reads energies or virials (thermo(), an H5MD
  // frame's observables), asked before the step's forces: on the steps no
  // one asks for, the CPU's pair kernels skip them. Simulation::thermo()
  // throws if a hook reads them on a step it said it would not.
  virtual bool reads_energy(long step, bool last) const {
    (void)step, (void)last;
    return true;
  }
};

// One simulation on one rank: the state and the step loop. Everything the
// deck asks for is checked in the constructor, before any output exists.
class Simulation {
 public:
  // Several ranks (comm.size() > 1): this rank's share of the system, on a
  // rank grid from the deck's `decomposition` or chosen for the least halo.
  explicit Simulation(const Deck& deck, const Communicator& comm = Communicator::world());
  // Not copied or moved: its backend and a device engine hold references
  // to it and its members.
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  // Moves the atoms to a device backend for the rest of the run: called
  // before setup() or restore(). From then on the atoms live on the device
  // (run/device_backend.hpp); atoms(), neighbor_list() and capture_state()
  // copy them back when asked (outputs ask at their steps only).
  void use_device(std::unique_ptr<DeviceEngine> engine);
  bool on_device() const { return device_ != nullptr; }
  // The most bytes held in device arrays so far (0 on the CPU backend).
  long long device_bytes_peak() const { return device_ ? device_->device_bytes_peak() : 0; }
  // The device's own seconds per phase (run/timers.hpp), empty on the CPU.
  std::vector<double> device_phase_seconds() const;
  // Halo refresh seconds on the device, and those hidden behind forces.
  DeviceEngine::HaloOverlap halo_overlap() const;
  // Several ranks on a device: where rebuilds ran and how many atom records
  // crossed between device and host for them, on this rank.
  using RebuildTraffic = tessera::RebuildTraffic;
  RebuildTraffic rebuild_traffic() const { return backend_->traffic(); }
  // The halo's traffic each step since the last build on this rank.
  using HaloTraffic = HaloTransportSetup::Traffic;
  HaloTraffic halo_traffic() const { return transport_.traffic(halo_.swaps()); }
  // "cpu (4 OpenMP threads), double precision, avx2 pair kernel", or the
  // device engine's description.
  std::string backend_description() const;
  // How the CPU backend's thread count was chosen when nothing set one
  // (default_thread_count), for the run header; "" when the deck,
  // --threads or OMP_NUM_THREADS set it.
  const std::string& thread_choice() const { return thread_choice_; }
  // Several ranks on devices: what carries the halo, why, and what the
  // start-up self-test found ("" otherwise, or before the first build).
  std::string halo_transport_report() const { return transport_.report(); }
  const TransportChoice& halo_transport() const { return transport_.transport(); }
  // "CUDA-aware MPI", "peer copies (CUDA IPC)", or peer copies for some
  // swaps and the transport for the rest.
  std::string describe_transport() const { return transport_.describe(halo_.swaps()); }
  // Every rank unmaps the buffers its peer copies read, then all meet, so
  // none frees a buffer another still maps (undefined with CUDA IPC). Call
  // on every rank at the end of a run that finished; the summary's counts
  // stay as they were.
  void close_peer_copies();

  // Halo, neighbour list and forces for the current positions.
  void setup();
  // Advances n steps, writing thermo to `out` (may be null) at the deck's
  // interval and after the last step; `hook` may stop it early.
  void run(long n, ThermoWriter* out, StepHook* hook = nullptr);

  // Collective. Throws std::logic_error when this step's forces were
  // computed without energies (a StepHook that reads them on a step its
  // reads_energy() left out).
  ThermoValues thermo() const;
  // From the next force computation on, the forces also give the per-atom
  // virial tensor (a third more pair arithmetic), for pressure_tensor():
  // what a thermo column of the tensor or an anisotropic barostat turns on.
  void set_virial_tensor(bool on);
  // The pressure tensor of the current step, as LAMMPS's compute pressure
  // gives it. Collective. Throws std::logic_error when this step's forces
  // were computed without the virial tensor.
  PressureTensor pressure_tensor() const;
  const AtomStore& atoms() const {
    pull_atoms();
    return atoms_;
  }
  // For edits (tests). With a device engine, edits reach the device only
  // when made before setup() or restore(), which upload the atoms. The
  // thermostat then sums the kinetic energy afresh at the next step.
  AtomStore& atoms() {
    pull_atoms();
    integrator_.velocities_changed();
    return atoms_;
  }
  const Box& box() const { return box_; }
  const Deck& deck() const { return deck_; }
  const Units& units() const { return units_; }
  const Integrator& integrator() const { return integrator_; }
  // The deck's potential, the first force of the list: a pair style or a
  // many-body potential; pair() only when it is a pair style.
  const Force& potential() const { return *potential_; }
  const PairStyle& pair() const { return *pair_; }
  // Every force the step computes, in order (forces/force_list.hpp).
  const ForceList& forces() const { return forces_; }
  const NeighborList& neighbor_list() const {
    pull_list();
    return nlist_;
  }
  // false from the start of a rebuild until its list is built: a run that
  // stopped in between (an atom check failed) has no list for its atoms,
  // and neighbor_list() must not be read.
  bool list_current() const { return list_current_; }
  // For tests: the most atoms (locals and ghosts) a rank may hold when its
  // rows hold record offsets (default kRecordOffsetAtoms).
  void set_record_offset_atoms_for_test(long atoms) { record_offset_atoms_ = atoms; }
  long list_builds() const { return device_ ? device_->builds() : nlist_.builds; }
  long step() const { return step_; }
  long long natoms() const { return natoms_; }
  const Communicator& comm() const { return comm_; }
  const RankGrid& rank_grid() const { return grid_; }
  const SubDomain& sub_domain() const { return sub_; }
  const PhaseTimers& timers() const { return timers_; }
  double loop_seconds() const { return loop_seconds_; }
  long steps_run() const { return steps_run_; }
  double reach() const { return reach_; }
  // How far the ghosts reach: reach(), or neighbor.ghost_cutoff when longer.
  double ghost_reach() const { return ghost_reach_; }
  // The bond and angle types' coefficients by type (index 0 unused; empty
  // in a run without bonds, angles), as the deck and the data file gave
  // them, for the outputs that write them (output.data).
  const std::vector<BondedCoeffs>& bond_coeffs() const { return bond_coeffs_; }
  const std::vector<BondedCoeffs>& angle_coeffs() const { return angle_coeffs_; }

  // The box changes (a barostat, a deformation): every copy of it follows
  // (this rank's sub-box, the halo's shifts on the host and the device, the
  // device's sub-box), the sub-boxes are checked to stay at least cutoff +
  // skin thick (SimulationError naming the step otherwise, on every rank),
  // and the next step rebuilds the list. Atoms are not moved: the caller
  // remaps them. Collective with several ranks.
  void set_box(const Box& box);

  // Recomputes forces for the current positions (tests, after editing
  // atoms); !energy: forces only, thermo() refused until the next forces.
  void compute_forces(bool energy = true);
  // Neighbour-list builds so far (on either backend, without a copy).
  long neighbor_builds() const { return device_ ? device_->builds() : nlist_.builds; }

  double time() const { return static_cast<double>(step_) * deck_.integrator.dt; }
  // Everything needed to continue this run bitwise exactly: the header
  // fields and this rank's own atoms, in id order (all of them on one rank).
  // With several ranks write_checkpoint_collective puts the parts together.
  CheckpointState capture_state() const;
  // Continues from a checkpoint instead of setup(). Collective: `s` is read
  // on rank 0 only. Throws InputError (on every rank) naming `source` when
  // the checkpoint does not fit the deck (atom count, ids, types, masses,
  // box). On the rank grid that wrote it the continuation is bitwise
  // identical: atoms go back to their ranks and storage slots and the
  // neighbour list is rebuilt from the positions of its last build, so every
  // sum runs in the same order. On another grid atoms go to the rank whose
  // sub-box holds them and the list is rebuilt from the current positions.
  void restore(const CheckpointState& s, const std::string& source);

 private:
  void rebuild();
  void add_bonded_forces(const BuiltSystem& sys);
  void check_forces() const;
  void warn(long step, const std::string& what) const;
  // The CPU backend's OpenMP thread count (thread_choice()).
  void choose_threads();
  std::string ghost_what() const;
  // The ghosts of the current locals: the halo's (several ranks) or the
  // periodic images.
  void build_ghosts();
  // The list of the current locals and ghosts, where the atoms live.
  void build_list();
  // Stops the run on every rank, the rank that holds too many saying so,
  // when a rank's atoms outgrow rows of record offsets.
  void check_record_offsets() const;
  // Moves the rank grid's cut planes when the ranks' work differs (deck
  // load_balance), just before a list rebuild migrates the atoms.
  void maybe_balance();
  void update_ghosts() { backend_->refresh_ghosts(); }
  // Several ranks on devices, once, right after the first list build
  // (HaloTransportSetup::self_test).
  void check_halo_transport();
  // restore() in steps. refuse_misfit and scatter_checkpoint are collective
  // and throw InputError naming `source` on every rank when the checkpoint
  // does not fit the deck.
  void refuse_misfit(const CheckpointState& given, const std::string& source);
  void restore_rank_cuts(const CheckpointState& s);
  // Rank 0 splits `given`'s atoms among the ranks (by their stored rank
  // with `same_layout`, else by position); this rank's share lands in `s`.
  void scatter_checkpoint(const CheckpointState& given, bool same_layout, const std::string& source,
                          CheckpointState& s);
  // setup() and restore(): the host's atoms to the backend, a list for
  // them (the checkpoint's, `as_checkpointed`, when not null), and forces.
  void build_and_compute_forces(const CheckpointState* as_checkpointed);
  void rebuild_as_checkpointed(const CheckpointState& s);
  void restore_forces(const CheckpointState& s);
  // Why `s` cannot continue this deck's run ("" if it can), given every
  // rank's (id, type) sorted by id.
  std::string misfit(const CheckpointState& s, const std::vector<std::pair<std::int64_t, std::int64_t>>& deck_atoms);
  struct Stepping;  // verlet_step's view of this simulation
  class Cell;       // the barostat's view (CellControl)
  // set_box's copies of the box, with no rebuild scheduled (the barostat's
  // small steps: rebuild_due counts how far the box moved).
  void move_box(const Box& box);
  // After restore(): the checkpoint's box and barostat (true when restored);
  // the integrator's setup when a barostat has no state to continue.
  bool restore_barostat(const CheckpointState& s, const std::string& source);
  // Whether `s`'s thermostat chain is this deck's to continue.
  bool continues_chain(const CheckpointState& s) const;
  void setup_integrator();
  bool rebuild_due();
  void check_motion() const;
  // On a device the guard runs every step but is read only where its answer
  // is needed (check_motion says where): settle_motion() reads what the
  // guards and the forces' checks (check_forces) queued since the last read,
  // prints the forces' warnings, and stops the run, on every rank, if one
  // found an atom or a failure. Collective: every read of the device's state
  // (thermo, outputs, checkpoints, a rebuild) settles it first, and those
  // are made by every rank at the same step.
  void settle_motion() const;
  mutable bool motion_unread_ = false;
  mutable long first_unread_step_ = 0;
  static constexpr long kMaxUnreadSteps = 100;
  // The displacement check's value, fused into the guard's reduction on a
  // device (check_motion), for rebuild_due in the same step.
  mutable double fused_displacement_sq_ = 0;
  mutable long fused_displacement_step_ = -1;
  // The guard's first look as this step's drift took it on the CPU
  // (CpuAtomOps::DriftGuard), for check_motion; step -1: none.
  double drift_failed_ = 0;
  long drift_guard_step_ = -1;
  // The CPU's second half kick of step_, owed to the next step's first
  // (same forces, same dtf: one pass over f and v instead of two) on the
  // steps whose end nothing reads: no thermo, not the run's last, plain
  // velocity Verlet (Integrator::final_is_half_kick). Any read of the atoms
  // between the steps (atoms(), thermo(), pressure_tensor(), a hook's
  // output or checkpoint) pays it first: settle_kick(). 1.7 % of a 2-thread
  // in.lj 256k run's samples were the second kick's pass (2026-11-30).
  void settle_kick() const;
  mutable bool kick_owed_ = false;
  // Stops the run when this step changed the volume from `before` by more
  // than integrator.max_volume_change allows.
  void check_volume_change(double before) const;
  void verify_atoms() const;
  // HaloExchange::migrate, its errors naming the step.
  void migrate(HaloAtoms& atoms);
  // This rank's local atoms, wherever they are (host or device).
  std::size_t local_count() const { return backend_->nlocal(); }
  // Device copies to the host, when the host's copy is out of date.
  void pull_atoms() const {
    settle_motion();
    settle_kick();
    backend_->pull_atoms();
  }
  void pull_list() const { backend_->pull_list(); }
  // After device work: the host copies are out of date.
  void device_changed(bool list) { backend_->changed(list); }

  Deck deck_;
  std::string thread_choice_;
  const Units& units_;  // the deck's, before everything that converts
  const Communicator& comm_;
  RankGrid grid_;
  std::array<int, 3> cell_{0, 0, 0};  // this rank's place in the grid
  HaloExchange halo_;
  std::uint64_t id_sum_ = 0, id_hash_ = 0;  // of all atoms, checked at every rebuild
  Box box_;
  SubDomain sub_;
  // With a device engine these are host copies, refreshed on demand.
  mutable AtomStore atoms_;
  ForceList forces_;
  const PairStyle* pair_ = nullptr;   // owned by forces_
  const Force* potential_ = nullptr;  // owned by forces_
  Integrator integrator_;
  mutable NeighborList nlist_;
  std::unique_ptr<DeviceEngine> device_;
  // Where the atoms live: the host's atoms_ or device_'s (atom_backend.hpp).
  std::unique_ptr<AtomBackend> backend_;
  HaloTransportSetup transport_;  // several ranks on devices
  bool list_current_ = true;
  PhaseTimers timers_;
  long long natoms_ = 0;
  double reach_ = 0;
  double ghost_reach_ = 0;
  long step_ = 0;
  long last_build_ = 0;
  bool half_list_ = false;  // the CPU builds half lists (deck neighbor.list)
  bool cpu_clusters_ = false;  // the CPU builds the cluster layout (deck neighbor.layout)
  bool cpu_mixed_ = false;     // the CPU's pair styles compute in float (deck precision)
  bool record_offsets_ = false;  // the CPU's rows hold record offsets (NeighborList::entry_shift)
  long record_offset_atoms_ = kRecordOffsetAtoms;
  bool box_changed_ = false;  // set_box since the last build: rebuild next
  Box box_at_build_;          // the box the list was built in
  double total_mass_ = 0;     // of every atom (thermo's density)
  std::vector<BondedCoeffs> bond_coeffs_, angle_coeffs_;
  bool virial_tensor_ = false;
  long tensor_step_ = -1;  // the step whose forces wrote the virial tensor
  // Whether the last forces gave energies and virials (the run loop asks
  // for them only on steps that read them: thermo, barostat, hooks).
  bool energy_current_ = true;
  void check_energy_current(const char* reader) const;
  long steps_run_ = 0;
  double loop_seconds_ = 0;
  bool ready_ = false;
  bool thermo_started_ = false;
  // Load balancing: where the last interval started, and what was measured.
  long last_balance_ = 0;
  double balance_mark_ = 0;
  int balance_moves_ = 0;
  int balance_checks_ = 0;
  double first_imbalance_ = 1, last_imbalance_ = 1;

 public:
  // Load balancing so far: planes moved, intervals measured, and the
  // imbalance (max / mean cost) of the first and the latest interval.
  int balance_moves() const { return balance_moves_; }
  int balance_checks() const { return balance_checks_; }
  double first_imbalance() const { return first_imbalance_; }
  double last_imbalance() const { return last_imbalance_; }
};

}  // namespace tessera
