#pragma once
// The device force pipeline of one rank: the atoms stay on the device; a
// rebuild wraps, sorts, makes ghosts and lists neighbours, other steps move
// the ghosts; then the forces of its list (device_force.hpp), pass by pass.
// The order of a rebuild is Simulation::rebuild's (src/run/simulation.cpp),
// so the device reproduces the CPU's state.
// The members that queue device work are defined in force_pipeline.cpp,
// compiled once per device system beside device_system.cpp, and the stages
// are held by pointer, their headers not included: nvcc compiles every
// kernel an inline function instantiates, used or not, so the sort, ghost,
// list and sum kernels were compiled again by every source that held a
// pipeline (most device tests, each an nvcc pass).
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "device/device_atoms.hpp"
#include "device/device_force.hpp"
#include "device/halo_overlap.hpp"
#include "device/neighbor_lists.hpp"
#include "domain/box.hpp"
#include "thermo/thermo.hpp"

namespace tessera::device {
inline namespace TESSERA_DEVICE_SYSTEM_NS {

// The stages (device_ghosts.hpp, spatial_sort.hpp, neighbor_build.hpp,
// reductions.hpp): include a stage's header to call it through ghosts().
class DeviceGhosts;
class SpatialSorter;
class DeviceNeighborBuilder;
class OrderedSums;
using DeviceSums = ThermoSums;  // as reductions.hpp

class DeviceForcePipeline {
 public:
  struct Options {
    bool sort = true;         // deck neighbor.sort
    int initial_stride = 0;   // neighbours per atom before the first build (0: from the density)
    bool mixed = false;       // deck precision: mixed
    bool clusters = false;    // deck neighbor.layout: clusters
  };

  // Forwards one quantity (a FieldInfo::name) of the locals to the ghosts,
  // queued on the stream given.
  using Forward = std::function<void(const std::string& quantity, const DeviceStream& on)>;

  // `reach`: cutoff + skin; `forces`: the list, in the host list's order
  // (device_system.hpp), queued on `s`.
  // `s`: the stream of all work but the halo's; `halo`: the halo's.
  DeviceForcePipeline(const SubDomain& sd, double reach, std::vector<std::unique_ptr<DeviceForce>> forces,
                      Options opt, DeviceStream s, DeviceStream halo);

  ~DeviceForcePipeline();
  DeviceForcePipeline(const DeviceForcePipeline&) = delete;
  DeviceForcePipeline& operator=(const DeviceForcePipeline&) = delete;

  void upload(const AtomStore& a);
  void download(AtomStore& a) const;

  // Wrap, spatial sort, ghosts, neighbour list: what a CPU rebuild does.
  void rebuild();
  // Ghosts and list from the positions as they are, with no wrap or sort:
  // the list of a checkpoint's last build, from that build's positions.
  void build_in_place();
  // Several ranks, between migration (device_migration.hpp) and the halo
  // build: the locals back into the box, then in cell order over sub-box
  // `sd`, as Simulation::rebuild does on the host.
  void wrap();
  void sort(const SubDomain& sd);
  double reach() const { return reach_; }
  // The list of the locals and ghosts as uploaded (their ghosts made by the
  // host's halo exchange), or as device_migration.hpp made them, over
  // sub-box `sd`.
  void build_list(const SubDomain& sd);
  // The box changed: wrap, ghosts and the next build use the new sub-box.
  void set_sub_domain(const SubDomain& sd) { sd_ = sd; }
  // Between rebuilds: the ghosts follow their sources.
  void refresh_ghosts();
  // Whether the forces from now on also write the per-atom virial tensor
  // (forces/force.hpp, PassOptions).
  void set_virial_tensor(bool on);
  // Every force of the list, pass by pass; one rank: the periodic images
  // carry what a force forwards between its passes.
  void compute_forces() { compute_forces(periodic_forward()); }
  void compute_forces(const Forward& forward);

  // The ghost refresh and the forces, overlapped (GROMACS's local /
  // non-local split): the forces on atoms with no ghost neighbour run on
  // the compute stream while `refresh(halo_stream)` moves the ghosts on the
  // halo stream (periodic images, or the halo between ranks), then the rest
  // once it has landed. Each atom's sums are those of compute_forces(), bit
  // for bit. A cluster list splits by rows: those that read no ghost first.
  // A force of several passes reads ghosts' intermediates in its later
  // passes, and a bonded force reads partners its list does not name: only
  // the forces of one pass that split, ahead of any that does not in the
  // list (the pair style ahead of bonds, angles and the special-pair
  // correction), run split; the rest follow the outer atoms, over all
  // atoms. Each atom still takes its forces in list order.
  template <class Refresh>
  void refresh_and_compute(Refresh&& refresh, const Forward& forward) {
    const bool c = list_.clustered;
    positions_ready_.after(stream_, halo_stream_);  // the step's positions, before the forces are queued
    if (split_forces_ == 0) {
      refresh(halo_stream_);
      halo_landed_.after(halo_stream_, stream_);
      return run_list(nullptr, forward);
    }
    overlap_.interior_start();
    run_list(c ? &list_.clusters.inner : &list_.inner, forward, 0, split_forces_);
    overlap_.interior_end();
    overlap_.halo_start();
    refresh(halo_stream_);
    overlap_.halo_end();
    halo_landed_.after(halo_stream_, stream_);
    run_list(c ? &list_.clusters.outer : &list_.outer, forward, 0, split_forces_);
    run_list(nullptr, forward, split_forces_, forces_.size());
  }
  // How many forces, from the list's first, run split (refresh_and_compute).
  std::size_t split_forces() const { return split_forces_; }
  // One rank: the periodic images, then the forces in one launch. The
  // images are a copy on this device, with nothing in flight to hide, and
  // the split would only halve the blocks of each force launch. `split`:
  // overlapped as above all the same (tests of the split on one rank).
  void refresh_ghosts_and_compute(bool split = false);
  HaloTimes halo_times();
  const DeviceStream& halo_stream() const { return halo_stream_; }

  // LAMMPS's check: some atom moved more than half the skin since the build.
  bool moved_too_far(double skin) const { return max_displacement_sq() > 0.25 * skin * skin; }
  double max_displacement_sq() const;
  DeviceSums sums() const;
  // The forces' checks of step `step` (DeviceForce::queue_check), queued
  // with no wait; and what they found, force by force in list order, for
  // those that may fail (DeviceForce::read_report, which reads the device).
  void queue_checks(long step) const;
  std::vector<DeviceForce::Report> read_reports() const;
  TensorSums tensor_sums() const;

  DeviceAtoms& atoms() { return atoms_; }
  const DeviceAtoms& atoms() const { return atoms_; }
  const DeviceNeighborList& list() const { return list_; }
  DeviceNeighborList& list() { return list_; }
  const DeviceGhosts& ghosts() const { return *ghosts_; }
  const DeviceStream& stream() const { return stream_; }

 private:
  // Forces [first, last) of the list, each one's passes back to back, with
  // its forwards between them; the list's first force stores, the later
  // ones add. `some`: the atoms (or rows) to run, null for all.
  void run_list(const dvec<int>* some, const Forward& forward, std::size_t first = 0,
                std::size_t last = static_cast<std::size_t>(-1));
  Forward periodic_forward();

  SubDomain sd_;
  double reach_;
  Options opt_;
  DeviceStream stream_, halo_stream_;
  DeviceAtoms atoms_;
  std::unique_ptr<DeviceGhosts> ghosts_;
  std::unique_ptr<SpatialSorter> sorter_;
  std::unique_ptr<DeviceNeighborBuilder> builder_;
  DeviceNeighborList list_;
  std::vector<std::unique_ptr<DeviceForce>> forces_;
  std::size_t split_forces_ = 0;  // the leading forces that have one pass and split
  bool virial_tensor_ = false;
  dvec<double> tensor_[6];  // the locals' virial tensor, when asked (PassOptions::tensor)
  StreamOrder positions_ready_, halo_landed_;
  HaloOverlapClock overlap_;
  std::unique_ptr<OrderedSums> sums_;  // scratch only: a sum changes nothing
};

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
