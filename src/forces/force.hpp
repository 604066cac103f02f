#pragma once
// A force on the atoms, as the step runs it: one or more passes over the
// neighbour list, with registered per-atom quantities (atoms/atom_fields.hpp)
// forwarded to the ghosts between passes. A pair potential is one pass; a
// many-body potential (EAM) is two: a density pass that writes a per-atom
// intermediate, its forward to the ghosts, then the force pass that reads
// it. Forces accumulate: the step runs the list in order, the first member
// storing forces, energies and virials and every later one adding to them.
#include <string>
#include <vector>

namespace tessera {

struct AtomStore;
struct NeighborList;

// How a pass writes its results.
struct PassOptions {
  // false: this force is the first of the step's list and stores each local
  // atom's force, energy and virial; true: it adds to them.
  bool accumulate = false;
  // The per-atom virial tensor, xx yy zz xy xz yz, one array of the local
  // atoms each (the same accumulate rule), on the steps that ask for it (a
  // pressure tensor in thermo, an anisotropic barostat); all null on the
  // others. Scratch of the step, not a registered field: it is summed
  // before the atoms move, and costs no memory in runs that never ask.
  double* tensor[6] = {nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
  bool virial_tensor() const { return tensor[0] != nullptr; }
  // false: nothing reads this step's energies and virials
  // (KernelOutputs::energy).
  bool energy = true;
  // precision: mixed on the CPU: float pair geometry and arithmetic where
  // a kernel has it (Force::computes_mixed: the pair styles, on full rows
  // or clusters), double energy and virial sums and integration.
  bool mixed = false;
};

class Force {
 public:
  virtual ~Force() = default;
  virtual const char* name() const = 0;
  // The longest distance at which this force acts: the neighbour list's
  // cutoff is the largest over the list.
  virtual double max_cutoff() const = 0;
  // Passes per step.
  virtual int passes() const { return 1; }
  // The quantities (a FieldInfo::name of atom_fields.hpp, of ghost-stored
  // double fields) that pass `pass` writes for the locals and pass `pass + 1`
  // reads for the ghosts: the step forwards them in between.
  virtual std::vector<std::string> forwarded_after(int pass) const {
    (void)pass;
    return {};
  }
  // Pass `pass` over the local atoms, writing its results as `opt` says
  // (the pass that produces forces does; earlier ones write intermediates).
  virtual void compute_pass(int pass, AtomStore& atoms, const NeighborList& list, const PassOptions& opt) const = 0;
  // Whether this force runs on a half list (NeighborList::half) as well as
  // on a full one; the CPU builds half lists only when every force of the
  // run does. A force that reads no rows (bonds, angles) says yes.
  virtual bool reads_half_list() const { return false; }
  // Whether this force runs on the CPU's cluster layout
  // (NeighborList::clustered); the CPU builds it for `neighbor.layout:
  // clusters` only when every force of the run does, and rows otherwise.
  virtual bool reads_clusters() const { return false; }
  // Whether this force reads full rows of record offsets
  // (NeighborList::entry_shift) as they are; the CPU builds them so only
  // when every force of the run does, and atom indices otherwise (a force
  // that wants the other form converts: rows_with_shift). A force that reads
  // no rows (bonds, angles) says yes.
  virtual bool reads_record_offsets() const { return false; }
  // Whether this force has a float form for PassOptions::mixed on full
  // rows (the cluster layout's forces all have one).
  virtual bool computes_mixed() const { return false; }
  // Whether a computation can find the run unable to go on (a bond broken
  // or stretched past its partner's reach): the step then asks failure()
  // on every rank, and stops the run on all of them when any has one.
  virtual bool may_fail() const { return false; }
  // Why the last computation cannot go on ("" when it can), naming the
  // atoms; the step adds the step and the rank.
  virtual std::string failure() const { return {}; }
  // What the last computation noticed that does not stop the run ("" when
  // nothing): a FENE bond past sqrt(0.9) R0, whose log LAMMPS clamps and
  // warns about. Asked where failure() is; the step adds the step.
  virtual std::string warning() const { return {}; }
};

}  // namespace tessera
