#include "run/run_outputs.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/build_info.hpp"
#include "core/error.hpp"
#include "io/checkpoint_folder.hpp"
#include "io/durable_file.hpp"
#include "io/h5.hpp"
#include "io/h5md_writer.hpp"

namespace tessera {

namespace {

template <class T>
std::vector<T> xyz_by_id(const std::vector<std::size_t>& order, const std::vector<T>& x, const std::vector<T>& y,
                         const std::vector<T>& z) {
  std::vector<T> out(3 * order.size());
  for (std::size_t k = 0; k < order.size(); ++k) {
    out[3 * k] = x[order[k]];
    out[3 * k + 1] = y[order[k]];
    out[3 * k + 2] = z[order[k]];
  }
  return out;
}

}  // namespace

RunOutputs::RunOutputs(const Deck& deck, const Simulation& sim, long resume_step, const StopPolicy* stop)
    : deck_(deck), stop_(stop), last_checkpoint_time_(std::chrono::steady_clock::now()) {
  if (deck.checkpoint.enabled()) {
    ensure_folder(deck.checkpoint.path, "output.checkpoint.path");
    remove_stale_temporaries(deck.checkpoint.path);
    if (resume_step >= 0) last_checkpoint_step_ = resume_step;
  }
  if (deck.trajectory.enabled()) {
    const AtomStore& a = sim.atoms();
    const auto order = a.local_order_by_id();
    std::vector<std::int64_t> ids(order.size());
    std::vector<std::int32_t> types(order.size());
    for (std::size_t k = 0; k < order.size(); ++k) {
      ids[k] = a.id[order[k]];
      types[k] = a.type[order[k]];
    }
    try {
      trajectory_ =
          std::make_unique<H5mdWriter>(deck.trajectory, sim.natoms(), ids, types, version_string(), resume_step);
    } catch (const h5::H5Error& e) {
      throw IoError(fmt::format("output.trajectory.file: {}", e.what()));
    }
  }
}

RunOutputs::~RunOutputs() = default;

void RunOutputs::write_frame(const Simulation& sim) {
  const TrajectorySpec& t = deck_.trajectory;
  const AtomStore& a = sim.atoms();
  const auto order = a.local_order_by_id();
  std::vector<double> pos, vel, force;
  std::vector<std::int32_t> image;
  TrajectoryFrame f;
  f.step = sim.step();
  f.time = sim.time();
  f.box = sim.box();
  if (t.position) f.position = &(pos = xyz_by_id(order, a.x, a.y, a.z));
  if (t.velocity) f.velocity = &(vel = xyz_by_id(order, a.vx, a.vy, a.vz));
  if (t.force) f.force = &(force = xyz_by_id(order, a.fx, a.fy, a.fz));
  if (t.image) {
    const auto img = xyz_by_id(order, a.ix, a.iy, a.iz);
    image.assign(img.begin(), img.end());
    f.image = &image;
  }
  try {
    trajectory_->write_frame(f);
    trajectory_->write_observables(sim.step(), sim.time(), sim.thermo());
    trajectory_->flush();
  } catch (const h5::H5Error& e) {
    throw IoError(fmt::format("step {}: cannot write the trajectory: {}", sim.step(), e.what()));
  }
}

void RunOutputs::write_checkpoint_now(const Simulation& sim) {
  // Thermo lines and frames reach the disk before the checkpoint that vouches
  // for them, so a resume from it never finds them missing.
  if (trajectory_) trajectory_->flush();
  if (deck_.trajectory.enabled()) fsync_file(deck_.trajectory.file);
  if (!deck_.thermo.file.empty()) fsync_file(deck_.thermo.file);
  const std::string path = checkpoint_path(deck_.checkpoint.path, sim.step());
  const CheckpointState state = sim.capture_state();
  const std::int64_t bad = first_non_finite_atom(state);
  if (bad >= 0)
    throw SimulationError(
        fmt::format("step {}: atom {} has a non-finite position, velocity or force; no checkpoint "
                    "written (the last good one, {}, is kept)",
                    sim.step(), bad, last_checkpoint_.empty() ? "none" : last_checkpoint_));
  write_checkpoint(path, state);
  prune_checkpoints(deck_.checkpoint.path, deck_.checkpoint.keep);
  last_checkpoint_ = path;
  last_checkpoint_step_ = sim.step();
  last_checkpoint_time_ = std::chrono::steady_clock::now();
}

void RunOutputs::initial(const Simulation& sim) {
  if (trajectory_) write_frame(sim);
}

bool RunOutputs::after_step(const Simulation& sim, bool last) {
  const long step = sim.step();
  if (trajectory_ && step % deck_.trajectory.every == 0) write_frame(sim);
  if (stop_ && !last) {
    stop_reason_ = stop_->check();
    // All ranks stop at the same step, whichever saw the signal or deadline.
    if (sim.comm().max(stop_reason_.empty() ? 0 : 1) != 0) {
      if (stop_reason_.empty()) stop_reason_ = "another rank's request";
      return false;  // finish() writes the checkpoint
    }
  }
  const CheckpointSpec& c = deck_.checkpoint;
  if (!c.enabled() || last) return true;  // the last step's checkpoint comes from finish()
  bool due = c.every > 0 && step % c.every == 0;
  if (c.every_seconds > 0) {
    const double since =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - last_checkpoint_time_).count();
    due = due || since >= c.every_seconds;
  }
  if (due) write_checkpoint_now(sim);
  return true;
}

void RunOutputs::finish(const Simulation& sim) {
  if (deck_.checkpoint.enabled() && last_checkpoint_step_ != sim.step()) write_checkpoint_now(sim);
}

}  // namespace tessera
