#pragma once
// The deck's `analysis` block during a run: when to sample, the sums over
// ranks, and the series in the H5MD trajectory (docs/checkpoints.md,
// "Analysis in the trajectory"). RunOutputs drives it after each step.
//
// g(r) is counted where the pairs are, on every rank, and the integer
// histograms are summed on rank 0. The MSD needs each atom's position at
// the origin step, which would have to travel with the atom between ranks;
// instead rank 0 keeps all of them in id order and receives the current
// ones, the same gather a trajectory frame makes. Its sums then run in id
// order: the same bits on any number of ranks for the same positions.
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/rdf.hpp"
#include "deck/deck.hpp"
#include "domain/box.hpp"

namespace tessera {

class Simulation;
class H5mdWriter;
class Communicator;
struct CheckpointState;

// Checks the analysis block against the system: the pair types exist, and
// r_max lies within the neighbour list's guaranteed reach (the largest pair
// cutoff) and the minimum image (half the shortest box length). Throws
// InputError at the offending key.
void check_analysis(const AnalysisSpec& spec, double max_cutoff, const Box& box, int ntypes);

// Values gathered per atom for the MSD: type, then the unwrapped position.
constexpr int kMsdRowWidth = 4;
void msd_row(const AtomStore& atoms, std::size_t i, const Box& box, double* out);

// What the MSD is measured from: the unwrapped positions at `step` (3 per
// atom in id order, on rank 0 only).
struct MsdOrigin {
  std::vector<double> position;
  long step = -1;  // -1: none yet
};

// The origin a restarted run continues from: the checkpoint's (`state` is
// read on rank 0 only). Collective: every rank learns the step, -1 when the
// checkpoint holds none because the run that wrote it had no MSD (an
// equilibration run); the MSD then starts at the restart, and says so.
MsdOrigin resumed_msd_origin(const CheckpointState* state, const Communicator& comm);

class Analysis {
 public:
  // Collective: counts the atoms of each type over all ranks. `origin`: a
  // restarted run's (resumed_msd_origin); without one the MSD is measured
  // from the positions set_msd_origin() is given at the current step.
  Analysis(const Deck& deck, const Simulation& sim, MsdOrigin origin);
  // Rank 0: declares the series in the trajectory, which on a restart checks
  // and trims those already there.
  void declare(H5mdWriter& out);

  bool rdf_due(long step) const { return rdf_every_ > 0 && step % rdf_every_ == 0; }
  bool msd_due(long step) const { return msd_every_ > 0 && step % msd_every_ == 0; }
  // Collective: the histograms of all ranks summed on rank 0, which writes g(r).
  void sample_rdf(const Simulation& sim);
  // Whether the MSD still needs its origin (the same on every rank).
  bool wants_msd_origin() const { return msd_every_ > 0 && !has_origin_; }
  // `rows` (rank 0): kMsdRowWidth values (msd_row) per atom in id order.
  void set_msd_origin(const std::vector<double>& rows);
  // Rank 0: `rows` as for set_msd_origin.
  void sample_msd(long step, double time, const std::vector<double>& rows);
  // Rank 0: the origin, for checkpoints (empty without an MSD).
  const std::vector<double>& msd_origin() const { return origin_; }
  long msd_origin_step() const { return origin_step_; }

 private:
  const Communicator& comm_;
  long rdf_every_ = 0, msd_every_ = 0;
  RdfLayout layout_;
  int ntypes_ = 1;
  std::vector<long long> atoms_of_type_;  // index 0: all atoms
  H5mdWriter* out_ = nullptr;             // rank 0
  int rdf_series_ = -1, msd_series_ = -1;
  std::vector<double> origin_;  // rank 0: 3 per atom in id order
  long origin_step_ = 0;
  bool has_origin_ = false;
};

}  // namespace tessera
