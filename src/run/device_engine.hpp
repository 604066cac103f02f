#pragma once
// A device backend as Simulation sees it: the atoms live on the device and
// Simulation drives the same step (step_sequence.hpp), rebuild rule, guard
// and Integrator as on the CPU, through these calls. No Thrust or CUDA here:
// the implementation (kernels/device/pipeline_engine.hpp) is built by nvcc
// for the GPU and by g++ for Thrust's OpenMP system in the tests, behind the
// same interface.
//
// Host copies happen in upload* / download* only, and Simulation makes them
// at setup, restart and when an output asks for the atoms (and the halo
// transport's start-up self-test, comm/halo_transport_setup.hpp).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "atoms/atom_store.hpp"
#include "core/id_sums.hpp"
#include "comm/halo_atoms.hpp"
#include "comm/halo_exchange.hpp"
#include "comm/halo_transport.hpp"
#include "comm/swap_exchange.hpp"
#include "domain/box.hpp"
#include "integrate/atom_ops.hpp"
#include "neighbor/neighbor_list.hpp"
#include "thermo/thermo.hpp"

namespace tessera {

class Simulation;

// Several ranks: at each rebuild the host's HaloExchange migrates the atoms
// and builds the ghosts through halo_atoms(), which picks and appends them on
// the device: only the atoms that cross a face pass through the host. Between
// rebuilds the device packs each swap's positions and a transport carries
// them (halo_transport.hpp) through a SwapExchange (swap_exchange.hpp).
using HaloSwap = HaloExchange::Swap;

class DeviceEngine {
 public:
  virtual ~DeviceEngine() = default;
  // For the banner and the summary: "cuda, GPU 0 (NVIDIA H100 ...)".
  virtual std::string describe() const = 0;

  // The local atoms, replacing what the device holds (ghosts are made there).
  virtual void upload(const AtomStore& a) = 0;
  // Only the local positions, or forces, keeping ghosts and list (restart).
  virtual void upload_positions(const AtomStore& a) = 0;
  virtual void upload_forces(const AtomStore& a) = 0;
  // Locals and ghosts, as AtomStore holds them.
  virtual void download(AtomStore& a) const = 0;
  // The list in NeighborList's layout (pad 1), with the build positions.
  virtual void download_list(NeighborList& l) const = 0;

