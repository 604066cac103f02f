#pragma once
// A force as the device pipeline runs it: the device side of a Force
// (src/forces/force.hpp), with the same passes and forwarded quantities.
// The pipeline holds a list of them and is a template over none: only the
// kernels a force launches are (pair_forces.hpp: DevicePairForce<Pot>).
#include <string>
#include <vector>

#include "device/device_atoms.hpp"
#include "device/neighbor_lists.hpp"
#include "forces/force.hpp"

namespace tessera::device {
inline namespace TESSERA_DEVICE_SYSTEM_NS {

class DeviceForce {
 public:
  virtual ~DeviceForce() = default;
  virtual int passes() const { return 1; }
  // As Force::forwarded_after: what the pipeline forwards to the ghosts
  // between pass `pass` and the next.
  virtual std::vector<std::string> forwarded_after(int pass) const {
    (void)pass;
    return {};
  }
  // Pass `pass` over the local atoms, or only those of `some` when not null
  // (nl.inner or nl.outer, or for a cluster list nl.clusters.inner or
  // .outer: rows), queued on the pipeline's compute stream. Each atom's
  // sums are the same bits whatever the split. `mixed`: the force's math in
  // float where it has a float form; `opt`: store or add, and whether the
  // virial tensor is wanted (forces/force.hpp).
  virtual void compute(int pass, DeviceAtoms& a, const DeviceNeighborList& nl, const dvec<int>* some, bool mixed,
                       const PassOptions& opt) const = 0;
  // Whether it may run split into inner and outer atoms (rows), the inner
  // ones before the ghosts have moved: not for a force that reads atoms
  // its list does not name (bonded partners, found by id).
  virtual bool splits() const { return true; }
  // Whether it can run over a cluster list (neighbor.layout: clusters), or
  // needs rows.
  virtual bool over_clusters() const { return true; }
  // As Force::may_fail and Force::failure, for the last computation over
  // atoms `a` (failure reads the device).
  virtual bool may_fail() const { return false; }
  virtual std::string failure(const DeviceAtoms& a) const {
    (void)a;
    return {};
  }
};

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
