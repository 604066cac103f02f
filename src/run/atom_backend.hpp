#pragma once
// Where the atoms live, as Simulation's rebuild, ghost refresh and forces see
// them: in the host's AtomStore (host_backend.hpp) or in a device engine
// (device_backend.hpp). Simulation runs one sequence over either
// (Simulation::rebuild); what differs between them is behind these calls.
//
// Several ranks: HaloExchange migrates the atoms and builds the halo's
// ghosts on halo_atoms(). One rank: build_periodic_ghosts. Every MPI message
// stays in src/comm.
#include <cstddef>
#include <vector>

#include "comm/halo_atoms.hpp"
#include "comm/halo_exchange.hpp"
#include "core/id_sums.hpp"
#include "domain/box.hpp"
#include "thermo/thermo.hpp"

namespace tessera {

// Several ranks on a device: where rebuilds ran and how many atom records
// crossed between device and host for them, on this rank.
struct RebuildTraffic {
  bool on_device = true;
  long builds = 0;
  long long records = 0;
};

class AtomBackend {
 public:
  virtual ~AtomBackend() = default;

  // The host's atoms, as setup() or restore() made them, to where they live.
  virtual void upload() {}
  // Around Simulation::rebuild (not the checkpoint's list build): what the
  // rebuild moves between device and host is counted in between.
  virtual void start_rebuild() {}
  virtual void finish_rebuild() {}
  // The atoms for HaloExchange's migration and halo build (several ranks).
  virtual HaloAtoms& halo_atoms() = 0;
  // The locals back into `box`, their images counting the crossings.
  virtual void wrap(const Box& box) = 0;
  // The locals in cell order over `sd`, cells `cell` wide (neighbor.sort).
  virtual void sort(const SubDomain& sd, double cell) = 0;
  // One rank: the periodic images within `reach` of `sd` as ghosts.
  virtual void build_periodic_ghosts(const SubDomain& sd, double reach) = 0;
  // The list of the locals and ghosts over `sd`; `swaps`: the halo's (none
  // on one rank).
  virtual void build_list(const SubDomain& sd, double reach, const std::vector<HaloExchange::Swap>& swaps) = 0;
  // Between rebuilds: the ghosts follow their sources.
  virtual void refresh_ghosts() = 0;
  // Every force of the list; what a force forwards between its passes goes
  // to the ghosts as the refresh moves them. !energy: nothing reads this
  // step's energies and virials, which the backend may then skip
  // (KernelOutputs::energy); the forces are the same either way.
  virtual void compute_forces(bool energy) = 0;
  // true: refresh_ghosts is left to refresh_and_compute_forces, which
  // overlaps it with the forces that need no ghost.
  virtual bool refreshes_with_forces() const { return false; }
  virtual void refresh_and_compute_forces(bool energy) {
    refresh_ghosts();
    compute_forces(energy);
  }

  // This rank's local atoms, their count and id checksums, wherever they
  // are current.
  virtual std::size_t nlocal() const = 0;
  virtual IdSums local_id_sums() const = 0;
  // Device work changed the atoms (and the list): the host's copies are out
  // of date until pulled.
  virtual void changed(bool /*list*/) {}
  // The host's copies of the atoms and the list brought up to date.
  virtual void pull_atoms() {}
  virtual void pull_list() {}
  virtual RebuildTraffic traffic() const { return {}; }
  // Whether the forces from now on also write the per-atom virial tensor
  // (PassOptions::tensor), and the pressure tensor's sums of the last
  // forces that did (sum_tensor).
  virtual void set_virial_tensor(bool on) = 0;
  virtual TensorSums tensor_sums() const = 0;
};

}  // namespace tessera
