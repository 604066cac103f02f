// Simulation <-> CheckpointState: what a checkpoint holds and how a run
// continues from it.
#include <fmt/format.h>

#include <algorithm>

#include "core/build_info.hpp"
#include "core/error.hpp"
#include "run/simulation.hpp"

namespace tessera {

CheckpointState Simulation::capture_state() const {
  const AtomStore& a = atoms_;
  const std::size_t n = a.nlocal;
  const std::vector<std::size_t> by_id = a.local_order_by_id();

  CheckpointState s;
  s.creator = "tessera " + version_string();
  s.step = step_;
  s.time = time();
  s.natoms = natoms_;
  s.ntypes = a.ntypes;
  s.box = box_;
  s.mass.assign(a.mass_of_type.begin() + 1, a.mass_of_type.begin() + 1 + a.ntypes);
  s.deck_text = deck_.text;
  s.id.resize(n);
  s.type.resize(n);
  s.position.resize(3 * n);
  s.velocity.resize(3 * n);
  s.force.resize(3 * n);
  s.image.resize(3 * n);
  s.reference_position.resize(3 * n);
  s.storage_index.resize(n);
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = by_id[k];
    s.id[k] = a.id[i];
    s.type[k] = a.type[i];
    const double pos[3] = {a.x[i], a.y[i], a.z[i]}, vel[3] = {a.vx[i], a.vy[i], a.vz[i]};
    const double frc[3] = {a.fx[i], a.fy[i], a.fz[i]};
    const double ref[3] = {nlist_.x0[i], nlist_.y0[i], nlist_.z0[i]};
    const int img[3] = {a.ix[i], a.iy[i], a.iz[i]};
    for (int d = 0; d < 3; ++d) {
      s.position[3 * k + d] = pos[d];
      s.velocity[3 * k + d] = vel[d];
      s.force[3 * k + d] = frc[d];
      s.reference_position[3 * k + d] = ref[d];
      s.image[3 * k + d] = img[d];
    }
    s.storage_index[k] = static_cast<std::int64_t>(i);
  }
  s.last_build_step = last_build_;
  s.neighbor_builds = nlist_.builds;
  s.integrator_style = to_string(deck_.integrator.style);
  s.chain_position = integrator_.chain_positions();
  s.chain_velocity = integrator_.chain_velocities();
  s.random_key = deck_.integrator.seed;
  s.random_counter = static_cast<std::uint64_t>(step_);
  return s;
}

void Simulation::restore(const CheckpointState& s, const std::string& source) {
  auto mismatch = [&](const std::string& what) {
    throw InputError(fmt::format("{}: does not fit the deck {}: {}", source, deck_.path, what));
  };
  AtomStore& a = atoms_;
  if (s.natoms != natoms_) mismatch(fmt::format("it holds {} atoms, the deck builds {}", s.natoms, natoms_));
  if (s.ntypes != a.ntypes) mismatch(fmt::format("it has {} atom types, the deck {}", s.ntypes, a.ntypes));
  for (int t = 1; t <= a.ntypes; ++t)
    if (s.mass[t - 1] != a.mass_of_type[t])
      mismatch(fmt::format("type {} has mass {} in it, {} in the deck", t, s.mass[t - 1], a.mass_of_type[t]));
  for (int d = 0; d < 3; ++d)
    if (s.box.lo[d] != box_.lo[d] || s.box.hi[d] != box_.hi[d])
      mismatch(fmt::format("its box [{}, {}] along {} differs from the deck's [{}, {}]", s.box.lo[d], s.box.hi[d],
                           "xyz"[d], box_.lo[d], box_.hi[d]));
  // The deck's system must be the same atoms: same ids with the same types.
  {
    const std::vector<std::size_t> by_id = a.local_order_by_id();
    for (std::size_t k = 0; k < by_id.size(); ++k) {
      if (a.id[by_id[k]] != s.id[k])
        mismatch(fmt::format("atom ids differ (the checkpoint's {}th atom has id {}, the deck's {})", k + 1, s.id[k],
                             a.id[by_id[k]]));
      if (a.type[by_id[k]] != s.type[k])
        mismatch(fmt::format("atom {} has type {} in it, {} in the deck", s.id[k], s.type[k], a.type[by_id[k]]));
    }
  }
  const bool same_style = s.integrator_style == to_string(deck_.integrator.style);
  if (same_style && deck_.integrator.style == IntegratorStyle::kNoseHoover) {
    try {
      integrator_.restore_chain(s.chain_position, s.chain_velocity);
    } catch (const InputError& e) {
      mismatch(e.what());
    }
  }

  // Same rank layout: every atom back in its slot. (Several ranks, or a
  // different count, will place atoms by position and rebuild instead.)
  const std::size_t n = static_cast<std::size_t>(s.natoms);
  a.resize_local(n);
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = s.nranks == 1 ? static_cast<std::size_t>(s.storage_index[k]) : k;
    a.id[i] = s.id[k];
    a.type[i] = s.type[k];
    a.x[i] = s.reference_position[3 * k];
    a.y[i] = s.reference_position[3 * k + 1];
    a.z[i] = s.reference_position[3 * k + 2];
    a.vx[i] = s.velocity[3 * k];
    a.vy[i] = s.velocity[3 * k + 1];
    a.vz[i] = s.velocity[3 * k + 2];
    a.ix[i] = s.image[3 * k];
    a.iy[i] = s.image[3 * k + 1];
    a.iz[i] = s.image[3 * k + 2];
  }
  step_ = s.step;
  timers_.start(Phase::kCommunicate);
  // The list exactly as it was built: ghosts and bins from the positions of
  // the last build, in the storage order that build left.
  ghosts_.build(atoms_, sub_, reach_);
  timers_.next(Phase::kNeighbor);
  builder_.build(atoms_, sub_, reach_, nlist_);
  nlist_.builds = s.neighbor_builds;
  last_build_ = s.last_build_step;
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = s.nranks == 1 ? static_cast<std::size_t>(s.storage_index[k]) : k;
    a.x[i] = s.position[3 * k];
    a.y[i] = s.position[3 * k + 1];
    a.z[i] = s.position[3 * k + 2];
  }
  timers_.next(Phase::kCommunicate);
  ghosts_.update_positions(atoms_, box_);
  timers_.next(Phase::kPair);
  compute_forces();  // per-atom energy and virial for thermo
  // The forces the next half kick needs are the stored ones: with Langevin
  // they hold friction from the half-step velocities, which are gone.
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = s.nranks == 1 ? static_cast<std::size_t>(s.storage_index[k]) : k;
    a.fx[i] = s.force[3 * k];
    a.fy[i] = s.force[3 * k + 1];
    a.fz[i] = s.force[3 * k + 2];
  }
  timers_.stop();
  ready_ = true;
  thermo_started_ = true;  // the run that wrote the checkpoint printed this step
}

}  // namespace tessera
