// Simulation <-> CheckpointState: what a checkpoint holds and how a run
// continues from it. With several ranks each rank captures its own atoms and
// they write one file together (io/checkpoint_collective.hpp); on restart
// rank 0 reads the file and scatters the atoms.
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/build_info.hpp"
#include "core/error.hpp"
#include "domain/periodic_ghosts.hpp"
#include "io/checkpoint_fields.hpp"
#include "io/checkpoint_parts.hpp"
#include "run/simulation.hpp"

namespace tessera {

namespace {
Box box_of(const std::vector<double>& v) {
  Box b;
  for (int d = 0; d < 3; ++d) {
    b.lo[d] = v.at(d);
    b.hi[d] = v.at(3 + d);
  }
  return b;
}
}  // namespace

namespace {

// (id, type) of this rank's atoms, as bytes for gather_to_root.
std::vector<char> pack_ids_and_types(const AtomStore& a) {
  std::vector<std::int64_t> v;
  v.reserve(2 * a.nlocal);
  for (std::size_t i = 0; i < a.nlocal; ++i) {
    v.push_back(a.id[i]);
    v.push_back(a.type[i]);
  }
  const char* p = reinterpret_cast<const char*>(v.data());
  return std::vector<char>(p, p + v.size() * sizeof(std::int64_t));
}

// Every rank's (id, type) pairs, sorted by id.
std::vector<std::pair<std::int64_t, std::int64_t>> unpack_ids_and_types(const std::vector<std::vector<char>>& parts) {
  std::vector<std::pair<std::int64_t, std::int64_t>> all;
  for (const auto& bytes : parts) {
    const std::size_t n = bytes.size() / (2 * sizeof(std::int64_t));
    std::vector<std::int64_t> v(2 * n);
    std::copy(bytes.begin(), bytes.begin() + v.size() * sizeof(std::int64_t), reinterpret_cast<char*>(v.data()));
    for (std::size_t k = 0; k < n; ++k) all.emplace_back(v[2 * k], v[2 * k + 1]);
  }
  std::sort(all.begin(), all.end());
  return all;
}

// The rank whose sub-box holds each atom, for a checkpoint written on another
// rank layout. Wraps the positions into the box first (updating the images),
// as the list build that follows would.
std::vector<int> owners_by_position(CheckpointState& s, const Box& box, const RankGrid& grid, std::string& problem) {
  const std::size_t n = s.id.size();
  AtomStore w;
  w.resize_local(n);
  for (std::size_t k = 0; k < n; ++k) {
    w.x[k] = s.position[3 * k];
    w.y[k] = s.position[3 * k + 1];
    w.z[k] = s.position[3 * k + 2];
    w.ix[k] = s.image[3 * k];
    w.iy[k] = s.image[3 * k + 1];
    w.iz[k] = s.image[3 * k + 2];
  }
  PeriodicGhosts::wrap(w, box);
  std::vector<double> bounds[3];  // bounds[d][c]: low face of cell c along d, then the box's high face
  for (int d = 0; d < 3; ++d) {
    for (int c = 0; c < grid.n[d]; ++c) {
      std::array<int, 3> cell{0, 0, 0};
      cell[d] = c;
      bounds[d].push_back(sub_domain(box, grid, cell).lo[d]);
    }
    std::array<int, 3> last{0, 0, 0};
    last[d] = grid.n[d] - 1;
    bounds[d].push_back(sub_domain(box, grid, last).hi[d]);
  }
  std::vector<int> owner(n);
  const double* pos[3] = {w.x.data(), w.y.data(), w.z.data()};
  const int* img[3] = {w.ix.data(), w.iy.data(), w.iz.data()};
  for (std::size_t k = 0; k < n; ++k) {
    int cell[3];
    for (int d = 0; d < 3; ++d) {
      const double p = pos[d][k];
      const auto& b = bounds[d];
      if (!(p >= b.front() && p < b.back())) {
        problem = fmt::format("atom {} lies at {} = {}, more than a box length outside the box", s.id[k], "xyz"[d], p);
        return {};
      }
      cell[d] = static_cast<int>(std::upper_bound(b.begin(), b.end(), p) - b.begin()) - 1;
      s.position[3 * k + d] = p;
      s.image[3 * k + d] = img[d][k];
    }
    owner[k] = cell[0] + grid.n[0] * (cell[1] + grid.n[1] * cell[2]);
  }
  return owner;
}

}  // namespace

CheckpointState Simulation::capture_state() const {
  const AtomStore& a = atoms();  // device -> host copies when on a device
  pull_list();                   // for the positions of the last build
  const std::size_t n = a.nlocal;
  const std::vector<std::size_t> by_id = a.local_order_by_id();

  CheckpointState s;
  s.creator = "tessera " + version_string();
  s.step = step_;
  s.time = time();
  s.natoms = natoms_;
  s.ntypes = a.ntypes;
  s.nranks = comm_.size();
  s.rank_grid = grid_.n;
  if (!grid_.cut[0].empty() || !grid_.cut[1].empty() || !grid_.cut[2].empty())
    for (int d = 0; d < 3; ++d)
      for (int c = 0; c <= grid_.n[d]; ++c)
        s.rank_cuts.push_back(grid_.cut[d].empty() ? static_cast<double>(c) / grid_.n[d] : grid_.cut[d][c]);
  s.box = box_;
  s.mass.assign(a.mass_of_type.begin() + 1, a.mass_of_type.begin() + 1 + a.ntypes);
  s.deck_text = deck_.text;
  s.reference_position.resize(3 * n);
  s.rank.assign(n, comm_.rank());
  s.storage_index.resize(n);
  capture_fields(a, n, [&](std::size_t k) { return by_id[k]; }, s);
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = by_id[k];
    const double ref[3] = {nlist_.x0[i], nlist_.y0[i], nlist_.z0[i]};
    for (int d = 0; d < 3; ++d) s.reference_position[3 * k + d] = ref[d];
    s.storage_index[k] = static_cast<std::int64_t>(i);
  }
  s.last_build_step = last_build_;
  s.neighbor_builds = neighbor_builds();
  s.units = units_.name;
  s.molecular = molecular_fields_on();
  for (int k = 0; k < 3; ++k) s.special_lj[k] = deck_.special_bonds.lj[k];
  s.integrator_style = integrator_label(deck_.integrator);
  s.chain_position = integrator_.chain_positions();
  s.chain_velocity = integrator_.chain_velocities();
  s.chain_kinetic = integrator_.chain_kinetic();
  if (deck_.integrator.moves_box()) {
    s.barostat_state = integrator_.barostat_state();
    s.build_box = {box_at_build_.lo[0], box_at_build_.lo[1], box_at_build_.lo[2],
                   box_at_build_.hi[0], box_at_build_.hi[1], box_at_build_.hi[2]};
  }
  s.random_key = deck_.integrator.seed;
  s.random_counter = static_cast<std::uint64_t>(step_);
  return s;
}

