#pragma once
// The device force pipeline of one rank: the atoms stay on the device; a
// rebuild wraps, sorts, makes ghosts and lists neighbours, other steps move
// the ghosts; then the forces of its list (device_force.hpp), pass by pass.
// The order of a rebuild is Simulation::rebuild's (src/run/simulation.cpp),
// so the device reproduces the CPU's state.
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "device/device_atoms.hpp"
#include "device/device_force.hpp"
#include "device/device_ghosts.hpp"
#include "device/halo_overlap.hpp"
#include "device/neighbor_build.hpp"
#include "device/reductions.hpp"
#include "device/spatial_sort.hpp"

namespace tessera::device {
inline namespace TESSERA_DEVICE_SYSTEM_NS {

class DeviceForcePipeline {
 public:
  struct Options {
    bool sort = true;         // deck neighbor.sort
    int initial_stride = 64;  // neighbours per atom before the first build
    bool mixed = false;       // deck precision: mixed
    bool clusters = false;    // deck neighbor.layout: clusters
  };

  // Forwards one quantity (a FieldInfo::name) of the locals to the ghosts,
  // queued on the stream given.
  using Forward = std::function<void(const std::string& quantity, const DeviceStream& on)>;

  // `reach`: cutoff + skin; `forces`: the list, in the host list's order
  // (device_forces_of.hpp), queued on `s`.
  // `s`: the stream of all work but the halo's; `halo`: the halo's.
  DeviceForcePipeline(const SubDomain& sd, double reach, std::vector<std::unique_ptr<DeviceForce>> forces,
                      Options opt, DeviceStream s, DeviceStream halo)
      : sd_(sd),
        reach_(reach),
        opt_(opt),
        stream_(s),
        halo_stream_(halo),
        ghosts_(s),
        sorter_(s),
        builder_(s),
        forces_(std::move(forces)),
        overlap_(s, halo) {
    if (forces_.empty()) throw std::invalid_argument("DeviceForcePipeline: no force to compute");
    for (const auto& f : forces_) single_pass_ = single_pass_ && f->passes() == 1;
    list_.stride = opt.initial_stride;
    list_.clustered = opt.clusters;
    list_.clusters.stride = opt.initial_stride;
  }

  ~DeviceForcePipeline() { quiesce(halo_stream_, stream_); }
  DeviceForcePipeline(const DeviceForcePipeline&) = delete;
  DeviceForcePipeline& operator=(const DeviceForcePipeline&) = delete;

  void upload(const AtomStore& a) { upload_atoms(stream_, a, atoms_); }
  void download(AtomStore& a) const { download_atoms(stream_, atoms_, a); }

  // Wrap, spatial sort, ghosts, neighbour list: what a CPU rebuild does.
  void rebuild() {
    builder_.drop_pairs(list_);
    ghosts_.wrap(atoms_, sd_.global);
    if (opt_.sort) sorter_.sort(atoms_, sd_, 0.5 * reach_);  // the CPU's sort cell size
    ghosts_.build(atoms_, sd_, reach_);
    builder_.build(atoms_, sd_, reach_, list_);
  }
  // Ghosts and list from the positions as they are, with no wrap or sort:
  // the list of a checkpoint's last build, from that build's positions.
  void build_in_place() {
    builder_.drop_pairs(list_);
    ghosts_.build(atoms_, sd_, reach_);
    builder_.build(atoms_, sd_, reach_, list_);
  }
  // Several ranks, between migration (device_migration.hpp) and the halo
  // build: the locals back into the box, then in cell order over sub-box
  // `sd`, as Simulation::rebuild does on the host. The old list's pairs go
  // first, so they are not held beside the sort's scratch.
  void wrap() {
    builder_.drop_pairs(list_);
    ghosts_.wrap(atoms_, sd_.global);
  }
  void sort(const SubDomain& sd) { sorter_.sort(atoms_, sd, 0.5 * reach_); }
  double reach() const { return reach_; }
  // The list of the locals and ghosts as uploaded (their ghosts made by the
  // host's halo exchange), or as device_migration.hpp made them, over
  // sub-box `sd`.
  void build_list(const SubDomain& sd) {
    sd_ = sd;
    builder_.build(atoms_, sd_, reach_, list_);
  }
  // The box changed: wrap, ghosts and the next build use the new sub-box.
  void set_sub_domain(const SubDomain& sd) { sd_ = sd; }
  // Between rebuilds: the ghosts follow their sources.
  void refresh_ghosts() { ghosts_.refresh(atoms_, sd_.global); }
  // Whether the forces from now on also write the per-atom virial tensor
  // (forces/force.hpp, PassOptions).
  void set_virial_tensor(bool on) {
    virial_tensor_ = on;
    if (!on)
      for (auto& t : tensor_) release(stream_, t);
  }
  // Every force of the list, pass by pass; one rank: the periodic images
  // carry what a force forwards between its passes.
  void compute_forces() { compute_forces(periodic_forward()); }
  void compute_forces(const Forward& forward) { run_list(nullptr, forward); }

  // The ghost refresh and the forces, overlapped (GROMACS's local /
  // non-local split): the forces on atoms with no ghost neighbour run on
  // the compute stream while `refresh(halo_stream)` moves the ghosts on the
  // halo stream (periodic images, or the halo between ranks), then the rest
  // once it has landed. Each atom's sums are those of compute_forces(), bit
  // for bit. A cluster list splits by rows: those that read no ghost first.
  // A force of several passes reads ghosts' intermediates in its later
  // passes, so a list with one runs after the refresh, unsplit.
  template <class Refresh>
  void refresh_and_compute(Refresh&& refresh, const Forward& forward) {
    const bool c = list_.clustered;
    positions_ready_.after(stream_, halo_stream_);  // the step's positions, before the forces are queued
    if (!single_pass_) {
      refresh(halo_stream_);
      halo_landed_.after(halo_stream_, stream_);
      return run_list(nullptr, forward);
    }
    overlap_.interior_start();
    run_list(c ? &list_.clusters.inner : &list_.inner, forward);
    overlap_.interior_end();
    overlap_.halo_start();
    refresh(halo_stream_);
    overlap_.halo_end();
    halo_landed_.after(halo_stream_, stream_);
    run_list(c ? &list_.clusters.outer : &list_.outer, forward);
  }
  // One rank: the periodic images, overlapped as above.
  void refresh_ghosts_and_compute() {
    refresh_and_compute([this](const DeviceStream& on) { ghosts_.refresh(atoms_, sd_.global, on); },
                        periodic_forward());
  }
  HaloTimes halo_times() { return overlap_.times(); }
  const DeviceStream& halo_stream() const { return halo_stream_; }

  // LAMMPS's check: some atom moved more than half the skin since the build.
  bool moved_too_far(double skin) const { return max_displacement_sq() > 0.25 * skin * skin; }
  double max_displacement_sq() const { return device::max_displacement_sq(stream_, atoms_, list_); }
  DeviceSums sums() const { return sums_.thermo(stream_, atoms_); }
  TensorSums tensor_sums() const {
    const double* w[6];
    for (int c = 0; c < 6; ++c) w[c] = raw(tensor_[c]);
    return sums_.tensor(stream_, atoms_, w);
  }

  DeviceAtoms& atoms() { return atoms_; }
  const DeviceAtoms& atoms() const { return atoms_; }
  const DeviceNeighborList& list() const { return list_; }
  DeviceNeighborList& list() { return list_; }
  const DeviceGhosts& ghosts() const { return ghosts_; }
  const DeviceStream& stream() const { return stream_; }

 private:
  // Each force's passes back to back, with its forwards between them; the
  // first force stores, the later ones add. `some`: the atoms (or rows) to
  // run, null for all.
  void run_list(const dvec<int>* some, const Forward& forward) {
    PassOptions opt;
    if (virial_tensor_)
      for (int c = 0; c < 6; ++c) {
        resize_exact(stream_, tensor_[c], static_cast<std::size_t>(atoms_.nlocal));  // a no-op but at rebuilds
        opt.tensor[c] = raw(tensor_[c]);
      }
    for (const auto& f : forces_) {
      for (int p = 0; p < f->passes(); ++p) {
        if (p > 0)
          for (const std::string& q : f->forwarded_after(p - 1)) forward(q, stream_);
        f->compute(p, atoms_, list_, some, opt_.mixed, opt);
      }
      opt.accumulate = true;
    }
  }
  Forward periodic_forward() {
    return [this](const std::string& q, const DeviceStream& on) { ghosts_.forward(atoms_, q, sd_.global, on); };
  }

  SubDomain sd_;
  double reach_;
  Options opt_;
  DeviceStream stream_, halo_stream_;
  DeviceAtoms atoms_;
  DeviceGhosts ghosts_;
  SpatialSorter sorter_;
  DeviceNeighborBuilder builder_;
  DeviceNeighborList list_;
  std::vector<std::unique_ptr<DeviceForce>> forces_;
  bool single_pass_ = true;  // every force of the list has one pass
  bool virial_tensor_ = false;
  dvec<double> tensor_[6];  // the locals' virial tensor, when asked (PassOptions::tensor)
  StreamOrder positions_ready_, halo_landed_;
  HaloOverlapClock overlap_;
  mutable OrderedSums sums_;  // scratch only: a sum changes nothing
};

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
