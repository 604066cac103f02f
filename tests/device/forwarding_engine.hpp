#pragma once
// A DeviceEngine that hands every call to the engine it wraps: tests derive
// from it and override the calls they watch or disturb.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "run/device_engine.hpp"

namespace tessera {

class ForwardingEngine : public DeviceEngine {
 public:
  explicit ForwardingEngine(std::unique_ptr<DeviceEngine> e) : e_(std::move(e)) {}
  std::string describe() const override { return e_->describe(); }
  void upload(const AtomStore& a) override { e_->upload(a); }
  void upload_positions(const AtomStore& a) override { e_->upload_positions(a); }
  void upload_forces(const AtomStore& a) override { e_->upload_forces(a); }
  void download(AtomStore& a) const override { e_->download(a); }
  void download_list(NeighborList& l) const override { e_->download_list(l); }
  void build_in_place() override { e_->build_in_place(); }
  void refresh_ghosts() override { e_->refresh_ghosts(); }
  void build_list(const SubDomain& sd, const std::vector<HaloSwap>& swaps) override { e_->build_list(sd, swaps); }
  void refresh_halo(const SwapExchange& exchange) override { e_->refresh_halo(exchange); }
  void set_halo_transport(HaloTransport t) override { e_->set_halo_transport(t); }
  std::string peer_copy_kind() const override { return e_->peer_copy_kind(); }
  void set_peer_swaps(const std::vector<bool>& peer) override { e_->set_peer_swaps(peer); }
  HaloAtoms& halo_atoms() override { return e_->halo_atoms(); }
  void set_box(const SubDomain& sd) override { e_->set_box(sd); }
  void wrap() override { e_->wrap(); }
  void sort(const SubDomain& sd) override { e_->sort(sd); }
  bool rebuilds_on_device() const override { return e_->rebuilds_on_device(); }
  std::size_t nlocal() const override { return e_->nlocal(); }
  IdSums local_id_sums() const override { return e_->local_id_sums(); }
  void compute_forces(const SwapExchange* exchange) override { e_->compute_forces(exchange); }
  void refresh_and_compute(const SwapExchange* exchange) override { e_->refresh_and_compute(exchange); }
  void queue_force_checks(long step) override { e_->queue_force_checks(step); }
  HaloOverlap halo_overlap() override { return e_->halo_overlap(); }
  long builds() const override { return e_->builds(); }
  void set_builds(long n) override { e_->set_builds(n); }
  double max_displacement_sq() const override { return e_->max_displacement_sq(); }
  void queue_motion(double speed_sq, long step, bool displacement) override {
    e_->queue_motion(speed_sq, step, displacement);
  }
  Motion read_motion() const override { return e_->read_motion(); }
  ThermoSums sums() const override { return e_->sums(); }
  TensorSums tensor_sums() const override { return e_->tensor_sums(); }
  void set_virial_tensor(bool on) override { e_->set_virial_tensor(on); }
  AtomOps& ops() override { return e_->ops(); }
  long long device_bytes_peak() const override { return e_->device_bytes_peak(); }
  void mark_phase(int phase) override { e_->mark_phase(phase); }
  std::vector<double> device_phase_seconds() override { return e_->device_phase_seconds(); }

 private:
  std::unique_ptr<DeviceEngine> e_;
};

// A ForwardingEngine that hands every halo refresh a changed SwapExchange,
// for tests that disturb the transport between ranks.
class ExchangeTamperingEngine : public ForwardingEngine {
 public:
  using ForwardingEngine::ForwardingEngine;
  void refresh_halo(const SwapExchange& exchange) override { ForwardingEngine::refresh_halo(tamper(exchange)); }
  void refresh_and_compute(const SwapExchange* exchange) override {
    if (!exchange) return ForwardingEngine::refresh_and_compute(nullptr);
    const SwapExchange changed = tamper(*exchange);
    ForwardingEngine::refresh_and_compute(&changed);
  }

 protected:
  virtual SwapExchange tamper(const SwapExchange& exchange) const = 0;
};

}  // namespace tessera
