#include "run/device_backend.hpp"

namespace tessera {

void DeviceBackend::start_rebuild() {
  changed(true);  // from here on the host's copy is stale
  if (halo_) records_at_start_ = halo_->records_moved();
}

void DeviceBackend::finish_rebuild() {
  if (!halo_) return;  // one rank: no atom crosses to the host
  traffic_.records += halo_->records_moved() - records_at_start_;
  ++traffic_.builds;
}

HaloAtoms& DeviceBackend::halo_atoms() {
  changed(true);  // HaloExchange changes the device's atoms
  return engine_.halo_atoms();
}

void DeviceBackend::build_list(const SubDomain& sd, double, const std::vector<HaloExchange::Swap>& swaps) {
  if (periodic_ghosts_due_) {
    periodic_ghosts_due_ = false;
    engine_.build_in_place();
  } else {
    engine_.build_list(sd, swaps);
  }
  changed(true);
}

void DeviceBackend::refresh_ghosts() {
  if (exchange_)
    engine_.refresh_halo(*exchange_);
  else
    engine_.refresh_ghosts();
}

void DeviceBackend::compute_forces(bool) {
  engine_.compute_forces(exchange_.get());
  changed(false);
}

void DeviceBackend::refresh_and_compute_forces(bool) {
  engine_.refresh_and_compute(exchange_.get());
  changed(false);
}

// Only the sums cross when the device's atoms are the current ones.
IdSums DeviceBackend::local_id_sums() const {
  return atoms_stale_ ? engine_.local_id_sums() : id_sums(host_atoms_.id.data(), host_atoms_.nlocal);
}

void DeviceBackend::pull_atoms() {
  if (!atoms_stale_) return;
  engine_.download(host_atoms_);
  atoms_stale_ = false;
}

void DeviceBackend::pull_list() {
  if (!list_stale_) return;
  engine_.download_list(host_list_);
  list_stale_ = false;
}

void HostRebuildBackend::start_rebuild() {
  traffic_.records += static_cast<long long>(host_atoms_.nall());  // as many as the device holds
  pull_atoms();
}

void HostRebuildBackend::finish_rebuild() {
  traffic_.on_device = false;
  traffic_.records += static_cast<long long>(host_atoms_.nall());
  ++traffic_.builds;
}

}  // namespace tessera
