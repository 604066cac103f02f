#pragma once
// The topology file a run writes beside its H5MD trajectory: a LAMMPS data
// file, so that MDAnalysis opens the pair in one line,
//   mda.Universe("run.data", "run.h5md", convert_units=False),
// which reduced LJ units need: MDAnalysis (2.4) builds a topology from an
// H5MD file alone only when it may convert units, and H5MD has no unit
// symbols for sigma and tau (h5md_writer.hpp). The atoms are in
// atom_style molecular (id mol type x y z ix iy iz, molecule 0: none),
// the columns MDAnalysis's DATA reader expects when it is given no
// atom_style; atomic's "id type x" would be read as molecule and type. It
// is the style that carries bonds: a molecular run's file has the real
// molecule ids and the Bonds and Angles sections, from which MDAnalysis
// makes u.bonds and u.angles.
//
// The same writer makes output.data's files (a LAMMPS data file of the
// current state, for LAMMPS's read_data and Tessera's system.read_data):
// those add Velocities and the Bond Coeffs / Angle Coeffs sections.
#include <cstdint>
#include <string>
#include <vector>

#include "domain/box.hpp"

namespace tessera {

// Everything the file holds; arrays in global-id order, xyz interleaved.
struct Topology {
  std::vector<std::int64_t> id;
  std::vector<std::int32_t> type;
  std::vector<double> position;      // 3 per atom
  std::vector<std::int32_t> image;   // 3 per atom
  std::vector<double> mass_of_type;  // index 0 unused
  Box box;
  long step = 0;  // whose coordinates these are
  std::vector<std::int64_t> molecule;  // per atom; empty: 0 (none) for all
  std::vector<double> velocity;        // 3 per atom; empty: no Velocities section
  // type, atom, atom per bond; type, end, vertex, end per angle
  // (io/topology_gather.hpp), numbered from 1 in this order.
  std::vector<std::int64_t> bonds, angles;
  int nbond_types = 0, nangle_types = 0;  // 0: no such header lines
  // The Bond Coeffs / Angle Coeffs sections ("Bond Coeffs # harmonic"): a
  // row of coefficients per type, index 0 unused; empty: no section.
  std::string bond_style, angle_style;
  std::vector<std::vector<double>> bond_coeffs, angle_coeffs;
};

// The topology's path for a trajectory file: the same name with the
// extension .data ("out/run.h5md" -> "out/run.data").
std::string topology_path(const std::string& trajectory_file);

// Writes the data file crash-safely (a temporary file renamed into place):
// a reader never sees half of one. `about` names the trajectory and the
// writer in the file's title line. Throws IoError naming the path.
void write_topology(const std::string& path, const Topology& t, const std::string& about);

}  // namespace tessera
