#pragma once
// The atoms in the host's AtomStore (the CPU backend): AtomBackend's calls
// on them, the ghosts from the halo (several ranks) or the periodic images.
#include <string>
#include <vector>

#include "atoms/atom_store.hpp"
#include "comm/halo_exchange.hpp"
#include "domain/periodic_ghosts.hpp"
#include "forces/force_list.hpp"
#include "neighbor/neighbor_list.hpp"
#include "neighbor/verlet_builder.hpp"
#include "run/atom_backend.hpp"

namespace tessera {

class HostBackend final : public AtomBackend {
 public:
  // `halo`: several ranks' (null on one rank, where the ghosts are the
  // periodic images of `box`). All must outlive this. `half_list`: build
  // half lists (NeighborList::half; every force must read them).
  // `clusters`: build the cluster layout instead (NeighborList::clustered;
  // every force must read it). `record_offsets`: full rows of record
  // offsets (NeighborList::entry_shift), for the pair styles' row kernels
  // (ForceList::reads_record_offsets).
  HostBackend(AtomStore& atoms, NeighborList& list, const ForceList& forces, const Box& box, HaloExchange* halo,
              bool half_list = false, bool clusters = false, bool record_offsets = false)
      : atoms_(atoms),
        list_(list),
        forces_(forces),
        box_(box),
        halo_(halo),
        halo_atoms_(atoms),
        half_(half_list),
        clusters_(clusters),
        entry_shift_(record_offsets && !half_list ? kRecordShift : 0) {}

  HaloAtoms& halo_atoms() override { return halo_atoms_; }
  void wrap(const Box& box) override { PeriodicGhosts::wrap(atoms_, box); }
  void sort(const SubDomain& sd, double cell) override { sort_atoms_spatially(atoms_, sd, cell); }
  void build_periodic_ghosts(const SubDomain& sd, double reach) override { ghosts_.build(atoms_, sd, reach); }
  void build_list(const SubDomain& sd, double reach, const std::vector<HaloExchange::Swap>&) override {
    if (clusters_)
      cluster_builder_.build(atoms_, sd, reach, list_);
    else
      builder_.build(atoms_, sd, reach, list_, half_, entry_shift_);
  }
  void refresh_ghosts() override;
  void compute_forces(bool energy) override;
  std::size_t nlocal() const override { return atoms_.nlocal; }
  void set_virial_tensor(bool on) override;
  TensorSums tensor_sums() const override;
  IdSums local_id_sums() const override { return id_sums(atoms_.id.data(), atoms_.nlocal); }

 private:
  // A force's intermediate (a registered quantity) from the locals to the
  // ghosts, between its passes.
  void forward_to_ghosts(const std::string& quantity);

  AtomStore& atoms_;
  NeighborList& list_;
  const ForceList& forces_;
  const Box& box_;
  HaloExchange* halo_;
  HostHaloAtoms halo_atoms_;
  VerletBuilder builder_;
  ClusterListBuilder cluster_builder_;
  PeriodicGhosts ghosts_;
  bool half_;
  bool clusters_;
  int entry_shift_;
  bool virial_tensor_ = false;
  std::vector<double> tensor_[6];  // the locals' virial tensor, when asked
};

}  // namespace tessera
