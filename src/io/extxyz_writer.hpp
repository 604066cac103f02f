#pragma once
// Extended XYZ text trajectories (output.xyz) for OVITO, ASE, VMD and
// MDAnalysis. Each frame: the atom count, a comment line of key=value pairs
//
//   Lattice="Lx 0 0 0 Ly 0 0 0 Lz" Origin="xlo ylo zlo"
//   Properties=species:S:1:pos:R:3[:map_shift:I:3][:velo:R:3][:forces:R:3][:mol:I:1]
//   Time=t Step=n pbc="T T T"
//
// (on one line), then one row per atom in id order. The column names are the
// ones OVITO maps to its particle properties (velo: Velocity, map_shift:
// Periodic Image, forces: Force; ASE also reads forces as such). Origin is
// OVITO's key for the cell's corner; readers that do not know it keep it as
// a plain value. species is the deck's name for the type, else its number;
// mol, in molecular runs only, the molecule id.
#include "io/text_trajectory.hpp"

namespace tessera {

class ExtxyzWriter : public TextTrajectory {
 public:
  // As LammpsDumpWriter; `molecule` (empty: none) adds the last column,
  // mol:I:1, the molecule ids.
  ExtxyzWriter(const ExportSpec& spec, const std::vector<std::int64_t>& ids, const std::vector<std::int32_t>& types,
               long resume_step, std::vector<std::int64_t> molecule = {});

 private:
  void format_frame(const TrajectoryFrame& f) override;
  std::optional<long> read_frame(LineScanner& in) const override;
  std::string properties_;
  std::vector<std::int64_t> molecule_;
};

}  // namespace tessera
