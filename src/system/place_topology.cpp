#include "system/place_topology.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "atoms/molecular_fields.hpp"
#include "core/error.hpp"

namespace tessera {

void place_topology(const MolecularTopology& t, const double special_lj[3], AtomStore& a, const std::string& source) {
  enable_molecular_fields();
  a.resize_local(a.nlocal);  // sizes the molecular arrays, zero-filled
  const std::size_t n = a.nlocal;
  const MolecularArrays m = molecular_arrays(a);
  std::unordered_map<AtomId, std::size_t> slot;
  slot.reserve(2 * n);
  for (std::size_t i = 0; i < n; ++i) slot[a.id[i]] = i;
  for (std::size_t i = 0; i < n; ++i) m.molecule[i] = t.molecule.empty() ? 0 : t.molecule[i];

  std::vector<int> nb(n, 0), na(n, 0);
  std::vector<std::vector<AtomId>> bonded(n);  // 1-2 partners, for the specials
  for (const auto& b : t.bonds)
    for (int e = 0; e < 2; ++e) {
      const std::size_t i = slot.at(b.atom[e]);
      if (nb[i] == kMaxBonds)
        throw InputError(fmt::format("{}: atom {} is in more than {} bonds (bond {} is one too many); Tessera "
                                     "stores at most {} bonds per atom",
                                     source, a.id[i], kMaxBonds, b.id, kMaxBonds));
      m.bond_atom[nb[i]][i] = b.atom[1 - e];
      m.bond_type[nb[i]][i] = b.type;
      ++nb[i];
      bonded[i].push_back(b.atom[1 - e]);
    }
  for (const auto& g : t.angles)
    for (int role = 0; role < 3; ++role) {
      const std::size_t i = slot.at(g.atom[role]);
      if (na[i] == kMaxAngles)
        throw InputError(fmt::format("{}: atom {} is in more than {} angles (angle {} is one too many); Tessera "
                                     "stores at most {} angles per atom",
                                     source, a.id[i], kMaxAngles, g.id, kMaxAngles));
      AtomId others[2];
      int k = 0;
      for (int r = 0; r < 3; ++r)
        if (r != role) others[k++] = g.atom[r];
      m.angle_a[na[i]][i] = others[0];
      m.angle_b[na[i]][i] = others[1];
      m.angle_info[na[i]][i] = angle_info(g.type, role);
      ++na[i];
    }

  // Specials: level 1 the bond partners, level 2 their partners, level 3
  // theirs; an atom met at several levels (a ring) counts at the lowest, as
  // in LAMMPS. Only levels whose factor is not 1 are stored: a pair with
  // factor 1 is an ordinary pair.
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<std::pair<AtomId, int>> found;  // (id, level)
    auto seen = [&](AtomId id) {
      if (id == a.id[i]) return true;
      for (const auto& f : found)
        if (f.first == id) return true;
      return false;
    };
    std::vector<AtomId> frontier = {a.id[i]};
    for (int level = 1; level <= 3; ++level) {
      std::vector<AtomId> next;
      for (AtomId from : frontier)
        for (AtomId to : bonded[slot.at(from)])
          if (!seen(to)) {
            found.emplace_back(to, level);
            next.push_back(to);
          }
      frontier = std::move(next);
    }
    std::sort(found.begin(), found.end(), [](const auto& p, const auto& q) {
      return p.second != q.second ? p.second < q.second : p.first < q.first;
    });
    int ns = 0;
    for (const auto& [id, level] : found) {
      const double f = special_lj[level - 1];
      if (f == 1.0) continue;
      if (ns == kMaxSpecial)
        throw InputError(fmt::format("{}: atom {} has more than {} special neighbours (1-2, 1-3 and 1-4 partners "
                                     "whose special_bonds factor is not 1); Tessera stores at most {} per atom",
                                     source, a.id[i], kMaxSpecial, kMaxSpecial));
      m.special[ns++][i] = encode_special(id, level, f == 0.0);
    }
  }
}

}  // namespace tessera
