#include "run/host_backend.hpp"

namespace tessera {

void HostBackend::refresh_ghosts() {
  if (halo_)
    halo_->update_positions(atoms_);
  else
    ghosts_.update_positions(atoms_, box_);
}

void HostBackend::compute_forces() {
  forces_.compute(atoms_, list_, [this](const std::string& q) { forward_to_ghosts(q); });
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
