#pragma once
// The forces of a run, in order: what the step computes (Simulation on the
// CPU; the device pipeline keeps its own list of device forces made from
// this one, kernels/device/device_force.hpp).
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "forces/force.hpp"

namespace tessera {

class ForceList {
 public:
  // Forwards one registered quantity from the locals to the ghosts (the
  // halo between ranks, or the periodic images on one rank).
  using Forward = std::function<void(const std::string& quantity)>;

  // Appends `f`; throws std::invalid_argument when it forwards a quantity
  // the field registry has no ghost-stored double field for.
  void add(std::unique_ptr<Force> f);
  std::size_t size() const { return forces_.size(); }
  const Force& operator[](std::size_t k) const { return *forces_[k]; }
  double max_cutoff() const;
  // Whether every force runs on a half list (Force::reads_half_list).
  bool reads_half_list() const;
  // Whether every force reads full rows of record offsets
  // (Force::reads_record_offsets).
  bool reads_record_offsets() const;
  // Whether every force runs on the CPU's cluster layout (Force::reads_clusters).
  bool reads_clusters() const;
  // Whether some force computes in float under mixed precision on full rows
  // (Force::computes_mixed).
  bool computes_mixed() const;
  // Whether any force may fail (Force::may_fail), and the first failure of
  // the last computation, in list order ("" when none).
  bool may_fail() const;
  std::string failure() const;
  // The last computation's warnings (Force::warning), in list order.
  std::vector<std::string> warnings() const;

  // Every pass of every force, in order: each force's passes run back to
  // back, with forward() between them for what the force declares.
  // `tensor`: six arrays of the locals for the virial tensor
  // (PassOptions::tensor), or null. `energy`: PassOptions::energy.
  void compute(AtomStore& atoms, const NeighborList& list, const Forward& forward, double* const* tensor = nullptr,
               bool energy = true) const;
  // Every pass's PassOptions::mixed from now on.
  void set_mixed(bool on) { mixed_ = on; }

 private:
  std::vector<std::unique_ptr<Force>> forces_;
  bool mixed_ = false;
};

}  // namespace tessera
