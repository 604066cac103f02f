#pragma once
// LAMMPS "custom" dump text trajectories (output.dump), as `dump custom` with
// `dump_modify sort id` writes them, for OVITO, VMD (`vmd -lammpstrj FILE`),
// MDAnalysis (format LAMMPSDUMP) and LAMMPS itself (`rerun`, `read_dump`):
//
//   ITEM: TIMESTEP / step / ITEM: NUMBER OF ATOMS / N /
//   ITEM: BOX BOUNDS pp pp pp / xlo xhi / ylo yhi / zlo zhi /
//   ITEM: ATOMS id [mol] type x y z [xu yu zu] [ix iy iz] [vx vy vz] [fx fy fz] / N rows by id
//
// `mol`, the molecule id, in molecular runs only (LAMMPS's name for it).
//
// No ITEM: TIME: MDAnalysis (2.4) expects ITEM: TIMESTEP on a frame's first
// line, and the time is step * integrator.dt.
#include "io/text_trajectory.hpp"

namespace tessera {

class LammpsDumpWriter : public TextTrajectory {
 public:
  // ids, types and molecule ids (empty: no mol column) per atom in id
  // order. resume_step >= 0: a restarted run, which keeps the frames up to
  // that step and appends; InputError for an existing file with another
  // atom count or other columns.
  LammpsDumpWriter(const ExportSpec& spec, const std::vector<std::int64_t>& ids, const std::vector<std::int32_t>& types,
                   long resume_step, std::vector<std::int64_t> molecule = {});

 private:
  void format_frame(const TrajectoryFrame& f) override;
  std::optional<long> read_frame(LineScanner& in) const override;
  std::string atoms_header_;
  std::vector<std::int64_t> molecule_;
};

}  // namespace tessera
