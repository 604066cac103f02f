#pragma once
// The atoms on a device engine (run/device_engine.hpp): AtomBackend's calls
// as the engine makes them, and the host's copies it leaves out of date.
// HostRebuildBackend: the engine's atoms rebuilt on the host instead.
#include <memory>
#include <vector>

#include "atoms/atom_store.hpp"
#include "comm/communicator.hpp"
#include "comm/halo_exchange.hpp"
#include "comm/swap_exchange.hpp"
#include "neighbor/neighbor_list.hpp"
#include "run/atom_backend.hpp"
#include "run/device_engine.hpp"
#include "run/host_backend.hpp"

namespace tessera {

class DeviceBackend : public AtomBackend {
 public:
  // `host_atoms`, `host_list`: the host's copies, refreshed on demand.
  // `halo`: several ranks' (null on one rank), its messages over `comm`.
  // All must outlive this.
  DeviceBackend(DeviceEngine& engine, AtomStore& host_atoms, NeighborList& host_list, const HaloExchange* halo,
                const Communicator& comm)
      : engine_(engine), host_atoms_(host_atoms), host_list_(host_list), halo_(halo) {
    if (halo) exchange_ = std::make_unique<SwapExchange>(swap_exchange(*halo, comm));
  }

  void upload() override { engine_.upload(host_atoms_); }
  void start_rebuild() override;
  void finish_rebuild() override;
  HaloAtoms& halo_atoms() override;
  // The engine drops the old list's pairs here, before the sort's scratch.
  void wrap(const Box&) override { engine_.wrap(); }
  void sort(const SubDomain& sd, double) override { engine_.sort(sd); }
  // The engine makes the periodic images and the list in one call
  // (build_in_place), so they wait for build_list.
  void build_periodic_ghosts(const SubDomain&, double) override { periodic_ghosts_due_ = true; }
  void build_list(const SubDomain& sd, double reach, const std::vector<HaloExchange::Swap>& swaps) override;
  void refresh_ghosts() override;
  // The device's kernels compute energies and virials on every step.
  void compute_forces(bool energy) override;
  bool refreshes_with_forces() const override { return true; }
  void refresh_and_compute_forces(bool energy) override;

  std::size_t nlocal() const override { return atoms_stale_ ? engine_.nlocal() : host_atoms_.nlocal; }
  IdSums local_id_sums() const override;
  void changed(bool list) override {
    atoms_stale_ = true;
    list_stale_ = list_stale_ || list;
  }
  void pull_atoms() override;
  void pull_list() override;
  RebuildTraffic traffic() const override { return traffic_; }
  void set_virial_tensor(bool on) override { engine_.set_virial_tensor(on); }
  TensorSums tensor_sums() const override { return engine_.tensor_sums(); }

 protected:
  DeviceEngine& engine_;
  AtomStore& host_atoms_;
  RebuildTraffic traffic_;

 private:
  NeighborList& host_list_;
  const HaloExchange* halo_;
  std::unique_ptr<SwapExchange> exchange_;  // the halo's messages; null on one rank
  bool atoms_stale_ = false, list_stale_ = false;
  bool periodic_ghosts_due_ = false;
  long long records_at_start_ = 0;
};

// Several ranks, an engine that does not rebuild on the device
// (DeviceEngine::rebuilds_on_device): the host migrates, wraps, sorts and
// builds the ghosts, and every atom goes to the host and back at each
// rebuild. The reference the device's own rebuild is tested against.
class HostRebuildBackend final : public DeviceBackend {
 public:
  HostRebuildBackend(DeviceEngine& engine, AtomStore& host_atoms, NeighborList& host_list, const ForceList& forces,
                     const Box& box, HaloExchange& halo, const Communicator& comm)
      : DeviceBackend(engine, host_atoms, host_list, &halo, comm), host_(host_atoms, host_list, forces, box, &halo) {}

  void start_rebuild() override;
  void finish_rebuild() override;
  HaloAtoms& halo_atoms() override { return host_.halo_atoms(); }
  void wrap(const Box& box) override { host_.wrap(box); }
  void sort(const SubDomain& sd, double cell) override { host_.sort(sd, cell); }
  void build_periodic_ghosts(const SubDomain& sd, double reach) override { host_.build_periodic_ghosts(sd, reach); }
  void build_list(const SubDomain& sd, double reach, const std::vector<HaloExchange::Swap>& swaps) override {
    upload();  // host -> device: locals and ghosts
    DeviceBackend::build_list(sd, reach, swaps);
  }

 private:
  HostBackend host_;  // its rebuild steps on the host's copy
};

}  // namespace tessera
