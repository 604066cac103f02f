#include "io/topology_writer.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <stdexcept>

#include "io/durable_file.hpp"

namespace tessera {

std::string topology_path(const std::string& trajectory_file) {
  return std::filesystem::path(trajectory_file).replace_extension(".data").string();
}

void write_topology(const std::string& path, const Topology& t, const std::string& about) {
  const std::size_t n = t.id.size();
  if (t.type.size() != n || t.position.size() != 3 * n || t.image.size() != 3 * n || t.mass_of_type.size() < 2 ||
      (!t.molecule.empty() && t.molecule.size() != n) || (!t.velocity.empty() && t.velocity.size() != 3 * n) ||
      t.bonds.size() % 3 != 0 || t.angles.size() % 4 != 0)
    throw std::invalid_argument(fmt::format(
        "topology {}: {} ids, {} types, {} coordinates, {} images, {} masses, {} molecule ids, {} velocities, "
        "{} bond and {} angle numbers",
        path, n, t.type.size(), t.position.size(), t.image.size(), t.mass_of_type.size(), t.molecule.size(),
        t.velocity.size(), t.bonds.size(), t.angles.size()));
  const std::size_t nbonds = t.bonds.size() / 3, nangles = t.angles.size() / 4;
  const std::size_t ntypes = t.mass_of_type.size() - 1;
  std::string out;
  out.reserve(96 * n + 512);
  // The title line must not end in a header keyword ("atoms"): readers
  // match header lines by their ending.
  fmt::format_to(std::back_inserter(out), "LAMMPS data file (atom_style molecular) {}, coordinates of step {}\n\n",
                 about, t.step);
  fmt::format_to(std::back_inserter(out), "{} atoms\n{} atom types\n", n, ntypes);
  if (t.nbond_types > 0 || nbonds > 0)
    fmt::format_to(std::back_inserter(out), "{} bonds\n{} bond types\n", nbonds, t.nbond_types);
  if (t.nangle_types > 0 || nangles > 0)
    fmt::format_to(std::back_inserter(out), "{} angles\n{} angle types\n", nangles, t.nangle_types);
  out += "\n";
  for (int d = 0; d < 3; ++d)
    fmt::format_to(std::back_inserter(out), "{:.17g} {:.17g} {}lo {}hi\n", t.box.lo[d], t.box.hi[d], char('x' + d),
                   char('x' + d));
  out += "\nMasses\n\n";
  for (std::size_t k = 1; k <= ntypes; ++k) fmt::format_to(std::back_inserter(out), "{} {:.17g}\n", k, t.mass_of_type[k]);
  auto coeffs = [&](const char* section, const std::string& style, const std::vector<std::vector<double>>& rows) {
    if (rows.size() < 2) return;
    fmt::format_to(std::back_inserter(out), "\n{} # {}\n\n", section, style);
    for (std::size_t k = 1; k < rows.size(); ++k)
      fmt::format_to(std::back_inserter(out), "{} {:.17g}\n", k, fmt::join(rows[k], " "));
  };
  coeffs("Bond Coeffs", t.bond_style, t.bond_coeffs);
  coeffs("Angle Coeffs", t.angle_style, t.angle_coeffs);
  out += "\nAtoms  # molecular\n\n";
  // 17 significant digits: read back (read_data), the coordinates are the
  // run's to the bit.
  for (std::size_t i = 0; i < n; ++i)
    fmt::format_to(std::back_inserter(out), "{} {} {} {:.17g} {:.17g} {:.17g} {} {} {}\n", t.id[i],
                   t.molecule.empty() ? 0 : t.molecule[i], t.type[i], t.position[3 * i], t.position[3 * i + 1],
                   t.position[3 * i + 2], t.image[3 * i], t.image[3 * i + 1], t.image[3 * i + 2]);
  if (!t.velocity.empty()) {
    out += "\nVelocities\n\n";
    for (std::size_t i = 0; i < n; ++i)
      fmt::format_to(std::back_inserter(out), "{} {:.17g} {:.17g} {:.17g}\n", t.id[i], t.velocity[3 * i],
                     t.velocity[3 * i + 1], t.velocity[3 * i + 2]);
  }
  if (nbonds > 0) {
    out += "\nBonds\n\n";
    for (std::size_t k = 0; k < nbonds; ++k)
      fmt::format_to(std::back_inserter(out), "{} {} {} {}\n", k + 1, t.bonds[3 * k], t.bonds[3 * k + 1],
                     t.bonds[3 * k + 2]);
  }
  if (nangles > 0) {
    out += "\nAngles\n\n";
    for (std::size_t k = 0; k < nangles; ++k)
      fmt::format_to(std::back_inserter(out), "{} {} {} {} {}\n", k + 1, t.angles[4 * k], t.angles[4 * k + 1],
                     t.angles[4 * k + 2], t.angles[4 * k + 3]);
  }
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
