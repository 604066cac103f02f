#pragma once
// The device force pipeline of one rank: the atoms stay on the device; a
// rebuild wraps, sorts, makes ghosts and lists neighbours, other steps move
// the ghosts; then pair forces. The order of a rebuild is Simulation::rebuild's
// (src/run/simulation.cpp), so the device reproduces the CPU's state.
#include <vector>

#include "device/device_atoms.hpp"
#include "device/device_ghosts.hpp"
#include "device/halo_overlap.hpp"
#include "device/neighbor_build.hpp"
#include "device/pair_forces.hpp"
#include "device/reductions.hpp"
#include "device/spatial_sort.hpp"

namespace tessera::device {
inline namespace TESSERA_DEVICE_SYSTEM_NS {

template <class Pot>
class DeviceForcePipeline {
 public:
  using Potential = Pot;
  struct Options {
    bool sort = true;         // deck neighbor.sort
    int initial_stride = 64;  // neighbours per atom before the first build
    bool mixed = false;       // deck precision: mixed
    bool clusters = false;    // deck neighbor.layout: clusters
  };

  // `reach`: cutoff + skin; `params`: the (ntypes+1)^2 table of Pot::Params.
  // `s`: the stream of all work but the halo's; `halo`: the halo's.
  DeviceForcePipeline(const SubDomain& sd, double reach, int ntypes, const std::vector<typename Pot::Params>& params,
                      Options opt, DeviceStream s, DeviceStream halo)
      : sd_(sd),
        reach_(reach),
        opt_(opt),
        stream_(s),
        halo_stream_(halo),
        ghosts_(s),
        sorter_(s),
        builder_(s),
        pair_(ntypes, params, s),
        overlap_(s, halo) {
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
  // Between rebuilds: the ghosts follow their sources.
  // The box changed: wrap, ghosts and the next build use the new sub-box.
  void set_sub_domain(const SubDomain& sd) { sd_ = sd; }
  void refresh_ghosts() { ghosts_.refresh(atoms_, sd_.global); }
  void compute_forces() { pair_.compute(atoms_, list_, opt_.mixed); }

  // The ghost refresh and the forces, overlapped (GROMACS's local /
  // non-local split): the forces on atoms with no ghost neighbour run on
  // the compute stream while `refresh(halo_stream)` moves the ghosts on the
  // halo stream (periodic images, or the halo between ranks), then the rest
  // once it has landed. Each atom's sums are those of compute_forces(), bit
  // for bit. A cluster list splits by rows: those that read no ghost first.
  template <class Refresh>
  void refresh_and_compute(Refresh&& refresh) {
    const bool c = list_.clustered;
    positions_ready_.after(stream_, halo_stream_);  // the step's positions, before the forces are queued
    overlap_.interior_start();
    pair_.compute_some(atoms_, list_, c ? list_.clusters.inner : list_.inner, opt_.mixed);
    overlap_.interior_end();
    overlap_.halo_start();
    refresh(halo_stream_);
    overlap_.halo_end();
    halo_landed_.after(halo_stream_, stream_);
    pair_.compute_some(atoms_, list_, c ? list_.clusters.outer : list_.outer, opt_.mixed);
  }
  // One rank: the periodic images, overlapped as above.
  void refresh_ghosts_and_compute() {
    refresh_and_compute([this](const DeviceStream& on) { ghosts_.refresh(atoms_, sd_.global, on); });
  }
  HaloTimes halo_times() { return overlap_.times(); }
  const DeviceStream& halo_stream() const { return halo_stream_; }

  // LAMMPS's check: some atom moved more than half the skin since the build.
  bool moved_too_far(double skin) const { return max_displacement_sq() > 0.25 * skin * skin; }
  double max_displacement_sq() const { return device::max_displacement_sq(stream_, atoms_, list_); }
  DeviceSums sums() const { return sums_.thermo(stream_, atoms_); }

  DeviceAtoms& atoms() { return atoms_; }
  const DeviceAtoms& atoms() const { return atoms_; }
  const DeviceNeighborList& list() const { return list_; }
  DeviceNeighborList& list() { return list_; }
  const DeviceGhosts& ghosts() const { return ghosts_; }
  const DeviceStream& stream() const { return stream_; }

 private:
  SubDomain sd_;
  double reach_;
  Options opt_;
  DeviceStream stream_, halo_stream_;
  DeviceAtoms atoms_;
  DeviceGhosts ghosts_;
  SpatialSorter sorter_;
  DeviceNeighborBuilder builder_;
  DeviceNeighborList list_;
  DevicePairForces<Pot> pair_;
  StreamOrder positions_ready_, halo_landed_;
  HaloOverlapClock overlap_;
  mutable OrderedSums sums_;  // scratch only: a sum changes nothing
};

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
