#include "run/simulation.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "analysis/analysis.hpp"
#include "backend/cpu_simd.hpp"
#include "backend/thread_placement.hpp"
#include "bonded/bonded_registry.hpp"
#include "core/error.hpp"
#include "core/id_sums.hpp"
#include "deck/pair_table.hpp"
#include "deck/yaml_section.hpp"
#include "domain/load_balance.hpp"
#include "integrate/cpu_atom_ops.hpp"
#include "io/checksum.hpp"
#include "integrate/motion_guard.hpp"
#include "integrate/step_sequence.hpp"
#include "manybody/manybody_styles.hpp"
#include "run/device_backend.hpp"
#include "run/host_backend.hpp"
#include "system/build_system.hpp"

namespace tessera {

namespace {

// The device engine as the halo transport's choice and self-test use it.
class EngineHaloDevice final : public HaloDevice {
 public:
  EngineHaloDevice(DeviceEngine& engine, const SubDomain& sub, const HaloExchange& halo)
      : engine_(engine), sub_(sub), halo_(halo) {}
  void set_halo_transport(HaloTransport t) override { engine_.set_halo_transport(t); }
  std::string peer_copy_kind() const override { return engine_.peer_copy_kind(); }
  void set_peer_swaps(const std::vector<bool>& peer) override { engine_.set_peer_swaps(peer); }
  void refresh_halo(const SwapExchange& exchange) override { engine_.refresh_halo(exchange); }
  void download(AtomStore& a) const override { engine_.download(a); }
  void upload(const AtomStore& a) override { engine_.upload(a); }
  void build_list() override { engine_.build_list(sub_, halo_.swaps()); }

