#include "run/run_outputs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "atoms/molecular_fields.hpp"
#include "bonded/bonded_registry.hpp"
#include "core/build_info.hpp"
#include "core/error.hpp"
#include "io/checkpoint_collective.hpp"
#include "io/checkpoint_folder.hpp"
#include "io/durable_file.hpp"
#include "io/extxyz_writer.hpp"
#include "io/h5.hpp"
#include "io/h5md_writer.hpp"
#include "io/lammps_dump_writer.hpp"
#include "io/topology_gather.hpp"
#include "io/topology_writer.hpp"

namespace tessera {

namespace {

// Per-atom rows from every rank, on rank 0 in global-id order.
struct RowsById {
  std::vector<std::int64_t> id;
  std::vector<double> values;  // `width` per atom
};

// Gathers, for each local atom i, its id and the `width` values row(i, out)
// writes. Collective; only rank 0's result holds rows.
template <class Row>
RowsById gather_rows_by_id(const Simulation& sim, int width, Row row) {
  const AtomStore& a = sim.atoms();
  const std::size_t stride = 1 + static_cast<std::size_t>(width);
  std::vector<double> mine(a.nlocal * stride);
  for (std::size_t i = 0; i < a.nlocal; ++i) {
    std::memcpy(&mine[i * stride], &a.id[i], sizeof(double));  // the id's bits, not its value
    row(i, &mine[i * stride + 1]);
  }
  const char* p = reinterpret_cast<const char*>(mine.data());
  const auto parts = sim.comm().gather_to_root(std::vector<char>(p, p + mine.size() * sizeof(double)));
  RowsById out;
  if (sim.comm().rank() != 0) return out;
  std::vector<double> all;
  for (const auto& bytes : parts) {
    const std::size_t at = all.size();
    all.resize(at + bytes.size() / sizeof(double));
    if (!bytes.empty()) std::memcpy(all.data() + at, bytes.data(), bytes.size());
  }
  const std::size_t n = all.size() / stride;
  std::vector<std::pair<std::int64_t, std::size_t>> order(n);
  for (std::size_t k = 0; k < n; ++k) {
    std::memcpy(&order[k].first, &all[k * stride], sizeof(std::int64_t));
    order[k].second = k;
  }
  std::sort(order.begin(), order.end());
  out.id.resize(n);
  out.values.resize(n * width);
  for (std::size_t k = 0; k < n; ++k) {
    out.id[k] = order[k].first;
    std::copy_n(&all[order[k].second * stride + 1], width, &out.values[k * width]);
  }
  return out;
}

// A run with bonds or angles: the one whose atoms carry molecule ids. The
// molecular fields may exist in other runs of a process that ran one
// (atoms/atom_fields.hpp's switch stays on), holding zeros there.
const AtomId* molecule_ids(const Simulation& sim) {
  const bool molecular = !sim.bond_coeffs().empty() || !sim.angle_coeffs().empty();
  return molecular && molecular_fields_on() ? molecular_arrays(sim.atoms()).molecule : nullptr;
}

template <class T>
RowsById gather_xyz(const Simulation& sim, const std::vector<T>& x, const std::vector<T>& y, const std::vector<T>& z) {
  return gather_rows_by_id(sim, 3, [&](std::size_t i, double* out) {
    out[0] = static_cast<double>(x[i]);
    out[1] = static_cast<double>(y[i]);
    out[2] = static_cast<double>(z[i]);
  });
}

}  // namespace

RunOutputs::RunOutputs(const Deck& deck, const Simulation& sim, long resume_step, const StopPolicy* stop,
                       MsdOrigin msd_origin)
    : deck_(deck), stop_(stop), root_(sim.comm().rank() == 0), last_checkpoint_time_(std::chrono::steady_clock::now()) {
  // Rank 0 writes every file: the others send it their atoms.
  if (deck.checkpoint.enabled()) {
    if (root_) {
      ensure_folder(deck.checkpoint.path, "output.checkpoint.path");
      remove_stale_temporaries(deck.checkpoint.path);
    }
    if (resume_step >= 0) last_checkpoint_step_ = resume_step;
  }
  open_text_trajectories(sim, resume_step);
  // Collective, so before rank 0 goes its own way below. A fresh run takes
  // the MSD origin at step 0 in initial(), after setup() wrapped the atoms.
  if (deck.analysis.enabled()) {
    analysis_ = std::make_unique<Analysis>(deck, sim, std::move(msd_origin));
    if (resume_step >= 0 && analysis_->wants_msd_origin()) analysis_->set_msd_origin(gather_msd_rows(sim));
  }
  if (deck.trajectory.enabled()) {
    const Topology topology = gather_topology(sim);
    if (!root_) return;
    try {
      trajectory_ = std::make_unique<H5mdWriter>(deck.trajectory, sim.units(), sim.natoms(), topology.id, topology.type,
                                                 version_string(), resume_step);
      if (analysis_) analysis_->declare(*trajectory_);
      // H5MD's connectivity group: the tuples of ids, without the types.
      std::vector<std::int64_t> pairs, triples;
      for (std::size_t k = 0; k < topology.bonds.size(); k += 3)
        pairs.insert(pairs.end(), {topology.bonds[k + 1], topology.bonds[k + 2]});
      for (std::size_t k = 0; k < topology.angles.size(); k += 4)
        triples.insert(triples.end(), {topology.angles[k + 1], topology.angles[k + 2], topology.angles[k + 3]});
      trajectory_->write_connectivity(pairs, triples);
    } catch (const h5::H5Error& e) {
      throw IoError(fmt::format("output.trajectory.file: {}", e.what()));
    }
    write_topology_file(topology, resume_step);
  }
}

Topology RunOutputs::gather_topology(const Simulation& sim, bool state) const {
  // One gather of type, position, image, molecule id (and velocity) per
  // atom (the H5MD writer needs the types, the topology file all of them).
  const AtomStore& a = sim.atoms();
  const AtomId* molecule = molecule_ids(sim);
  const int width = state ? 11 : 8;
  const RowsById rows = gather_rows_by_id(sim, width, [&](std::size_t i, double* out) {
    out[0] = a.type[i];
    out[1] = a.x[i];
    out[2] = a.y[i];
    out[3] = a.z[i];
    out[4] = a.ix[i];
    out[5] = a.iy[i];
    out[6] = a.iz[i];
    out[7] = molecule ? static_cast<double>(molecule[i]) : 0.0;  // ids < 2^40: exact
    if (state) {
      out[8] = a.vx[i];
      out[9] = a.vy[i];
      out[10] = a.vz[i];
    }
  });
  Connectivity links = gather_connectivity(a, sim.comm());
  Topology t;
  if (!root_) return t;
  const std::size_t n = rows.id.size();
  const Box& box = sim.box();
  t.id = rows.id;
  t.type.resize(n);
  t.position.resize(3 * n);
  t.image.resize(3 * n);
  if (molecule) t.molecule.resize(n);
  if (state) t.velocity.resize(3 * n);
  for (std::size_t k = 0; k < n; ++k) {
    const double* r = &rows.values[width * k];
    t.type[k] = static_cast<std::int32_t>(r[0]);
    for (int d = 0; d < 3; ++d) {
      double x = r[1 + d];
      auto image = static_cast<std::int32_t>(r[4 + d]);
      // Between list builds atoms stray up to the skin out of the box; a
      // data file's must lie in it (Tessera's reader refuses others). One
      // period is enough; a coordinate that rounds onto hi is read as lo.
      if (state && x < box.lo[d]) {
        x += box.length(d);
        --image;
      } else if (state && x >= box.hi[d]) {
        x -= box.length(d);
        ++image;
      }
      t.position[3 * k + d] = x;
      t.image[3 * k + d] = image;
      if (state) t.velocity[3 * k + d] = r[8 + d];
    }
    if (molecule) t.molecule[k] = static_cast<std::int64_t>(r[7]);
  }
  t.mass_of_type = a.mass_of_type;
  t.box = box;
  t.step = sim.step();
  t.bonds = std::move(links.bonds);
  t.angles = std::move(links.angles);
  const Deck& deck = sim.deck();
  const auto types = [](const std::vector<BondedCoeffs>& c) { return c.empty() ? 0 : static_cast<int>(c.size()) - 1; };
  t.nbond_types = types(sim.bond_coeffs());
  t.nangle_types = types(sim.angle_coeffs());
  if (state) {
    // Each style's own number of coefficients, in LAMMPS's bond_coeff order.
    const auto rows_of = [](const std::vector<BondedCoeffs>& by_type, const BondedStyleEntry& style) {
      std::vector<std::vector<double>> out(by_type.size());
      for (std::size_t k = 1; k < by_type.size(); ++k)
        out[k].assign(by_type[k].c.begin(), by_type[k].c.begin() + style.coeff_names.size());
      return out;
    };
    if (deck.bonds && t.nbond_types > 0) {
      t.bond_style = deck.bonds->style;
      t.bond_coeffs = rows_of(sim.bond_coeffs(), *find_bonded_style(bond_styles(), t.bond_style));
    }
    if (deck.angles && t.nangle_types > 0) {
      t.angle_style = deck.angles->style;
      t.angle_coeffs = rows_of(sim.angle_coeffs(), *find_bonded_style(angle_styles(), t.angle_style));
    }
  }
  return t;
}

void RunOutputs::write_data_file(const Simulation& sim) {
  if (last_data_step_ == sim.step()) return;
  const Topology t = gather_topology(sim, true);
  last_data_step_ = sim.step();
  if (!root_) return;
  std::string path = deck_.data.file;
  for (std::size_t at; (at = path.find('*')) != std::string::npos;) path.replace(at, 1, std::to_string(sim.step()));
  write_topology(path, t, fmt::format("by Tessera {} (output.data)", version_string()));
  if (verbose_) fmt::print("Data file {} written at step {}\n", path, sim.step());
}

void RunOutputs::write_topology_file(const Topology& t, long resume_step) const {
  // A fresh run writes it; a continued one keeps the file its first segment
  // wrote (step 0's coordinates, the same bytes as a run never stopped) and
  // writes it only where it is missing (a trajectory begun before runs wrote
  // topologies, or a file deleted since), with the resume step's coordinates.
  // Ids, types and masses are the same either way: a restart checks them.
  const std::string path = topology_path(deck_.trajectory.file);
  std::error_code ec;
  if (resume_step >= 0 && std::filesystem::exists(path, ec)) return;
  write_topology(path, t, fmt::format("by Tessera {} for the trajectory {}", version_string(), deck_.trajectory.file));
}

RunOutputs::~RunOutputs() = default;

void RunOutputs::open_text_trajectories(const Simulation& sim, long resume_step) {
  if (!deck_.dump.enabled() && !deck_.xyz.enabled()) return;
  const AtomStore& a = sim.atoms();
  // Molecule ids (exact in a double: ids < 2^40) go into the mol columns.
  const AtomId* molecule = molecule_ids(sim);
  const int width = molecule ? 2 : 1;
  const RowsById rows = gather_rows_by_id(sim, width, [&](std::size_t i, double* out) {
    out[0] = a.type[i];
    if (molecule) out[1] = static_cast<double>(molecule[i]);
  });
  // A file this run cannot continue is refused on rank 0; every rank must
  // stop with its message rather than wait for rank 0 in the first step.
  std::string refused;
  if (root_) {
    std::vector<std::int32_t> type(rows.id.size());
    std::vector<std::int64_t> mol(molecule ? rows.id.size() : 0);
    for (std::size_t k = 0; k < type.size(); ++k) type[k] = static_cast<std::int32_t>(rows.values[width * k]);
    for (std::size_t k = 0; k < mol.size(); ++k) mol[k] = static_cast<std::int64_t>(rows.values[width * k + 1]);
    try {
      if (deck_.dump.enabled()) dump_ = std::make_unique<LammpsDumpWriter>(deck_.dump, rows.id, type, resume_step, mol);
      if (deck_.xyz.enabled()) xyz_ = std::make_unique<ExtxyzWriter>(deck_.xyz, rows.id, type, resume_step, mol);
    } catch (const InputError& e) {
      refused = e.what();
    }
  }
  refused = sim.comm().broadcast_text(refused);
  if (!refused.empty()) throw InputError(refused);
}

std::vector<double> RunOutputs::gather_msd_rows(const Simulation& sim) const {
  const AtomStore& a = sim.atoms();
  return gather_rows_by_id(sim, kMsdRowWidth, [&](std::size_t i, double* out) { msd_row(a, i, sim.box(), out); })
      .values;
}

void RunOutputs::sample_analysis(const Simulation& sim) {
  const long step = sim.step();
  try {
    if (analysis_->rdf_due(step)) analysis_->sample_rdf(sim);
    if (analysis_->msd_due(step)) {
      const std::vector<double> rows = gather_msd_rows(sim);
      if (root_) analysis_->sample_msd(step, sim.time(), rows);
    }
  } catch (const h5::H5Error& e) {
    throw IoError(fmt::format("step {}: cannot write the analysis to the trajectory: {}", step, e.what()));
  }
}

void RunOutputs::write_frame(const Simulation& sim) {
  const TrajectorySpec& t = deck_.trajectory;
  const AtomStore& a = sim.atoms();
  RowsById pos, vel, force, img;
  if (t.position) pos = gather_xyz(sim, a.x, a.y, a.z);
  if (t.velocity) vel = gather_xyz(sim, a.vx, a.vy, a.vz);
  if (t.force) force = gather_xyz(sim, a.fx, a.fy, a.fz);
  if (t.image) img = gather_xyz(sim, a.ix, a.iy, a.iz);
  const ThermoValues thermo = sim.thermo();
  if (!root_) return;
  std::vector<std::int32_t> image(img.values.begin(), img.values.end());
  TrajectoryFrame f;
  f.step = sim.step();
  f.time = sim.time();
  f.box = sim.box();
  if (t.position) f.position = &pos.values;
  if (t.velocity) f.velocity = &vel.values;
  if (t.force) f.force = &force.values;
  if (t.image) f.image = &image;
  try {
    trajectory_->write_frame(f);
    trajectory_->write_observables(sim.step(), sim.time(), thermo);
    trajectory_->flush();
    if (verbose_)
      fmt::print("Frame {} of {} written at step {}\n", trajectory_->frames(), deck_.trajectory.file, sim.step());
  } catch (const h5::H5Error& e) {
    throw IoError(fmt::format("step {}: cannot write the trajectory: {}", sim.step(), e.what()));
  }
}

void RunOutputs::write_text_frames(const Simulation& sim) {
  const long step = sim.step();
  const ExportSpec& d = deck_.dump;
  const ExportSpec& x = deck_.xyz;
  const bool dump = d.enabled() && step % d.every == 0, xyz = x.enabled() && step % x.every == 0;
  if (!dump && !xyz) return;
  // Gathered apart from the H5MD frame: formatting text costs far more than
  // a second gather at a step both sample, and the outputs stay independent.
  const bool pos = (dump && (d.position || d.unwrapped)) || (xyz && (x.position || x.unwrapped));
  const bool img = (dump && (d.image || d.unwrapped)) || (xyz && (x.image || x.unwrapped));
  const bool vel = (dump && d.velocity) || (xyz && x.velocity);
  const bool force = (dump && d.force) || (xyz && x.force);
  const AtomStore& a = sim.atoms();
  RowsById p, v, f, n;
  if (pos) p = gather_xyz(sim, a.x, a.y, a.z);
  if (vel) v = gather_xyz(sim, a.vx, a.vy, a.vz);
  if (force) f = gather_xyz(sim, a.fx, a.fy, a.fz);
  if (img) n = gather_xyz(sim, a.ix, a.iy, a.iz);
  if (!root_) return;
  const std::vector<std::int32_t> image(n.values.begin(), n.values.end());
  TrajectoryFrame frame;
  frame.step = step;
  frame.time = sim.time();
  frame.box = sim.box();
  if (pos) frame.position = &p.values;
  if (vel) frame.velocity = &v.values;
  if (force) frame.force = &f.values;
  if (img) frame.image = &image;
  for (TextTrajectory* w : {dump ? dump_.get() : nullptr, xyz ? xyz_.get() : nullptr}) {
    if (!w) continue;
    w->write_frame(frame);
    if (verbose_) fmt::print("Frame {} of {} written at step {}\n", w->frames(), w->path(), step);
  }
}

void RunOutputs::write_checkpoint_now(const Simulation& sim) {
  // Thermo lines and frames reach the disk before the checkpoint that vouches
  // for them, so a resume from it never finds them missing.
  if (root_) {
    if (trajectory_) trajectory_->flush();
    if (deck_.trajectory.enabled()) fsync_file(deck_.trajectory.file);
    if (dump_) dump_->sync();
    if (xyz_) xyz_->sync();
    if (!deck_.thermo.file.empty()) fsync_file(deck_.thermo.file);
  }
  const std::string path = checkpoint_path(deck_.checkpoint.path, sim.step());
  CheckpointState state = sim.capture_state();
  if (analysis_ && root_) {
    state.msd_origin = analysis_->msd_origin();
    state.msd_origin_step = analysis_->msd_origin_step();
  }
  // Each rank checks its own atoms; every rank must stop with the same error,
  // the one naming the smallest bad id.
  long long bad = -1;
  for (long long id : sim.comm().allgather(static_cast<long long>(first_non_finite_atom(state))))
    if (id >= 0 && (bad < 0 || id < bad)) bad = id;
  if (bad >= 0 && !root_) throw SimulationError("");  // rank 0 reports it
  if (bad >= 0)
    throw SimulationError(
        fmt::format("step {}: atom {} has a non-finite position, velocity or force; no checkpoint "
                    "written (the last good one, {}, is kept)",
                    sim.step(), bad, last_checkpoint_.empty() ? "none" : last_checkpoint_));
  const auto t0 = std::chrono::steady_clock::now();
  if (sim.comm().parallel())
    write_checkpoint_collective(path, state, sim.comm());
  else
    write_checkpoint(path, state);
  if (root_) {
    prune_checkpoints(deck_.checkpoint.path, deck_.checkpoint.keep);
    if (verbose_)
      fmt::print("Checkpoint {} written at step {} ({:.3f} s)\n", path, sim.step(),
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  last_checkpoint_ = path;
  last_checkpoint_step_ = sim.step();
  last_checkpoint_time_ = std::chrono::steady_clock::now();
}

void RunOutputs::initial(const Simulation& sim) {
  if (deck_.trajectory.enabled()) write_frame(sim);
  write_text_frames(sim);
  if (analysis_ && analysis_->wants_msd_origin()) analysis_->set_msd_origin(gather_msd_rows(sim));
  if (analysis_) sample_analysis(sim);
}

bool RunOutputs::reads_energy(long step, bool) const {
  return deck_.trajectory.enabled() && step % deck_.trajectory.every == 0;
}

bool RunOutputs::after_step(const Simulation& sim, bool last) {
  const long step = sim.step();
  if (deck_.trajectory.enabled() && step % deck_.trajectory.every == 0) write_frame(sim);
  write_text_frames(sim);
  if (analysis_) sample_analysis(sim);
  if (deck_.data.enabled() && deck_.data.every > 0 && step % deck_.data.every == 0) write_data_file(sim);
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
    // Clocks differ between ranks; the checkpoint is collective.
    due = sim.comm().max(due ? 1 : 0) != 0;
  }
  if (due) write_checkpoint_now(sim);
  return true;
}

void RunOutputs::finish(const Simulation& sim) {
  if (deck_.data.enabled()) write_data_file(sim);
  if (deck_.checkpoint.enabled() && last_checkpoint_step_ != sim.step()) write_checkpoint_now(sim);
}

}  // namespace tessera
