#include "run/host_backend.hpp"

namespace tessera {

void HostBackend::refresh_ghosts() {
  if (halo_)
    halo_->update_positions(atoms_);
  else
    ghosts_.update_positions(atoms_, box_);
}

void HostBackend::compute_forces(bool energy) {
  double* tensor[6] = {};
  for (int c = 0; c < 6 && virial_tensor_; ++c) {
    tensor_[c].resize(atoms_.nlocal);  // allocates only when the local count changed
    tensor[c] = tensor_[c].data();
  }
  forces_.compute(
      atoms_, list_, [this](const std::string& q) { forward_to_ghosts(q); }, virial_tensor_ ? tensor : nullptr,
      energy);
}

void HostBackend::set_virial_tensor(bool on) {
  virial_tensor_ = on;
  if (!on)
    for (auto& t : tensor_) std::vector<double>().swap(t);
}

TensorSums HostBackend::tensor_sums() const {
  const double* w[6];
  for (int c = 0; c < 6; ++c) w[c] = tensor_[c].data();
  return sum_tensor(atoms_, w);
}

void HostBackend::forward_to_ghosts(const std::string& quantity) {
  const std::vector<double*> v =
      forwardable_arrays(atoms_, quantity.c_str(), [](std::vector<double>& a) { return a.data(); });
  const bool periodic = moves_with_image(quantity.c_str());
  if (halo_)
    halo_->forward(v.data(), static_cast<int>(v.size()), periodic);
  else
    ghosts_.forward(atoms_, v, periodic, box_);
}

}  // namespace tessera