// A Nose-Hoover chain continues from a Nose-Hoover checkpoint, with or
// without a cell rescaling barostat on either side.
bool Simulation::continues_chain(const CheckpointState& s) const {
  return deck_.integrator.style == IntegratorStyle::kNoseHoover &&
         integrator_label_style(s.integrator_style) == to_string(deck_.integrator.style);
}

std::string Simulation::misfit(const CheckpointState& s,
                               const std::vector<std::pair<std::int64_t, std::int64_t>>& deck_atoms) {
  const AtomStore& a = atoms_;
  // Every number in it is in its units: read in others they would mean
  // something else.
  if (s.units != units_.name)
    return fmt::format("it was written in {} units, the deck is in {} units", s.units, units_.name);
  if (s.natoms != natoms_) return fmt::format("it holds {} atoms, the deck builds {}", s.natoms, natoms_);
  // Bonds and angles are the checkpoint's state too: neither dropped nor
  // made up.
  if (s.molecular && !molecular_fields_on())
    return "it holds bonds and angles (a molecular system), the deck's system has none";
  if (!s.molecular && molecular_fields_on())
    return "it holds no bonds or angles, the deck's system has them";
  // Its special neighbours were chosen (and marked excluded or scaled) for
  // its own factors.
  const double* lj = deck_.special_bonds.lj;
  if (s.molecular && (s.special_lj[0] != lj[0] || s.special_lj[1] != lj[1] || s.special_lj[2] != lj[2]))
    return fmt::format("its special_bonds lj factors [{}, {}, {}] differ from the deck's [{}, {}, {}]; its special "
                       "neighbours were chosen for its own",
                       s.special_lj[0], s.special_lj[1], s.special_lj[2], lj[0], lj[1], lj[2]);
  if (s.ntypes != a.ntypes) return fmt::format("it has {} atom types, the deck {}", s.ntypes, a.ntypes);
  for (int t = 1; t <= a.ntypes; ++t)
    if (s.mass[t - 1] != a.mass_of_type[t])
      return fmt::format("type {} has mass {} in it, {} in the deck", t, s.mass[t - 1], a.mass_of_type[t]);
  // A run with a barostat moved the box: its checkpoint's box is the one to
  // continue in (an npt equilibration continued by nve production, say).
  // Any other run's box must be the deck's.
  for (int d = 0; d < 3 && s.build_box.empty(); ++d)
    if (s.box.lo[d] != box_.lo[d] || s.box.hi[d] != box_.hi[d])
      return fmt::format("its box [{}, {}] along {} differs from the deck's [{}, {}]", s.box.lo[d], s.box.hi[d],
                         "xyz"[d], box_.lo[d], box_.hi[d]);
  // The deck's system must be the same atoms: same ids with the same types.
  if (deck_atoms.size() != s.id.size())
    return fmt::format("it holds {} atoms, the deck builds {}", s.id.size(), deck_atoms.size());
  for (std::size_t k = 0; k < deck_atoms.size(); ++k) {
    if (deck_atoms[k].first != s.id[k])
      return fmt::format("atom ids differ (the checkpoint's {}th atom has id {}, the deck's {})", k + 1, s.id[k],
                         deck_atoms[k].first);
    if (deck_atoms[k].second != s.type[k])
      return fmt::format("atom {} has type {} in it, {} in the deck", s.id[k], s.type[k], deck_atoms[k].second);
  }
  if (continues_chain(s)) {
    try {
      integrator_.restore_chain(s.chain_position, s.chain_velocity, s.chain_kinetic);
    } catch (const InputError& e) {
      return e.what();
    }
  }
  return {};
}

