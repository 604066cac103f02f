#pragma once
// Trajectories in H5MD 1.1 (https://www.nongnu.org/h5md/h5md.html), the HDF5
// layout that MDAnalysis, VMD and others read.
//
// Layout (N atoms; every time series is step int64[F], time double[F], value):
//   h5md                    version=[1,1]; author{name}; creator{name,version}
//   particles/trajectory/box       dimension=3, boundary=periodic x3;
//                                  edges: double[F][3][3], diag(box lengths)
//   particles/trajectory/position  double[F][N][3]   (velocity, force alike; image int32)
//   particles/trajectory/species   int32[N], particles/trajectory/id int64[N]
//   observables/{temperature,potential_energy,kinetic_energy,total_energy,pressure}
//                           double[F'] (energies per atom, as in the thermo output)
//   observables/<series>    the deck's `analysis` (rdf, msd): double[F''][...],
//                           each on its own step and time, with fixed datasets
//                           beside them that label the value's axes
//   parameters              units="lj" (Units::name, as h5md/modules/units's system)
//   connectivity/bonds      int64[B][2], connectivity/angles int64[A][3] (end,
//                           vertex, end): molecular runs only; particle ids
//                           (the group has `id`), particles_group="trajectory"
// Values are in reduced LJ units. They carry no `unit` attribute: the units
// module has no symbol for sigma or tau, and MDAnalysis rejects any unit string
// it does not know, so readers must not convert units (MDAnalysis:
// convert_units=False), and take the topology from the LAMMPS data file the
// run writes beside the trajectory (topology_writer.hpp).
// The particle group is `trajectory`, the name MDAnalysis's H5MD reader
// looks for when it builds a topology from the file alone; files written
// before it was chosen have `all`, which readers (ours too) must accept.
//
// All particle elements and box/edges share (hard-link) one step and one time
// dataset, as the specification requires for image and box; the observables
// share another, as they are sampled on their own schedule. MDAnalysis (2.4)
// reads observables/<name>/value[frame] for each trajectory frame, so it can
// read the file only while observables are sampled at the frames' steps (or
// not at all): the group is made at the first sample, never left empty.
// The file is in the HDF5 1.8 format, readable by any HDF5 >= 1.8.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/units.hpp"
#include "deck/deck.hpp"
#include "domain/box.hpp"
#include "thermo/thermo.hpp"

namespace tessera {

// Arrays are in global-id order (atom with the k-th smallest id at row k),
// xyz interleaved (3*natoms).
struct TrajectoryFrame {
  long step = 0;
  double time = 0;
  Box box;
  const std::vector<double>* position = nullptr;  // required when spec.position
  const std::vector<double>* velocity = nullptr;
  const std::vector<double>* force = nullptr;
  const std::vector<std::int32_t>* image = nullptr;
};

// A time series of its own, observables/<name>/{step, time, value}, with
// value double[samples][shape...], and fixed datasets in the same group
// that say what the value's axes are (bin centres, type pairs).
struct ObservableSeries {
  struct Axis {
    std::string name;
    std::vector<double> real;  // one of these two is used
    std::vector<std::int64_t> integer;
    std::size_t cols = 0;  // 0: one-dimensional, else rows of `cols`
  };
  std::string name;
  std::vector<std::size_t> shape;
  std::vector<Axis> axes;
};

class H5mdWriter {
 public:
  // Fresh run (resume_step < 0): creates or truncates `spec.file`. Restarted
  // run: opens the existing file (creates it if missing) and drops every
  // sample whose step is > resume_step, which a run that died after its last
  // checkpoint left behind, so the continuation neither duplicates nor misses
  // frames. `ids` and `types` are per atom in id order. Throws h5::H5Error,
  // naming the file, for HDF5 failures and for an existing file that is not
  // one of our H5MD trajectories or does not match this run (atom count, ids,
  // types, fields); std::invalid_argument for inconsistent arguments.
  H5mdWriter(const TrajectorySpec& spec, const Units& units, long long natoms, const std::vector<std::int64_t>& ids,
             const std::vector<std::int32_t>& types, const std::string& creator_version, long resume_step);
  ~H5mdWriter();  // closes the file; never throws (call flush() to see errors)
  H5mdWriter(const H5mdWriter&) = delete;
  H5mdWriter& operator=(const H5mdWriter&) = delete;

  // Appends one frame of the fields the spec selects, and the box edges. A
  // frame whose step is <= the last stored one is skipped (after a resume the
  // first frame coincides with the last stored one). Flushes afterwards.
  void write_frame(const TrajectoryFrame& f);
  // Appends one thermo sample to observables/ (same skip rule, its own
  // bookkeeping). Flushes afterwards.
  void write_observables(long step, double time, const ThermoValues& v);
  // Declares a series; call before its first sample. In a restarted run's
  // file it must match what is stored (shape and axes; else H5Error), and
  // samples past the resume step are dropped as for frames. Returns the
  // number to give write_series.
  int add_series(const ObservableSeries& series);
  // Appends one sample (same skip rule as frames, its own bookkeeping),
  // creating the group at the first. Flushes afterwards.
  void write_series(int series, long step, double time, const std::vector<double>& value);
  // Samples stored in that series.
  long series_samples(int series) const;
  // The run's bonds (id pairs, 2 per bond) and angles (end, vertex, end:
  // 3 per angle) as H5MD 1.1's connectivity group: time-independent tuple
  // lists of particle ids, each with the attribute particles_group naming
  // the particle group. A list that is empty is not written. In a restarted
  // run's file the stored lists must be these (else H5Error); they are
  // written where missing.
  void write_connectivity(const std::vector<std::int64_t>& bond_pairs, const std::vector<std::int64_t>& angle_triples);
  // Hands HDF5's buffers to the OS, so a run killed later leaves a readable file.
  void flush();
  // Frames stored in the particle time series.
  long frames() const;
  // Samples stored in observables/.
  long observable_samples() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tessera