  // One rank: ghosts and list from the positions as they are, with no wrap
  // or sort (after wrap and sort at a rebuild, or a checkpoint's last build).
  virtual void build_in_place() = 0;
  virtual void refresh_ghosts() = 0;
  // Several ranks: the list of the uploaded locals and ghosts (built on the
  // host) over this rank's sub-box, and the halo's swaps.
  virtual void build_list(const SubDomain& sd, const std::vector<HaloSwap>& swaps) = 0;
  // The box changed (Simulation::set_box): the device's copy of this rank's
  // sub-box (wrap, ghosts, cells) and the halo's shifts follow. The list is
  // rebuilt at the next step.
  virtual void set_box(const SubDomain& sd) = 0;
  virtual void refresh_halo(const SwapExchange& exchange) = 0;
  // A rebuild on the device: wrap() (after HaloExchange::migrate through
  // halo_atoms() with several ranks), sort() (deck neighbor.sort), then the
  // ghosts and list: HaloExchange::build through halo_atoms() and
  // build_list with several ranks, build_in_place on one.
  virtual HaloAtoms& halo_atoms() = 0;
  virtual void wrap() = 0;
  virtual void sort(const SubDomain& sd) = 0;
  // false: the host migrates and builds the ghosts instead (every atom goes
  // to the host and back at each rebuild), the reference the device's own
  // rebuild is tested against (tests/device/hostdev_backend.cpp).
  virtual bool rebuilds_on_device() const { return true; }
  // The device's local atoms: their number and id checksums.
  virtual std::size_t nlocal() const = 0;
  virtual IdSums local_id_sums() const = 0;
  // What carries the halo's buffers (host-staged by default).
  virtual void set_halo_transport(HaloTransport t) = 0;
  // How this device copies from another process's buffers on its node
  // ("CUDA IPC"), or "" when it cannot.
  virtual std::string peer_copy_kind() const = 0;
  // Per swap of the last build_list: true where the partners pull each
  // other's packed positions by peer copy instead of the transport. The
  // same on every rank (a swap is peer-copied everywhere or nowhere, so the
  // messages match); all false to stop, which closes every peer mapping.
  virtual void set_peer_swaps(const std::vector<bool>& peer) = 0;
  // Every force of the list (Simulation::forces()); what a force forwards
  // between its passes goes through the halo (`exchange`, several ranks) or
  // the periodic images (null).
  virtual void compute_forces(const SwapExchange* exchange) = 0;
  // refresh_ghosts (exchange null) or refresh_halo, then compute_forces,
  // with the forces that need no ghost computed while the ghosts move.
  virtual void refresh_and_compute(const SwapExchange* exchange) = 0;
  // The checks of the forces just computed at step `step` (a missing bond
  // partner, a broken or clamped FENE bond: Force::failure, Force::warning),
  // queued on the device with no wait; read_motion() reads what they found.
  virtual void queue_force_checks(long step) { (void)step; }
  // Seconds of halo refresh over the run, and how many of them ran while
  // forces did (measured on the device).
  struct HaloOverlap {
    double halo = 0, hidden = 0;
  };
  virtual HaloOverlap halo_overlap() = 0;
  virtual long builds() const = 0;
  virtual void set_builds(long n) = 0;

  virtual double max_displacement_sq() const = 0;
  // The blow-up guard (motion_guard.hpp) of step `step` and, when
  // `displacement` (a list check is due this step), the list check's
  // reduction, queued on the device in one pass with no wait of the host.
  virtual void queue_motion(double speed_sq, long step, bool displacement) = 0;
  // What the guards queued so far found: the first step at which a local
  // atom tripped one (-1 if none), that atom as it was then; and the last
  // queued list check's max_displacement_sq(). One wait of the host.
  // Read with it, what the queued force checks found: the first step whose
  // forces could not all be computed (-1 if none) and why, and the
  // warnings since the last read (each with the first step it concerns).
  struct Motion {
    long bad_step = -1;
    AtomId id = 0;
    double x = 0, y = 0, z = 0, vx = 0, vy = 0, vz = 0;
    double max_displacement_sq = 0;
    long failure_step = -1;
    std::string failure;
    std::vector<std::pair<long, std::string>> warnings;
  };
  virtual Motion read_motion() const = 0;
  virtual ThermoSums sums() const = 0;
  // The pressure tensor's sums (sum_tensor); the virial part is that of the
  // last forces computed with set_virial_tensor(true).
  virtual TensorSums tensor_sums() const = 0;
  // Whether the forces from now on also write the per-atom virial tensor.
  virtual void set_virial_tensor(bool on) = 0;
  // The integrator's per-atom work on the device atoms.
  virtual AtomOps& ops() = 0;
  // The most bytes this process has held in device vectors (Thrust's
  // scratch for sorts and scans not counted).
  virtual long long device_bytes_peak() const = 0;
  // Phase `phase` (a Phase of run/timers.hpp) starts now, in the device's
  // queue: the device's own time per phase, as it ran the queued work.
  virtual void mark_phase(int phase) = 0;
  // Device seconds per phase so far, one entry per Phase.
  virtual std::vector<double> device_phase_seconds() = 0;
};

// The device engine of this build for `sim`'s potential on GPU `gpu`
// (kernels/device_engine.cu). Throws InputError when the potential has no
// device version. A build without CUDA has none to make (std::logic_error).
std::unique_ptr<DeviceEngine> make_device_engine(const Simulation& sim, int gpu);

}  // namespace tessera