 private:
  DeviceEngine& engine_;
  const SubDomain& sub_;
  const HaloExchange& halo_;
};

}  // namespace

void Simulation::choose_threads() {
  if (deck_.threads > 0) {
    omp_set_num_threads(deck_.threads);
    return;
  }
  // Collective: every rank asks, whatever its environment says.
  const std::vector<int> cpus = allowed_cpus();
  const int sharing = comm_.node_ranks_with(checksum64(cpus.data(), cpus.size() * sizeof(int)));
  if (std::getenv("OMP_NUM_THREADS")) return;
  const int n = default_thread_count(cpus.size(), sharing);
  omp_set_num_threads(n);
  thread_choice_ = sharing > 1 ? fmt::format("chosen: CPUs {} shared by {} ranks of this node", cpu_ranges(cpus), sharing)
                               : fmt::format("chosen: CPUs {}", cpu_ranges(cpus));
}

Simulation::Simulation(const Deck& deck, const Communicator& comm)
    : deck_(deck), units_(units_for(deck.units)), comm_(comm), integrator_(deck.integrator, units_, 0) {
  timers_.attach_wait_counter(&comm_.waited_seconds());
  choose_threads();
  BuiltSystem sys = build_system(deck_, units_);
  // Every rank built the same system: one voice for its notes.
  if (comm_.rank() == 0)
    for (const std::string& note : sys.notes) fmt::print("tessera: note: {}\n", note);
  box_ = sys.box;
  sub_ = SubDomain::whole(box_);
  atoms_ = std::move(sys.atoms);
  natoms_ = sys.natoms_total;
  // Every rank holds the whole system here: the same sum everywhere.
  for (std::size_t i = 0; i < atoms_.nlocal; ++i) total_mass_ += atoms_.mass_of_type[atoms_.type[i]];
  if (const ManyBodyStyleEntry* mb = find_manybody_style(deck_.potential.style)) {
    // Its intermediates exist from here on (atom_fields.hpp), the atoms
    // built so far included.
    enable_manybody_fields();
    atoms_.resize_local(atoms_.nlocal);
    auto f = mb->make(deck_.potential, atoms_.ntypes);
    potential_ = f.get();
    forces_.add(std::move(f));
  } else {
    const auto table = resolve_pair_table(deck_.potential, atoms_.ntypes);
    auto pair = find_pair_style(deck_.potential.style)->make(atoms_.ntypes, table, deck_.potential.shift);
    pair_ = pair.get();
    potential_ = pair_;
    forces_.add(std::move(pair));
  }
  reach_ = forces_.max_cutoff() + deck_.neighbor.skin;
  ghost_reach_ = std::max(reach_, deck_.neighbor.ghost_cutoff);
  add_bonded_forces(sys);
  check_analysis(deck_.analysis, forces_.max_cutoff(), box_, atoms_.ntypes);
  integrator_ = Integrator(deck_.integrator, units_, natoms_, &comm_);
  const IdSums all = id_sums(atoms_.id.data(), atoms_.nlocal);
  id_sum_ = all.sum;
  id_hash_ = all.hash;
  if (deck_.neighbor.list == "half" && !forces_.reads_half_list())
    throw_at(deck_.neighbor.list_at,
             fmt::format("half lists are not for the {} potential, whose passes read each atom's full list of "
                         "neighbours; use full",
                         deck_.potential.style));
  // Full by default: no kernel variant was measured faster on half lists
  // (benchmarks/NOTES.md, "Half lists").
  half_list_ = deck_.neighbor.list == "half";
  // The cluster layout when every force reads it (pair styles alone: a
  // molecule's excluded pairs and EAM's passes read rows); rows otherwise,
  // as the run header says.
  cpu_clusters_ = deck_.neighbor.layout == "clusters" && forces_.reads_clusters();
  // Mixed precision on the CPU: the pair styles' float kernels, on full
  // rows or clusters (half rows, EAM and bonded terms stay double).
  cpu_mixed_ = deck_.precision == "mixed" && (cpu_clusters_ || (!half_list_ && forces_.computes_mixed()));
  forces_.set_mixed(cpu_mixed_);
  // The pair styles' full rows read record offsets, EAM's atom indices
  // (the rdf converts whichever it finds).
  record_offsets_ = !cpu_clusters_ && !half_list_ && forces_.reads_record_offsets();
  backend_ = std::make_unique<HostBackend>(atoms_, nlist_, forces_, box_, comm_.parallel() ? &halo_ : nullptr,
                                           half_list_, cpu_clusters_, record_offsets_);
  // Every rank builds the whole system (identical everywhere: lattice or
  // file, velocities drawn per id) and keeps the atoms of its sub-box.
  if (comm_.parallel()) {
    if (deck_.decomposition[0] > 0) {
      grid_.n = deck_.decomposition;
      if (grid_.size() != comm_.size())
        throw_at(deck_.decomposition_at,
                 fmt::format("{} = {} ranks, but the run has {}", grid_.str(), grid_.size(), comm_.size()));
      for (int d = 0; d < 3; ++d)
        if (grid_.n[d] > 1 && box_.length(d) / grid_.n[d] < ghost_reach_)
          throw_at(deck_.decomposition_at,
                   fmt::format("{} ranks along {} make sub-boxes {:g} thick, thinner than {} = {:g}", grid_.n[d],
                               "xyz"[d], box_.length(d) / grid_.n[d], ghost_what(), ghost_reach_));
    } else {
      grid_ = choose_rank_grid(comm_.size(), box_, ghost_reach_);
    }
    cell_ = grid_.cell_of(comm_.rank());
    sub_ = tessera::sub_domain(box_, grid_, cell_);
    halo_ = HaloExchange(grid_, cell_, comm_);
    std::vector<std::size_t> mine;
    for (std::size_t i = 0; i < atoms_.nlocal; ++i) {
      bool in = true;
      const double p[3] = {atoms_.x[i], atoms_.y[i], atoms_.z[i]};
      for (int d = 0; d < 3; ++d) in = in && p[d] >= sub_.lo[d] && p[d] < sub_.hi[d];
      if (in) mine.push_back(i);
    }
    atoms_.permute_local(mine);  // keeps only `mine`, in order
    atoms_.resize_local(mine.size());
    verify_atoms();
  }
}

// What sets how far the ghosts reach, for messages.
std::string Simulation::ghost_what() const {
  return ghost_reach_ > reach_ ? "neighbor.ghost_cutoff" : "cutoff + skin";
}

// The bonds, the angles and the special-pair correction, after the pair
// style: they add to its forces.
void Simulation::add_bonded_forces(const BuiltSystem& sys) {
  bond_coeffs_ = sys.bond_coeffs;
  angle_coeffs_ = sys.angle_coeffs;
  if (sys.topology.empty()) return;
  auto shared = std::make_shared<const BondedAtoms>(ghost_reach_);
  if (deck_.bonds) forces_.add(find_bonded_style(bond_styles(), deck_.bonds->style)->make(sys.bond_coeffs, shared));
  if (deck_.angles)
    forces_.add(find_bonded_style(angle_styles(), deck_.angles->style)->make(sys.angle_coeffs, shared));
  const double* lj = deck_.special_bonds.lj;
  bool fractional = false;
  for (int k = 0; k < 3; ++k) fractional = fractional || (lj[k] > 0 && lj[k] < 1);
  if (fractional && !pair_)
    throw_at(deck_.special_bonds.at, fmt::format("fractional special_bonds factors scale a pair potential's pairs; "
                                                 "{} is not one",
                                                 deck_.potential.style));
  if (fractional) forces_.add(std::make_unique<SpecialPairCorrection>(*pair_, lj, shared));
}

// A force that found the run unable to go on (a broken bond) stops it on
// every rank; the rank that found it says why. What a force warns about
// (a clamped FENE bond) is printed by the rank that found it.
void Simulation::check_forces() const {
  if (!forces_.may_fail()) return;
  if (device_) {
    // The twins fold what they found on the device; settle_motion reads it
    // with the guard, so the step waits for nothing here.
    device_->queue_force_checks(step_);
    if (!motion_unread_) first_unread_step_ = step_;
    motion_unread_ = true;
    return;
  }
  for (const std::string& w : forces_.warnings()) warn(step_, w);
  const std::string why = forces_.failure();
  if (comm_.max(why.empty() ? 0 : 1) == 0) return;
  if (why.empty()) throw SimulationError("");
  throw SimulationError(
      fmt::format("step {}: {}{}", step_, comm_.parallel() ? fmt::format("rank {}: ", comm_.rank()) : "", why));
}

// A warning from this rank, at once: a run that then fails has said it.
void Simulation::warn(long step, const std::string& what) const {
  fmt::print(stderr, "tessera: warning: step {}: {}{}\n", step,
             comm_.parallel() ? fmt::format("rank {}: ", comm_.rank()) : "", what);
  std::fflush(stderr);
}

// The global atom count and id checksums, at every rebuild: atoms must never
// be lost or duplicated by migration.
void Simulation::verify_atoms() const {
  if (!comm_.parallel()) return;
  const IdSums mine = backend_->local_id_sums();
  const auto counts = comm_.allgather(static_cast<long long>(local_count()));
  long long total = 0;
  for (long long c : counts) total += c;
  const std::uint64_t sum = comm_.sum_u64(mine.sum);
  const std::uint64_t hash = comm_.sum_u64(mine.hash);
  if (total == natoms_ && sum == id_sum_ && hash == id_hash_) return;
  std::string per_rank;
  for (std::size_t r = 0; r < counts.size(); ++r) per_rank += fmt::format("{}rank {}: {}", r ? ", " : "", r, counts[r]);
  throw SimulationError(fmt::format(
      "step {}: rank {}: the ranks hold {} atoms ({}), expected {}{}; atoms were lost "
      "or duplicated in the exchange between ranks",
      step_, comm_.rank(), total, per_rank, natoms_, total == natoms_ ? ", and the id checksum differs" : ""));
}

void Simulation::use_device(std::unique_ptr<DeviceEngine> engine) {
  if (ready_) throw std::logic_error("use_device: call it before setup() or restore()");
  device_ = std::move(engine);
  if (!device_) return;
  timers_.on_start([this](Phase p) { device_->mark_phase(static_cast<int>(p)); });
  if (comm_.parallel() && !device_->rebuilds_on_device())
    backend_ = std::make_unique<HostRebuildBackend>(*device_, atoms_, nlist_, forces_, box_, halo_, comm_);
  else
    backend_ = std::make_unique<DeviceBackend>(*device_, atoms_, nlist_, comm_.parallel() ? &halo_ : nullptr, comm_);
  backend_->set_virial_tensor(virial_tensor_);
  if (comm_.parallel()) {
    EngineHaloDevice device(*device_, sub_, halo_);
    transport_.choose(deck_.cuda_aware_mpi, mpi_cuda_support(), device);
  }
}

std::vector<double> Simulation::device_phase_seconds() const {
  return device_ ? device_->device_phase_seconds() : std::vector<double>{};
}

std::string Simulation::backend_description() const {
  const bool mixed = deck_.precision == "mixed", clusters = deck_.neighbor.layout == "clusters";
  if (device_)
    return device_->describe() +
           (mixed ? ", mixed precision (float pair math; double positions, integration and sums)" : ", double precision") +
           (clusters ? ", cluster neighbour list" : "") +
           (deck_.neighbor.list == "half" ? " (neighbor.list: half is for the cpu backend; full lists here)" : "");
  const std::string list = cpu_clusters_ ? "cluster-pair neighbour list (4x4, each pair once)"
                           : fmt::format("{} neighbour list{}", half_list_ ? "half" : "full",
                                         clusters ? " (neighbor.layout: clusters takes pair styles alone on the "
                                                    "cpu backend; rows here)"
                                                  : "");
  const std::string precision =
      !mixed       ? "double precision"
      : cpu_mixed_ ? "mixed precision (float pair math; double positions, integration and sums)"
      : half_list_ ? "double precision (precision: mixed takes full lists or neighbor.layout: clusters on the cpu "
                     "backend)"
                   : "double precision (precision: mixed on the cpu backend is for pair styles)";
  return fmt::format("cpu ({} OpenMP thread{}), {}, {} pair kernel, {}", omp_get_max_threads(),
                     omp_get_max_threads() > 1 ? "s" : "", precision, simd_name(simd_level()), list);
}

// One sequence wherever the atoms live (AtomBackend). The device pipeline's
// own rebuild keeps this order (force_pipeline.hpp), so that a device run
// reaches the CPU's state bit for bit.
void Simulation::rebuild() {
  settle_motion();
  timers_.next(Phase::kCommunicate);
  list_current_ = false;
  backend_->start_rebuild();
  if (comm_.parallel()) migrate(backend_->halo_atoms());
  backend_->wrap(box_);
  verify_atoms();
  // At a run's first build, then at the first rebuild after each multiple
  // of sort_every steps: a schedule that needs no state beyond the last
  // build step, which a checkpoint keeps, so a restarted run sorts where a
  // straight one does; and an extra build at the same step (a halo
  // transport's fallback) does not move it.
  const long every = deck_.neighbor.sort_every;
  if (deck_.neighbor.sort && (neighbor_builds() == 0 || step_ / every != last_build_ / every)) {
    timers_.next(Phase::kNeighbor);
    backend_->sort(sub_, 0.5 * reach_);
  }
  timers_.next(Phase::kCommunicate);
  build_ghosts();
  timers_.next(Phase::kNeighbor);
  build_list();
  backend_->finish_rebuild();
  last_build_ = step_;
  box_at_build_ = box_;
  box_changed_ = false;
}

void Simulation::migrate(HaloAtoms& atoms) {
  try {
    halo_.migrate(atoms, sub_);
  } catch (const SimulationError& e) {
    if (!*e.what()) throw;  // another rank found it and says so
    throw SimulationError(fmt::format("step {}: {}", step_, e.what()));
  }
}

void Simulation::build_list() {
  if (record_offsets_ && !device_) check_record_offsets();
  backend_->build_list(sub_, reach_, halo_.swaps());
  list_current_ = true;
  if (device_ && comm_.parallel() && !transport_.tested()) check_halo_transport();
}

// Checked before every CPU build, on every rank together: the builder
// alone would stop one rank, and the others would wait for it.
void Simulation::check_record_offsets() const {
  const long nall = static_cast<long>(atoms_.nall());
  const bool over = nall > record_offset_atoms_;
  if (comm_.max(over ? 1 : 0) == 0) return;
  if (!over) throw SimulationError("");
  throw SimulationError(fmt::format("step {}: {}{}", step_,
                                    comm_.parallel() ? fmt::format("rank {}: ", comm_.rank()) : "",
                                    record_offsets_limit(nall, record_offset_atoms_)));
}

void Simulation::check_halo_transport() {
  EngineHaloDevice device(*device_, sub_, halo_);
  transport_.self_test(deck_.peer_copies, device, halo_, comm_, step_);
}

void Simulation::close_peer_copies() {
  if (!device_) return;
  EngineHaloDevice device(*device_, sub_, halo_);
  transport_.close_peer_copies(device, comm_);
}

void Simulation::maybe_balance() {
  const LoadBalanceSpec& lb = deck_.load_balance;
  // At the first rebuild after each multiple of `every`: a schedule that
  // needs no state beyond the last build step, so a restart keeps it.
  if (!lb.enabled() || !comm_.parallel() || step_ / lb.every == last_build_ / lb.every) return;
  // On a device the host's clocks measure launches and waits; the device's
  // own time per phase (phase_timeline.hpp) is the work.
  double work = timers_.seconds(Phase::kPair) + timers_.seconds(Phase::kNeighbor);
  if (device_) {
    const std::vector<double> dev = device_->device_phase_seconds();
    work = dev.at(static_cast<std::size_t>(Phase::kPair)) + dev.at(static_cast<std::size_t>(Phase::kNeighbor));
  }
  const double mine = lb.by_time ? work - balance_mark_ : static_cast<double>(local_count());
  const long interval = step_ - last_balance_;
  balance_mark_ = work;
  last_balance_ = step_;
  const std::vector<double> cost = comm_.allgather(mine);
  last_imbalance_ = imbalance(cost);
  if (balance_checks_++ == 0) first_imbalance_ = last_imbalance_;
  if (last_imbalance_ <= lb.threshold) return;
  double min_fraction[3];
  for (int d = 0; d < 3; ++d) min_fraction[d] = ghost_reach_ / box_.length(d);
  const RankGrid moved = balance_cuts(grid_, cost, min_fraction);
  if (moved.cut == grid_.cut) return;
  grid_ = moved;
  sub_ = tessera::sub_domain(box_, grid_, cell_);
  ++balance_moves_;
  std::string planes;
  for (int d = 0; d < 3; ++d)
    if (!grid_.cut[d].empty()) planes += fmt::format(" {}: {:.4f}", "xyz"[d], fmt::join(grid_.cut[d], " "));
  const std::string over = lb.by_time ? fmt::format(" over the last {} steps", interval) : std::string();
  fmt::print("Step {}: load balance by {}: imbalance (max/mean) {:.3f}{}; planes now at{}\n", step_,
             lb.by_time ? (device_ ? "device pair + neighbour time" : "pair + neighbour time") : "atom count", last_imbalance_, over, planes);
  std::fflush(stdout);
}

void Simulation::build_ghosts() {
  if (comm_.parallel())
    halo_.build(backend_->halo_atoms(), sub_, ghost_reach_);
  else
    backend_->build_periodic_ghosts(sub_, ghost_reach_);
}

DeviceEngine::HaloOverlap Simulation::halo_overlap() const {
  return device_ ? device_->halo_overlap() : DeviceEngine::HaloOverlap{};
}

void Simulation::compute_forces(bool energy) {
  tensor_step_ = virial_tensor_ ? step_ : -1;
  energy_current_ = energy;
  backend_->compute_forces(energy);
  check_forces();
}

void Simulation::check_energy_current(const char* reader) const {
  if (!energy_current_)
    throw std::logic_error(fmt::format("{}: the forces of step {} were computed without energies and virials (a "
                                       "StepHook reads them on a step its reads_energy() left out)",
                                       reader, step_));
}

// The barostats' view of this simulation (integrate/nose_hoover_mtk.hpp).
class Simulation::Cell final : public CellControl {
 public:
  explicit Cell(Simulation& s) : s_(s) {}
  const Box& box() const override { return s_.box_; }
  void move_box(const Box& to) override { s_.move_box(to); }
  double virial_trace() const override {
    s_.check_energy_current("virial_trace");
    const ThermoSums t = s_.device_ ? s_.device_->sums() : sum_thermo(s_.atoms_);
    double w = t.virial;
    s_.comm_.sum_in_rank_order(&w, 1);
    return w;
  }
  std::array<double, 3> virial_diagonal() const override {
    if (!s_.virial_tensor_) throw std::logic_error("aniso barostat without the virial tensor");
    const TensorSums t = s_.backend_->tensor_sums();
    double w[3] = {t.virial[0], t.virial[1], t.virial[2]};
    s_.comm_.sum_in_rank_order(w, 3);
    return {w[0], w[1], w[2]};
  }

