#include "io/topology_gather.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include "atoms/molecular_fields.hpp"

namespace tessera {

namespace {

// Sorts rows of `width` integers: type first in a row, ordered by the
// columns after it (`key` gives their order), then by type.
template <std::size_t W>
void sort_rows(std::vector<std::int64_t>& flat, const std::array<int, W - 1>& key) {
  if (flat.empty()) return;  // memcpy from an empty vector's null data() is undefined
  std::vector<std::array<std::int64_t, W>> rows(flat.size() / W);
  std::memcpy(rows.data(), flat.data(), flat.size() * sizeof(std::int64_t));
  std::sort(rows.begin(), rows.end(), [&](const auto& p, const auto& q) {
    for (int k : key)
      if (p[k] != q[k]) return p[k] < q[k];
    return p[0] < q[0];
  });
  std::memcpy(flat.data(), rows.data(), flat.size() * sizeof(std::int64_t));
}

void sort_connectivity(Connectivity& c) {
  sort_rows<3>(c.bonds, {1, 2});
  sort_rows<4>(c.angles, {2, 1, 3});
}

std::vector<char> bytes_of(const std::vector<std::int64_t>& v) {
  const char* p = reinterpret_cast<const char*>(v.data());
  return std::vector<char>(p, p + v.size() * sizeof(std::int64_t));
}

void append(std::vector<std::int64_t>& to, const std::vector<char>& bytes) {
  const std::size_t at = to.size();
  to.resize(at + bytes.size() / sizeof(std::int64_t));
  if (!bytes.empty()) std::memcpy(to.data() + at, bytes.data(), bytes.size());
}

}  // namespace

Connectivity local_connectivity(const AtomStore& a) {
  Connectivity c;
  if (!molecular_fields_on()) return c;
  const MolecularArrays m = molecular_arrays(a);
  for (std::size_t i = 0; i < a.nlocal; ++i) {
    const AtomId me = a.id[i];
    for (int s = 0; s < kMaxBonds; ++s) {
      const AtomId other = m.bond_atom[s][i];
      if (m.bond_type[s][i] != 0 && me < other) c.bonds.insert(c.bonds.end(), {m.bond_type[s][i], me, other});
    }
    for (int s = 0; s < kMaxAngles; ++s) {
      const int info = m.angle_info[s][i];
      if (info != 0 && angle_role_of(info) == 1)
        c.angles.insert(c.angles.end(), {angle_type_of(info), m.angle_a[s][i], me, m.angle_b[s][i]});
    }
  }
  sort_connectivity(c);
  return c;
}

Connectivity gather_connectivity(const AtomStore& a, const Communicator& comm) {
  const Connectivity mine = local_connectivity(a);
  const auto bonds = comm.gather_to_root(bytes_of(mine.bonds));
  const auto angles = comm.gather_to_root(bytes_of(mine.angles));
  Connectivity all;
  if (comm.rank() != 0) return all;
  for (const auto& b : bonds) append(all.bonds, b);
  for (const auto& g : angles) append(all.angles, g);
  sort_connectivity(all);
  return all;
}

}  // namespace tessera
