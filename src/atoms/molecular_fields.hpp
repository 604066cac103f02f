#pragma once
// The molecular fields of atoms/atom_fields.hpp as arrays by slot: the
// capacities, the encodings, and a view of a store's arrays that the
// topology placement, the bonded forces and the list builder index by slot.
#include <cstring>
#include <type_traits>

#include "atoms/atom_fields.hpp"
#include "core/host_device.hpp"
#include "core/types.hpp"

namespace tessera {

// Per-atom capacities: the widths of the registry's molecular quantities.
// They cover linear and lightly branched molecules (a bead-spring chain
// needs 2 bonds, 3 angles and, with special_bonds lj 0 0 0, 6 specials);
// a system that needs more is refused when it is built, naming the atom.
inline constexpr int kMaxBonds = 4;
inline constexpr int kMaxAngles = 6;
inline constexpr int kMaxSpecial = 12;

// An angle slot's info: (type << 2) | role; 0 for an empty slot.
TESSERA_HD inline int angle_info(int type, int role) { return (type << 2) | role; }
TESSERA_HD inline int angle_type_of(int info) { return info >> 2; }
TESSERA_HD inline int angle_role_of(int info) { return info & 3; }

// A special neighbour: the partner's id, its level (1: 1-2, 2: 1-3, 3: 1-4)
// and whether the pair is excluded (special_bonds factor 0), in one id-sized
// word, so that the list builder needs no table to drop excluded pairs.
// Ids stay below 2^56 (atoms/atom_store.hpp's ids are at most 2^40).
inline constexpr int kSpecialLevelShift = 56;
inline constexpr AtomId kSpecialExcludedBit = AtomId(1) << 60;
TESSERA_HD inline AtomId encode_special(AtomId id, int level, bool excluded) {
  return id | (AtomId(level) << kSpecialLevelShift) | (excluded ? kSpecialExcludedBit : 0);
}
TESSERA_HD inline AtomId special_partner(AtomId e) { return e & ((AtomId(1) << kSpecialLevelShift) - 1); }
TESSERA_HD inline int special_level(AtomId e) { return static_cast<int>((e >> kSpecialLevelShift) & 3); }
TESSERA_HD inline bool special_excluded(AtomId e) { return (e & kSpecialExcludedBit) != 0; }

// Atom i's special neighbours with factor 0, which no pair list or pair
// loop may hold (the device's row build and cluster pair loop; the CPU's
// list search, neighbor/verlet_builder.cpp): from its special slots, none
// when the molecular fields are off.
struct ExcludedIds {
  AtomId id[kMaxSpecial];
  int n = 0;
  TESSERA_HD ExcludedIds(AtomId* const* special, int i) {
    if (special[0])
      for (int s = 0; s < kMaxSpecial && special[s][i] != 0; ++s)
        if (special_excluded(special[s][i])) id[n++] = special_partner(special[s][i]);
  }
  // Whether atom `j` (any image of it) is one of them.
  TESSERA_HD bool has(AtomId j) const {
    bool found = false;
    for (int e = 0; e < n; ++e) found = found || id[e] == j;
    return found;
  }
};

// Raw pointers to one store's molecular arrays (locals only), by slot.
struct MolecularArrays {
  AtomId* molecule = nullptr;
  AtomId* bond_atom[kMaxBonds] = {};
  int* bond_type[kMaxBonds] = {};
  AtomId* angle_a[kMaxAngles] = {};
  AtomId* angle_b[kMaxAngles] = {};
  int* angle_info[kMaxAngles] = {};
  AtomId* special[kMaxSpecial] = {};
};

// The molecular arrays of `store` (a host AtomStore or the device's
// DeviceAtoms), each array's first element given by data(array). Null
// pointers when the molecular fields are off.
template <class Store, class Data>
MolecularArrays molecular_arrays(Store& store, Data data) {
  MolecularArrays m;
  for_each_field(store, kFieldMolecular, [&](auto& v, const FieldInfo& f) {
    using T = typename std::decay_t<decltype(v)>::value_type;
    auto* p = const_cast<T*>(data(v));
    const int k = f.component;
    if constexpr (std::is_same_v<T, AtomId>) {
      if (std::strcmp(f.name, "molecule") == 0) m.molecule = p;
      if (std::strcmp(f.name, "bond_atom") == 0) m.bond_atom[k] = p;
      if (std::strcmp(f.name, "angle_atom_a") == 0) m.angle_a[k] = p;
      if (std::strcmp(f.name, "angle_atom_b") == 0) m.angle_b[k] = p;
      if (std::strcmp(f.name, "special") == 0) m.special[k] = p;
    } else if constexpr (std::is_same_v<T, int>) {
      if (std::strcmp(f.name, "bond_type") == 0) m.bond_type[k] = p;
      if (std::strcmp(f.name, "angle_info") == 0) m.angle_info[k] = p;
    }
  });
  return m;
}

// ... of a host store (std::vector members).
template <class Store>
MolecularArrays molecular_arrays(Store& store) {
  return molecular_arrays(store, [](auto& v) { return v.data(); });
}

}  // namespace tessera