 private:
  Simulation& s_;
};

void Simulation::build_and_compute_forces(const CheckpointState* as_checkpointed) {
  // An aniso barostat is driven by the diagonal of the virial tensor, and
  // thermo may show the pressure tensor.
  bool tensor = deck_.integrator.moves_box() && deck_.integrator.coupling == PressureCoupling::kAniso;
  for (const std::string& c : deck_.thermo.columns) tensor = tensor || thermo_column_needs_tensor(c);
  if (tensor) set_virial_tensor(true);
  backend_->upload();  // on a device, the one host -> device copy of a fresh run or a restart
  if (as_checkpointed)
    rebuild_as_checkpointed(*as_checkpointed);
  else
    rebuild();
  timers_.next(Phase::kPair);
  compute_forces();
}

void Simulation::setup() {
  timers_.start(Phase::kOther);
  build_and_compute_forces(nullptr);
  settle_motion();  // on a device, the first forces' failure stops the setup, as on the CPU
  timers_.next(Phase::kIntegrate);
  if (device_) {
    integrator_.post_force(device_->ops(), step_, true);
  } else {
    CpuAtomOps ops(atoms_);
    integrator_.post_force(ops, step_, true);
  }
  setup_integrator();
  timers_.stop();
  ready_ = true;
}

void Simulation::setup_integrator() {
  Cell cell(*this);
  if (device_) {
    integrator_.setup(device_->ops(), cell, step_);
  } else {
    CpuAtomOps ops(atoms_);
    integrator_.setup(ops, cell, step_);
  }
}

void Simulation::set_box(const Box& box) {
  move_box(box);
  box_changed_ = true;
}

void Simulation::move_box(const Box& box) {
  box_ = box;
  sub_ = comm_.parallel() ? tessera::sub_domain(box_, grid_, cell_) : SubDomain::whole(box_);
  std::string thin;
  // The rule the deck's box is held to (system/build_system.cpp): one image
  // of each neighbour, which the halo and the periodic ghosts rely on.
  for (int d = 0; d < 3 && thin.empty() && comm_.rank() == 0; ++d)
    if (2 * reach_ > box_.length(d))
      thin = fmt::format("step {}: the box shrank to {:.10g} along {}, less than 2 x (cutoff + skin) = {:g}", step_,
                         box_.length(d), "xyz"[d], 2 * reach_);
  for (int d = 0; d < 3 && thin.empty(); ++d)
    if (grid_.n[d] > 1 && sub_.hi[d] - sub_.lo[d] < ghost_reach_)
      thin = fmt::format("step {}: the box changed to {:.10g} along {}: rank {}'s sub-box is {:.10g} thick, thinner "
                         "than {} = {:g} ({} ranks along {})",
                         step_, box_.length(d), "xyz"[d], comm_.rank(), sub_.hi[d] - sub_.lo[d], ghost_what(),
                         ghost_reach_, grid_.n[d], "xyz"[d]);
  // Every rank stops, or none (the rank that found it says why).
  if (comm_.max(thin.empty() ? 0 : 1) > 0) throw SimulationError(thin);
  halo_.set_box(box_);
  if (device_) device_->set_box(sub_);
}

// How far the box's corners moved since the list was built (LAMMPS's
// box check): a pair's image can close in by that much with no atom moving.
static double box_drift(const Box& now, const Box& built) {
  double lo = 0, hi = 0;
  for (int d = 0; d < 3; ++d) {
    lo += (now.lo[d] - built.lo[d]) * (now.lo[d] - built.lo[d]);
    hi += (now.hi[d] - built.hi[d]) * (now.hi[d] - built.hi[d]);
  }
  return std::sqrt(lo) + std::sqrt(hi);
}

bool Simulation::rebuild_due() {
  if (box_changed_) return true;
  return tessera::rebuild_due(deck_.neighbor, step_ - last_build_, box_drift(box_, box_at_build_),
                              [&] {
                                if (device_ && fused_displacement_step_ == step_)
                                  return comm_.max(fused_displacement_sq_);
                                return comm_.max(device_ ? device_->max_displacement_sq()
                                                         : max_displacement_sq(atoms_, nlist_));
                              });
}

// The guard of motion_guard.hpp; all ranks stop together.
void Simulation::check_motion() const {
  const MotionLimit limit = motion_limit(deck_.neighbor.skin, forces_.max_cutoff(), deck_.integrator.dt);
  if (device_) {
    // Queued every step; read (one wait of the host) only where a list
    // check or a rebuild may come this step, since a rebuild must not sort
    // or bin a runaway atom, or at the latest every kMaxUnreadSteps. The
    // list check's reduction rides along when this step's rule asks for it
    // (rebuild_due below). Outputs and thermo read it too (settle_motion).
    const NeighborSpec& nb = deck_.neighbor;
    const long since = step_ - last_build_;
    const bool displacement = !box_changed_ && displacement_due(nb, since);
    device_->queue_motion(limit.speed_sq, step_, displacement);
    if (!motion_unread_) first_unread_step_ = step_;
    motion_unread_ = true;
    if (displacement) fused_displacement_step_ = step_;
    if (box_changed_ || rebuild_considered(nb, since) || step_ - first_unread_step_ + 1 >= kMaxUnreadSteps)
      settle_motion();
    return;
  }
  const AtomStore& a = atoms_;
  const long n = static_cast<long>(a.nlocal);
  long bad = n;
  // A vectorised count first (moves_badly_flag), and only when it finds
  // one, a search for the first: the search, with its branches, was 1.8 %
  // of a 1-thread in.lj 32k mixed run (2026-11-30).
  double failed = drift_guard_step_ == step_ ? drift_failed_ : 0.0;
  if (drift_guard_step_ != step_) {
    const double *x = a.x.data(), *y = a.y.data(), *z = a.z.data();
    const double *vx = a.vx.data(), *vy = a.vy.data(), *vz = a.vz.data();
    const double speed_sq = limit.speed_sq;
    const int count = static_cast<int>(n);
#pragma omp parallel for simd schedule(static) reduction(+ : failed)
    for (int i = 0; i < count; ++i) failed += moves_badly_flag(x[i], y[i], z[i], vx[i], vy[i], vz[i], speed_sq);
  }
  if (failed != 0) {
#pragma omp parallel for schedule(static) reduction(min : bad)
    for (long i = 0; i < n; ++i)
      if (moves_badly(a.x[i], a.y[i], a.z[i], a.vx[i], a.vy[i], a.vz[i], limit.speed_sq)) bad = std::min(bad, i);
  }
  // The rank that found the atom says which.
  if (comm_.max(bad == n ? 0 : 1) == 0) return;
  if (bad == n) throw SimulationError("");
  const long i = bad;
  throw SimulationError(bad_motion_message(step_, comm_.parallel() ? fmt::format("rank {}: ", comm_.rank()) : "",
                                           a.id[i], a.x[i], a.y[i], a.z[i], a.vx[i], a.vy[i], a.vz[i], limit));
}

void Simulation::settle_motion() const {
  if (!device_ || !motion_unread_) return;
  motion_unread_ = false;
  const DeviceEngine::Motion m = device_->read_motion();
  if (fused_displacement_step_ == step_) fused_displacement_sq_ = m.max_displacement_sq;
  for (const auto& [step, w] : m.warnings) warn(step, w);
  // What stopped the run first, as the CPU would have seen it: within a
  // step the guard (check_motion) comes before the forces (check_forces),
  // so a failure counts as half a step later. The ranks that found it at
  // the first such step say which, as it was then; the others stop quietly.
  const double never = 1e300;
  const double bad = m.bad_step < 0 ? never : static_cast<double>(m.bad_step);
  const double failed = m.failure_step < 0 ? never : m.failure_step + 0.5;
  const double mine = std::min(bad, failed);
  const double first = -comm_.max(-mine);
  if (first == never) return;
  if (mine != first) throw SimulationError("");
  if (failed < bad)
    throw SimulationError(fmt::format("step {}: {}{}", m.failure_step,
                                      comm_.parallel() ? fmt::format("rank {}: ", comm_.rank()) : "", m.failure));
  const MotionLimit limit = motion_limit(deck_.neighbor.skin, forces_.max_cutoff(), deck_.integrator.dt);
  throw SimulationError(bad_motion_message(m.bad_step, comm_.parallel() ? fmt::format("rank {}: ", comm_.rank()) : "",
                                           m.id, m.x, m.y, m.z, m.vx, m.vy, m.vz, limit));
}

void Simulation::check_volume_change(double before) const {
  const double now = box_.volume();
  const double limit = deck_.integrator.max_volume_change;
  if (!(std::abs(now / before - 1) > limit)) return;
  // Every rank holds the same box: rank 0 says why, the others stop quietly.
  throw SimulationError(comm_.rank() != 0 ? ""
                                          : fmt::format("step {}: the volume changed from {:.10g} to {:.10g} in one "
                                                        "step, by more than integrator.max_volume_change = {:g} of "
                                                        "it; the barostat is unstable (pressure_damping too short?)",
                                                        step_, before, now, limit));
}

// The pieces of verlet_step on this rank's atoms, each in its timer phase.
struct Simulation::Stepping {
  Simulation& s;
  Cell cell{s};
  void initial() {
    s.timers_.next(Phase::kIntegrate);
    volume = s.box_.volume();
    if (s.device_) {
      s.integrator_.initial(s.device_->ops(), cell, s.step_);
      s.device_changed(false);
    } else {
      // The drift ends the step's first half unless a barostat moves the
      // box after it: only then does the guard need a pass of its own.
      CpuAtomOps::DriftGuard guard;
      const bool fused = !s.integrator_.spec().barostat();
      if (fused)
        guard.speed_sq =
            motion_limit(s.deck_.neighbor.skin, s.forces_.max_cutoff(), s.deck_.integrator.dt).speed_sq;
      CpuAtomOps ops(s.atoms_, fused ? &guard : nullptr, s.kick_owed_);
      s.kick_owed_ = false;
      s.integrator_.initial(ops, cell, s.step_);
      if (guard.drifted) {
        s.drift_failed_ = guard.failed;
        s.drift_guard_step_ = s.step_;
      }
    }
    if (s.integrator_.spec().barostat()) s.check_volume_change(volume);
  }
  double volume = 0;  // at the start of the step
  void check_motion() {
    s.timers_.next(Phase::kNeighbor);
    s.check_motion();
  }
  bool rebuild_due() { return s.rebuild_due(); }
  void rebuild() {
    s.maybe_balance();
    s.rebuild();
  }
  void refresh_ghosts() {
    s.timers_.next(Phase::kCommunicate);
    // On a device the refresh is made with the forces, overlapped with
    // those that need no ghost (compute_forces below).
    if (s.backend_->refreshes_with_forces())
      ghosts_pending = true;
    else
      s.update_ghosts();
  }
  void compute_forces() {
    s.timers_.next(Phase::kPair);
    if (ghosts_pending) {
      ghosts_pending = false;
      s.tensor_step_ = s.virial_tensor_ ? s.step_ : -1;
      s.energy_current_ = energy;
      s.backend_->refresh_and_compute_forces(energy);
      return s.check_forces();
    }
    s.compute_forces(energy);
  }
  bool ghosts_pending = false;
  bool energy = true;  // this step's forces give energies and virials (Simulation::run)
  void post_force() {
    s.timers_.next(Phase::kIntegrate);
    if (s.device_)
      s.integrator_.post_force(s.device_->ops(), s.step_);
    else
      s.integrator_.post_force(s.atoms_, s.step_);
  }
  bool end_unread = false;  // nothing reads this step's end (Simulation::run)
  void final() {
    if (!s.device_) {
      if (end_unread && s.integrator_.final_is_half_kick()) {
        s.kick_owed_ = true;
      } else {
        CpuAtomOps ops(s.atoms_);
        s.integrator_.final(ops, cell);
      }
    } else {
      s.integrator_.final(s.device_->ops(), cell);
      s.device_changed(false);
    }
    if (s.integrator_.spec().barostat()) s.check_volume_change(volume);
  }
};

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
  Stepping stepping{*this};
  // Energies and virials only on the steps that read them: thermo (after
  // the last step too, which callers read), a barostat (every step), a hook.
  const bool box_moves = deck_.integrator.moves_box();
  while (step_ < last) {
    ++step_;
    stepping.energy =
        box_moves || thermo_due(step_, every, last) || (hook && hook->reads_energy(step_, step_ == last));
    // A hook's reads settle the owed kick (pull_atoms); one that reads
    // energies reads the atoms' too.
    stepping.end_unread = !stepping.energy && step_ < last;
    verlet_step(stepping);
    timers_.next(Phase::kOutput);
    if (out && thermo_due(step_, every, last)) out->write(thermo());
    if (hook && !hook->after_step(*this, step_ == last)) break;
  }
  settle_kick();    // a hook stopped the run with the kick owed
  settle_motion();  // a run does not end on a step the guard stopped at
}