// Rank 0 holds the checkpoint; it checks it against every rank's atoms and
// tells all ranks the verdict, so they fail (or go on) together.
void Simulation::refuse_misfit(const CheckpointState& given, const std::string& source) {
  const bool root = comm_.rank() == 0;
  std::string problem;
  {
    const auto deck_parts = comm_.gather_to_root(pack_ids_and_types(atoms_));
    if (root) problem = misfit(given, unpack_ids_and_types(deck_parts));
  }
  if (!problem.empty()) problem = fmt::format("{}: does not fit the deck {}: {}", source, deck_.path, problem);
  problem = comm_.broadcast_text(problem);
  if (!problem.empty()) throw InputError(problem);
}

// The cut planes load balancing had moved to.
void Simulation::restore_rank_cuts(const CheckpointState& s) {
  std::size_t at = 0;
  for (int d = 0; d < 3; ++d) {
    grid_.cut[d].clear();
    bool equal_slabs = true;  // stored as c / n: keep the equal-slab arithmetic, bit for bit
    for (int c = 0; c <= grid_.n[d] && !s.rank_cuts.empty(); ++c)
      equal_slabs = equal_slabs && s.rank_cuts[at + c] == static_cast<double>(c) / grid_.n[d];
    if (!equal_slabs) grid_.cut[d].assign(s.rank_cuts.begin() + at, s.rank_cuts.begin() + at + grid_.n[d] + 1);
    at += grid_.n[d] + 1;
  }
  sub_ = tessera::sub_domain(box_, grid_, cell_);
}

void Simulation::scatter_checkpoint(const CheckpointState& given, bool same_layout, const std::string& source,
                                    CheckpointState& s) {
  const bool root = comm_.rank() == 0;
  std::string problem;
  std::vector<std::vector<char>> parts;
  if (root) {
    std::vector<int> owner;
    if (same_layout) {
      owner.assign(given.rank.begin(), given.rank.end());
    } else {
      CheckpointState wrapped = given;
      owner = owners_by_position(wrapped, box_, grid_, problem);
      if (problem.empty())
        for (const CheckpointState& p : split_atoms(wrapped, owner, comm_.size())) parts.push_back(pack_atoms(p));
    }
    if (same_layout)
      for (const CheckpointState& p : split_atoms(given, owner, comm_.size())) parts.push_back(pack_atoms(p));
  }
  if (!problem.empty()) problem = fmt::format("{}: {}", source, problem);
  problem = comm_.broadcast_text(problem);
  if (!problem.empty()) throw InputError(problem);
  unpack_atoms(comm_.scatter_from_root(parts), s);
  if (!root && continues_chain(s)) integrator_.restore_chain(s.chain_position, s.chain_velocity, s.chain_kinetic);
}

