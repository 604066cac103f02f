#include <algorithm>

#include "system/build_system.hpp"

namespace tessera {

BuiltSystem build_lattice(const LatticeSpec& l, int ntypes, const std::vector<double>& masses) {
  static const double sc[1][3] = {{0, 0, 0}};
  static const double bcc[2][3] = {{0, 0, 0}, {0.5, 0.5, 0.5}};
  static const double fcc[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
  const double(*basis)[3] = l.style == "fcc" ? fcc : (l.style == "bcc" ? bcc : sc);
  const int nb = l.style == "fcc" ? 4 : (l.style == "bcc" ? 2 : 1);

  BuiltSystem s;
  for (int d = 0; d < 3; ++d) {
    s.box.lo[d] = 0;
    s.box.hi[d] = l.cells[d] * l.constant;
  }
  const std::size_t n = static_cast<std::size_t>(nb) * l.cells[0] * l.cells[1] * l.cells[2];
  AtomStore& a = s.atoms;
  a.ntypes = ntypes;
  a.mass_of_type = masses;
  a.resize_local(n);
  std::size_t k = 0;
  for (int cz = 0; cz < l.cells[2]; ++cz)
    for (int cy = 0; cy < l.cells[1]; ++cy)
      for (int cx = 0; cx < l.cells[0]; ++cx)
        for (int b = 0; b < nb; ++b, ++k) {
          a.id[k] = static_cast<AtomId>(k + 1);
          a.type[k] = l.basis_types.empty() ? 1 : l.basis_types[b];
          a.x[k] = (cx + basis[b][0]) * l.constant;
          a.y[k] = (cy + basis[b][1]) * l.constant;
          a.z[k] = (cz + basis[b][2]) * l.constant;
        }
  std::fill(a.vx.begin(), a.vx.end(), 0.0);
  std::fill(a.vy.begin(), a.vy.end(), 0.0);
  std::fill(a.vz.begin(), a.vz.end(), 0.0);
  s.natoms_total = static_cast<long long>(n);
  return s;
}

}  // namespace tessera