void Simulation::settle_kick() const {
  if (!kick_owed_) return;
  kick_owed_ = false;
  CpuAtomOps(atoms_).half_kick(integrator_.half_kick_dtf());
}

ThermoValues Simulation::thermo() const {
  check_energy_current("thermo");
  settle_motion();
  settle_kick();
  // On a device only the three sums cross to the host.
  ThermoSums s = device_ ? device_->sums() : sum_thermo(atoms_);
  double v[3] = {s.mv2, s.pe, s.virial};
  comm_.sum_in_rank_order(v, 3);
  s = ThermoSums{v[0], v[1], v[2]};
  ThermoValues t = thermo_values(step_, s, natoms_, box_.volume(), integrator_.thermostat_energy(), units_);
  t.lx = box_.length(0);
  t.ly = box_.length(1);
  t.lz = box_.length(2);
  t.density = total_mass_ * units_.mv2d / box_.volume();
  if (virial_tensor_ && tensor_step_ == step_) {
    const PressureTensor p = pressure_tensor();
    t.has_tensor = true;
    t.pxx = p.xx, t.pyy = p.yy, t.pzz = p.zz, t.pxy = p.xy, t.pxz = p.xz, t.pyz = p.yz;
  }
  return t;
}

void Simulation::set_virial_tensor(bool on) {
  virial_tensor_ = on;
  backend_->set_virial_tensor(on);
}

PressureTensor Simulation::pressure_tensor() const {
  if (tensor_step_ != step_)
    throw std::logic_error(fmt::format("pressure_tensor: the forces of step {} were computed without the virial "
                                       "tensor (set_virial_tensor(true) before the step)",
                                       step_));
  settle_kick();
  TensorSums t = backend_->tensor_sums();
  double v[12];
  for (int c = 0; c < 6; ++c) {
    v[c] = t.kinetic[c];
    v[6 + c] = t.virial[c];
  }
  comm_.sum_in_rank_order(v, 12);
  for (int c = 0; c < 6; ++c) {
    t.kinetic[c] = v[c];
    t.virial[c] = v[6 + c];
  }
  return tessera::pressure_tensor(t, box_.volume(), units_);
}

}  // namespace tessera