void Simulation::restore(const CheckpointState& given, const std::string& source) {
  refuse_misfit(given, source);
  CheckpointState s;
  std::vector<char> header = comm_.rank() == 0 ? pack_header(given) : std::vector<char>();
  comm_.broadcast(header);
  unpack_header(header, s);
  // The same rank grid puts every atom back in its rank and slot, so the run
  // continues bitwise; another layout places atoms by position and rebuilds.
  const bool same_layout = s.nranks == comm_.size() && s.rank_grid == grid_.n;
  const bool barostat_restored = restore_barostat(s, source);
  if (same_layout && comm_.parallel()) restore_rank_cuts(s);
  scatter_checkpoint(given, same_layout, source, s);

  AtomStore& a = atoms_;
  const std::size_t n = s.id.size();
  a.resize_local(n);
  for (std::size_t k = 0; k < n && same_layout; ++k)
    if (static_cast<std::size_t>(s.storage_index[k]) >= n)
      throw std::logic_error("checkpoint slot outside this rank's atoms");
  restore_fields(s, same_layout ? s.reference_position : s.position, n,
                 [&](std::size_t k) { return same_layout ? static_cast<std::size_t>(s.storage_index[k]) : k; }, false,
                 a);
  step_ = s.step;
  timers_.start(Phase::kOther);
  build_and_compute_forces(same_layout ? &s : nullptr);  // forces for per-atom energy and virial (thermo)
  if (device_)
    device_->set_builds(s.neighbor_builds);
  else
    nlist_.builds = s.neighbor_builds;
  pull_atoms();  // a rebuild on the device may have sorted them
  restore_forces(s);
  if (!barostat_restored) setup_integrator();  // a barostat continuing another style's run starts afresh
  timers_.stop();
  ready_ = true;
  thermo_started_ = true;  // the run that wrote the checkpoint printed this step
}

// The list exactly as it was built: ghosts and bins from the positions of
// the last build, in the storage order that build left; then the positions
// of the checkpoint's step, and their ghosts.
void Simulation::rebuild_as_checkpointed(const CheckpointState& s) {
  AtomStore& a = atoms_;
  const std::size_t n = s.id.size();
  // A moving box: the list was built in the box of that step.
  const Box now = box_;
  if (!s.build_box.empty()) move_box(box_of(s.build_box));
  timers_.next(Phase::kCommunicate);
  build_ghosts();
  timers_.next(Phase::kNeighbor);
  build_list();
  last_build_ = s.last_build_step;
  box_at_build_ = box_;
  move_box(now);
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = static_cast<std::size_t>(s.storage_index[k]);
    a.x[i] = s.position[3 * k];
    a.y[i] = s.position[3 * k + 1];
    a.z[i] = s.position[3 * k + 2];
  }
  if (device_) device_->upload_positions(a);
  timers_.next(Phase::kCommunicate);
  update_ghosts();
}

// The checkpoint's box, and the barostat's state when the deck continues the
// same npt or nph run (true); every rank holds the header. A run that moved
// the box (its checkpoint has a build box) continues in the box it reached.
bool Simulation::restore_barostat(const CheckpointState& s, const std::string& source) {
  if (!s.build_box.empty()) move_box(s.box);
  if (!deck_.integrator.moves_box() || s.integrator_style != integrator_label(deck_.integrator)) return false;
  try {
    integrator_.restore_barostat(s.barostat_state);
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: does not fit the deck {}: {}", source, deck_.path, e.what()));
  }
  return true;
}

// The forces the next half kick needs are the stored ones: with Langevin
// they hold friction from the half-step velocities, which are gone.
void Simulation::restore_forces(const CheckpointState& s) {
  AtomStore& a = atoms_;
  const std::size_t n = s.id.size();
  const std::vector<std::size_t> by_id = a.local_order_by_id();
  if (by_id.size() != n) throw std::logic_error("atoms moved between ranks while restoring a checkpoint");
  for (std::size_t k = 0; k < n; ++k)
    if (a.id[by_id[k]] != s.id[k]) throw std::logic_error("atoms moved between ranks while restoring a checkpoint");
  restore_fields(s, s.position, n, [&](std::size_t k) { return by_id[k]; }, true, a);
  if (device_) device_->upload_forces(a);
}

}  // namespace tessera
