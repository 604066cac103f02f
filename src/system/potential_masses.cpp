#include "system/potential_masses.hpp"

#include <fmt/format.h>

#include <cmath>

namespace tessera {

std::vector<std::string> take_file_masses(const std::vector<FileMass>& file, std::vector<double>& mass_of_type,
                                          const std::string& given_by) {
  std::vector<std::string> notes;
  if (mass_of_type.size() < file.size()) mass_of_type.resize(file.size(), 0.0);
  for (std::size_t t = 1; t < file.size(); ++t) {
    const double given = mass_of_type[t], from_file = file[t].mass;
    // A data file that LAMMPS wrote holds the file's mass to all its digits;
    // anything further apart is another number, however close.
    if (given > 0 && std::abs(given - from_file) > 1e-12 * from_file)
      notes.push_back(fmt::format("type {} has mass {:.10g} in {}, but the potential file {} gives {:.10g}: the run "
                                  "uses {:.10g}, as LAMMPS's pair_coeff does",
                                  t, given, given_by, file[t].file, from_file, from_file));
    mass_of_type[t] = from_file;
  }
  return notes;
}

}  // namespace tessera
