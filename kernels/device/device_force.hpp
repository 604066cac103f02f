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
#include "forces/kernel_outputs.hpp"

namespace tessera::device {
inline namespace TESSERA_DEVICE_SYSTEM_NS {

// Where a pass over the device atoms `a` leaves its sums (forces,
// energies, virials; the tensor when `opt` asks), stored or added as `opt`
// says.
inline KernelOutputs device_outputs(DeviceAtoms& a, const PassOptions& opt) {
  KernelOutputs o;
  o.fx = raw(a.fx);
  o.fy = raw(a.fy);
  o.fz = raw(a.fz);
  o.pe = raw(a.pe);
  o.virial = raw(a.virial);
  o.accumulate = opt.accumulate;
  for (int c = 0; c < 6; ++c) o.tensor[c] = opt.tensor[c];
  return o;
}

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
  // As Force::may_fail: whether the checks below have anything to say.
  virtual bool may_fail() const { return false; }
  // Queued on the compute stream after step `step`'s computation over `a`:
  // what it found that stops the run or deserves a warning (Force::failure,
  // Force::warning), folded into records kept on the device. No wait of
  // the host: read_report() reads the records, where the host reads the
  // motion guard's.
  virtual void queue_check(const DeviceAtoms& a, long step) const {
    (void)a;
    (void)step;
  }
  // What was found, with the step it was found at (-1: nothing), in the
  // words of Force::failure and Force::warning: the run's first failure,
  // and the first warning since the last read (with how many later steps
  // had one too), which the read clears. Reads the device.
  struct Event {
    long step = -1;
    std::string text;
  };
  struct Report {
    Event failure, warning;
  };
  virtual Report read_report() const { return {}; }
};

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
