#pragma once
// A host reference of the per-atom bonded design (docs/wip-molecules.md),
// for one rank with no ghosts: the data file's global bond and angle lists
// distributed onto per-atom slots (every atom holds each bond and angle it
// is in), and the bonded forces computed per atom, each atom summing only
// the force on itself, partners found through a global-id map with the
// minimum image of a periodic box.
// Work in progress (issue 29): the engine's Force will read the slots from
// the field registry and find partners among ghosts; this is the model it
// must agree with, and what the tests check the design against now.
#include <fmt/format.h>

#include <cmath>
#include <unordered_map>
#include <vector>

#include "bonded/bonded_force.hpp"
#include "core/error.hpp"
#include "core/types.hpp"
#include "domain/box.hpp"
#include "system/build_system.hpp"

namespace tessera {

// Per local atom k, slot s < capacity: a bond's type (0: empty slot) and
// partner's global id (-1: empty); an angle's type and its three global
// ids in LAMMPS order (atom 2 the vertex), one of them atom k itself.
struct PerAtomTopology {
  int bond_capacity = 0, angle_capacity = 0;
  std::vector<int> bond_type;
  std::vector<AtomId> bond_partner;
  std::vector<int> angle_type;
  std::vector<AtomId> angle_atoms;  // 3 per slot
};

// Throws InputError naming the atom whose bonds or angles exceed capacity.
inline PerAtomTopology distribute_topology(const MolecularTopology& topo, const std::vector<AtomId>& local_ids,
                                           int bond_capacity, int angle_capacity) {
  PerAtomTopology t;
  t.bond_capacity = bond_capacity;
  t.angle_capacity = angle_capacity;
  const std::size_t n = local_ids.size();
  t.bond_type.assign(n * bond_capacity, 0);
  t.bond_partner.assign(n * bond_capacity, -1);
  t.angle_type.assign(n * angle_capacity, 0);
  t.angle_atoms.assign(n * angle_capacity * 3, -1);
  std::unordered_map<AtomId, std::size_t> local;
  for (std::size_t k = 0; k < n; ++k) local.emplace(local_ids[k], k);
  std::vector<int> nb(n, 0), na(n, 0);
  for (const auto& b : topo.bonds)
    for (int q = 0; q < 2; ++q) {
      const auto it = local.find(b.atom[q]);
      if (it == local.end()) continue;  // another rank's atom
      const std::size_t k = it->second;
      if (nb[k] == bond_capacity)
        throw InputError(
            fmt::format("atom {} is in more than {} bonds (bond {} is one too many)", b.atom[q], bond_capacity, b.id));
      const std::size_t s = k * bond_capacity + nb[k]++;
      t.bond_type[s] = b.type;
      t.bond_partner[s] = b.atom[1 - q];
    }
  for (const auto& a : topo.angles)
    for (int q = 0; q < 3; ++q) {
      const auto it = local.find(a.atom[q]);
      if (it == local.end()) continue;
      const std::size_t k = it->second;
      if (na[k] == angle_capacity)
        throw InputError(fmt::format("atom {} is in more than {} angles (angle {} is one too many)", a.atom[q],
                                     angle_capacity, a.id));
      const std::size_t s = k * angle_capacity + na[k]++;
      t.angle_type[s] = a.type;
      for (int r = 0; r < 3; ++r) t.angle_atoms[3 * s + r] = a.atom[r];
    }
  return t;
}

// Per-atom results of bonded_forces_host, summed over slots in slot order.
struct BondedResult {
  std::vector<double> fx, fy, fz, pe, virial;
  int stretched = 0;  // FENE bonds clamped as LAMMPS does (kStretched)
};

// x, y, z, id: the local atoms (no ghosts). bond_params / angle_params:
// indexed by type (0 unused). Throws std::runtime_error naming the bond and
// its atoms when a bond is broken (kBroken) or a partner is missing.
template <class BondStyle, class AngleStyle>
BondedResult bonded_forces_host(const std::vector<double>& x, const std::vector<double>& y,
                                const std::vector<double>& z, const std::vector<AtomId>& id, const Box& box,
                                const PerAtomTopology& t, const std::vector<typename BondStyle::Params>& bond_params,
                                const std::vector<typename AngleStyle::Params>& angle_params) {
  const std::size_t n = id.size();
  std::unordered_map<AtomId, std::size_t> index;  // the global-to-local map
  for (std::size_t k = 0; k < n; ++k) index.emplace(id[k], k);
  auto find = [&](AtomId g, AtomId from) {
    const auto it = index.find(g);
    if (it == index.end())
      throw std::runtime_error(fmt::format("atom {} has a bonded partner {} that is not here", from, g));
    return it->second;
  };
  // d = x_j - x_i under the minimum image.
  auto delta = [&](std::size_t i, std::size_t j) {
    double d[3] = {x[j] - x[i], y[j] - y[i], z[j] - z[i]};
    for (int c = 0; c < 3; ++c) {
      const double L = box.length(c);
      d[c] -= L * std::nearbyint(d[c] / L);
    }
    return Vec3<double>{d[0], d[1], d[2]};
  };
  BondedResult r;
  r.fx.assign(n, 0);
  r.fy.assign(n, 0);
  r.fz.assign(n, 0);
  r.pe.assign(n, 0);
  r.virial.assign(n, 0);
  for (std::size_t k = 0; k < n; ++k) {
    for (int s = 0; s < t.bond_capacity; ++s) {
      const std::size_t slot = k * t.bond_capacity + s;
      if (t.bond_type[slot] == 0) continue;
      const std::size_t j = find(t.bond_partner[slot], id[k]);
      const Vec3<double> dj = delta(k, j);
      const Vec3<double> d{-dj.x, -dj.y, -dj.z};  // x_k - x_j
      Vec3<double> f;
      double e, w;
      const BondStatus st = bond_force_on_self<BondStyle>(d, bond_params[t.bond_type[slot]], f, e, w);
      if (st == BondStatus::kBroken)
        throw std::runtime_error(fmt::format("bond of atoms {} and {} is stretched to {} (FENE R0 or beyond)", id[k],
                                             id[j], std::sqrt(dot3(d, d))));
      if (st == BondStatus::kStretched) ++r.stretched;
      r.fx[k] += f.x;
      r.fy[k] += f.y;
      r.fz[k] += f.z;
      r.pe[k] += e;
      r.virial[k] += w;
    }
    for (int s = 0; s < t.angle_capacity; ++s) {
      const std::size_t slot = k * t.angle_capacity + s;
      if (t.angle_type[slot] == 0) continue;
      const AtomId* g = &t.angle_atoms[3 * slot];
      const int role = g[0] == id[k] ? 0 : (g[1] == id[k] ? 1 : 2);
      // Positions relative to the vertex, each under the minimum image
      // from this atom's view: vertex first, then the two ends from it.
      const std::size_t v = role == 1 ? k : find(g[1], id[k]);
      const std::size_t a1 = role == 0 ? k : find(g[0], id[k]);
      const std::size_t a3 = role == 2 ? k : find(g[2], id[k]);
      const Vec3<double> d1 = delta(v, a1), d2 = delta(v, a3);
      Vec3<double> f;
      double e, w;
      angle_force_on_self<AngleStyle>(role, d1, d2, angle_params[t.angle_type[slot]], f, e, w);
      r.fx[k] += f.x;
      r.fy[k] += f.y;
      r.fz[k] += f.z;
      r.pe[k] += e;
      r.virial[k] += w;
    }
  }
  return r;
}

}  // namespace tessera
