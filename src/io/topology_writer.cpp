#include "io/topology_writer.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <stdexcept>

#include "io/durable_file.hpp"

namespace tessera {

std::string topology_path(const std::string& trajectory_file) {
  return std::filesystem::path(trajectory_file).replace_extension(".data").string();
}

void write_topology(const std::string& path, const Topology& t, const std::string& about) {
  const std::size_t n = t.id.size();
  if (t.type.size() != n || t.position.size() != 3 * n || t.image.size() != 3 * n || t.mass_of_type.size() < 2)
    throw std::invalid_argument(fmt::format("topology {}: {} ids, {} types, {} coordinates, {} images, {} masses",
                                            path, n, t.type.size(), t.position.size(), t.image.size(),
                                            t.mass_of_type.size()));
  const std::size_t ntypes = t.mass_of_type.size() - 1;
  std::string out;
  out.reserve(96 * n + 512);
  // The title line must not end in a header keyword ("atoms"): readers
  // match header lines by their ending.
  fmt::format_to(std::back_inserter(out), "LAMMPS data file (atom_style molecular) {}, coordinates of step {}\n\n",
                 about, t.step);
  fmt::format_to(std::back_inserter(out), "{} atoms\n{} atom types\n\n", n, ntypes);
  for (int d = 0; d < 3; ++d)
    fmt::format_to(std::back_inserter(out), "{:.17g} {:.17g} {}lo {}hi\n", t.box.lo[d], t.box.hi[d], char('x' + d),
                   char('x' + d));
  out += "\nMasses\n\n";
  for (std::size_t k = 1; k <= ntypes; ++k) fmt::format_to(std::back_inserter(out), "{} {:.17g}\n", k, t.mass_of_type[k]);
  out += "\nAtoms  # molecular\n\n";
  // 17 significant digits: read back (read_data), the coordinates are the
  // run's to the bit.
  for (std::size_t i = 0; i < n; ++i)
    fmt::format_to(std::back_inserter(out), "{} 0 {} {:.17g} {:.17g} {:.17g} {} {} {}\n", t.id[i], t.type[i],
                   t.position[3 * i], t.position[3 * i + 1], t.position[3 * i + 2], t.image[3 * i],
                   t.image[3 * i + 1], t.image[3 * i + 2]);
  const std::string tmp = temporary_name_for(path);
  try {
    write_file_synced(tmp, out.data(), out.size());
    publish(tmp, path);
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove(tmp, ec);  // a full disk must not keep the half-written copy
    throw;
  }
}

}  // namespace tessera
