#pragma once
// The per-atom field registry: every per-atom array is declared once, in
// TESSERA_ATOM_FIELDS below, with what it does. The host's AtomStore and the
// device's DeviceAtoms get one array per entry, and everything that resizes,
// migrates, sorts, uploads, downloads or checkpoints atoms walks the entries
// with for_each_field, picking them by role. A new per-atom quantity (a
// molecule id, a charge, a many-body intermediate) is one line here; the
// stores, the halo's migration records, the sorts and the host-device
// copies then carry it without further edits.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "core/types.hpp"

namespace tessera {

// What a field takes part in (bit flags; a field has any combination).
enum FieldRole : unsigned {
  // Stored for ghosts too: the array holds locals, then ghosts. Every other
  // field holds locals only.
  kFieldGhost = 1u << 0,
  // Carried by an atom that moves to another rank (its migration record).
  kFieldMigrates = 1u << 1,
  // Written into checkpoints (and read back on restart).
  kFieldCheckpointed = 1u << 2,
  // Recomputed from the others every step (forces, per-atom energy and
  // virial): atoms that arrive or are made start at zero on the host; the
  // device leaves them unwritten, since a force computation writes them
  // before anything reads them.
  kFieldDerived = 1u << 3,
  // Molecular topology (bonds, angles, special neighbours; issue 29): present
  // only in a process that simulates molecules (molecular_fields_on()).
  // Elsewhere every walk skips it, so pair-only runs carry, sort, migrate
  // and checkpoint exactly what they did before molecules existed.
  kFieldMolecular = 1u << 4,
  // A many-body potential's per-atom intermediate (EAM's F'(rho)): present
  // only in a process that runs one (manybody_fields_on()), by the same rule.
  kFieldManyBody = 1u << 5,
};

// Whether this process's stores hold the molecular fields. Off until a
// system with bonds or angles is built (or a checkpoint with them read),
// then on for the rest of the process: one switch for every store, host or
// device, so no two stores can disagree about which fields exist. A store
// made while it was off must be resized before use once it is on.
inline bool& molecular_fields_switch() {
  static bool on = false;
  return on;
}
inline bool molecular_fields_on() { return molecular_fields_switch(); }
inline void enable_molecular_fields() { molecular_fields_switch() = true; }
// The same switch for the many-body fields: on once a many-body potential
// is made (Simulation, before the forces are listed).
inline bool& manybody_fields_switch() {
  static bool on = false;
  return on;
}
inline bool manybody_fields_on() { return manybody_fields_switch(); }
inline void enable_manybody_fields() { manybody_fields_switch() = true; }
// A field with these roles exists in this process's stores.
inline bool field_present(unsigned roles) {
  return ((roles & kFieldMolecular) == 0 || molecular_fields_on()) &&
         ((roles & kFieldManyBody) == 0 || manybody_fields_on());
}

// Every field, any role: the mask to pass for "all of them".
inline constexpr unsigned kAnyField = ~0u;

// One array of the registry: `name` is the quantity it is part of
// (checkpoints and outputs use that name), `component` its index among the
// `width` arrays of that quantity (x, y, z of "position").
struct FieldInfo {
  const char* member;  // the array's name in AtomStore and DeviceAtoms
  const char* name;
  int component;
  int width;
  unsigned roles;
  bool has(unsigned mask) const { return (roles & mask) != 0; }
};

// F(member, element type, quantity, component, width, roles).
// Order matters only for readability: no sum runs over fields.
#define TESSERA_ATOM_FIELDS(F)                                                                 \
  F(id, AtomId, "id", 0, 1, kFieldGhost | kFieldMigrates | kFieldCheckpointed)                  \
  F(type, int, "type", 0, 1, kFieldGhost | kFieldMigrates | kFieldCheckpointed)                 \
  F(x, double, "position", 0, 3, kFieldGhost | kFieldMigrates | kFieldCheckpointed)             \
  F(y, double, "position", 1, 3, kFieldGhost | kFieldMigrates | kFieldCheckpointed)             \
  F(z, double, "position", 2, 3, kFieldGhost | kFieldMigrates | kFieldCheckpointed)             \
  F(vx, double, "velocity", 0, 3, kFieldMigrates | kFieldCheckpointed)                          \
  F(vy, double, "velocity", 1, 3, kFieldMigrates | kFieldCheckpointed)                          \
  F(vz, double, "velocity", 2, 3, kFieldMigrates | kFieldCheckpointed)                          \
  F(fx, double, "force", 0, 3, kFieldDerived | kFieldCheckpointed)                              \
  F(fy, double, "force", 1, 3, kFieldDerived | kFieldCheckpointed)                              \
  F(fz, double, "force", 2, 3, kFieldDerived | kFieldCheckpointed)                              \
  F(ix, int, "image", 0, 3, kFieldMigrates | kFieldCheckpointed)                                \
  F(iy, int, "image", 1, 3, kFieldMigrates | kFieldCheckpointed)                                \
  F(iz, int, "image", 2, 3, kFieldMigrates | kFieldCheckpointed)                                \
  F(pe, double, "potential_energy", 0, 1, kFieldDerived)                                        \
  F(virial, double, "virial", 0, 1, kFieldDerived)                                              \
  TESSERA_MANYBODY_FIELDS(F)                                                                    \
  TESSERA_MOLECULAR_FIELDS(F)

// A many-body potential's intermediates (manybody/): EAM's F'(rho), which
// its first pass writes for the locals and the step forwards to the ghosts.
#define TESSERA_MANYBODY_FIELDS(F) \
  F(embedding_derivative, double, "embedding_derivative", 0, 1, kFieldGhost | kFieldDerived | kFieldManyBody)

// The molecular topology, stored on every atom it involves (docs/algorithms.md,
// "Bonds, angles and special pairs"): the atom's molecule; its bonds as the
// partner's id and the bond type (type 0: an empty slot); its angles as the
// ids of the other two atoms, in the angle's order, and (type << 2) | role,
// role 0, 1 or 2 being this atom's place in the angle, 1 the vertex; its
// special neighbours (molecular/special_pairs.hpp) as encoded ids. The
// widths are the capacities of atoms/molecular_fields.hpp.
#define TESSERA_MOL(F, member, T, name, k, width) \
  F(member, T, name, k, width, kFieldMigrates | kFieldCheckpointed | kFieldMolecular)
#define TESSERA_MOLECULAR_FIELDS(F)                                                                             \
  TESSERA_MOL(F, molecule, AtomId, "molecule", 0, 1)                                                            \
  TESSERA_MOL(F, bond_atom0, AtomId, "bond_atom", 0, 4) TESSERA_MOL(F, bond_atom1, AtomId, "bond_atom", 1, 4)    \
  TESSERA_MOL(F, bond_atom2, AtomId, "bond_atom", 2, 4) TESSERA_MOL(F, bond_atom3, AtomId, "bond_atom", 3, 4)    \
  TESSERA_MOL(F, bond_type0, int, "bond_type", 0, 4) TESSERA_MOL(F, bond_type1, int, "bond_type", 1, 4)          \
  TESSERA_MOL(F, bond_type2, int, "bond_type", 2, 4) TESSERA_MOL(F, bond_type3, int, "bond_type", 3, 4)          \
  TESSERA_MOL(F, angle_a0, AtomId, "angle_atom_a", 0, 6) TESSERA_MOL(F, angle_a1, AtomId, "angle_atom_a", 1, 6)  \
  TESSERA_MOL(F, angle_a2, AtomId, "angle_atom_a", 2, 6) TESSERA_MOL(F, angle_a3, AtomId, "angle_atom_a", 3, 6)  \
  TESSERA_MOL(F, angle_a4, AtomId, "angle_atom_a", 4, 6) TESSERA_MOL(F, angle_a5, AtomId, "angle_atom_a", 5, 6)  \
  TESSERA_MOL(F, angle_b0, AtomId, "angle_atom_b", 0, 6) TESSERA_MOL(F, angle_b1, AtomId, "angle_atom_b", 1, 6)  \
  TESSERA_MOL(F, angle_b2, AtomId, "angle_atom_b", 2, 6) TESSERA_MOL(F, angle_b3, AtomId, "angle_atom_b", 3, 6)  \
  TESSERA_MOL(F, angle_b4, AtomId, "angle_atom_b", 4, 6) TESSERA_MOL(F, angle_b5, AtomId, "angle_atom_b", 5, 6)  \
  TESSERA_MOL(F, angle_info0, int, "angle_info", 0, 6) TESSERA_MOL(F, angle_info1, int, "angle_info", 1, 6)      \
  TESSERA_MOL(F, angle_info2, int, "angle_info", 2, 6) TESSERA_MOL(F, angle_info3, int, "angle_info", 3, 6)      \
  TESSERA_MOL(F, angle_info4, int, "angle_info", 4, 6) TESSERA_MOL(F, angle_info5, int, "angle_info", 5, 6)      \
  TESSERA_MOL(F, special0, AtomId, "special", 0, 12) TESSERA_MOL(F, special1, AtomId, "special", 1, 12)          \
  TESSERA_MOL(F, special2, AtomId, "special", 2, 12) TESSERA_MOL(F, special3, AtomId, "special", 3, 12)          \
  TESSERA_MOL(F, special4, AtomId, "special", 4, 12) TESSERA_MOL(F, special5, AtomId, "special", 5, 12)          \
  TESSERA_MOL(F, special6, AtomId, "special", 6, 12) TESSERA_MOL(F, special7, AtomId, "special", 7, 12)          \
  TESSERA_MOL(F, special8, AtomId, "special", 8, 12) TESSERA_MOL(F, special9, AtomId, "special", 9, 12)          \
  TESSERA_MOL(F, special10, AtomId, "special", 10, 12) TESSERA_MOL(F, special11, AtomId, "special", 11, 12)

// Calls f(array, FieldInfo) for each field of `store` that has any of the
// roles in `mask`. `store` is any struct with one member per entry (the
// host's AtomStore, the device's DeviceAtoms, a scratch set of arrays), so
// the same walk serves host vectors and device vectors; f is generic over
// the array type.
template <class Store, class F>
void for_each_field(Store& store, unsigned mask, F&& f) {
#define TESSERA_VISIT_FIELD(member, T, name, component, width, roles)            \
  if (((roles) & mask) != 0 && field_present(roles)) f(store.member, FieldInfo{#member, name, component, width, roles});
  TESSERA_ATOM_FIELDS(TESSERA_VISIT_FIELD)
#undef TESSERA_VISIT_FIELD
}

// The same walk over the same fields of two stores side by side:
// f(a.array, b.array, FieldInfo).
template <class A, class B, class F>
void zip_fields(A& a, B& b, unsigned mask, F&& f) {
#define TESSERA_ZIP_FIELD(member, T, name, component, width, roles)              \
  if (((roles) & mask) != 0 && field_present(roles))                           \
    f(a.member, b.member, FieldInfo{#member, name, component, width, roles});
  TESSERA_ATOM_FIELDS(TESSERA_ZIP_FIELD)
#undef TESSERA_ZIP_FIELD
}

// Bytes per atom of the fields with any of the roles in `mask` (a migration
// record's size), with or without the molecular and the many-body fields.
constexpr std::size_t field_bytes(unsigned mask, bool molecular, bool manybody = false) {
  std::size_t bytes = 0;
#define TESSERA_FIELD_BYTES(member, T, name, component, width, roles)                              \
  if (((roles) & mask) != 0 && (molecular || ((roles) & kFieldMolecular) == 0) &&                  \
      (manybody || ((roles) & kFieldManyBody) == 0))                                               \
    bytes += sizeof(T);
  TESSERA_ATOM_FIELDS(TESSERA_FIELD_BYTES)
#undef TESSERA_FIELD_BYTES
  return bytes;
}
// ... of the fields this process's stores hold.
inline std::size_t field_bytes(unsigned mask) {
  return field_bytes(mask, molecular_fields_on(), manybody_fields_on());
}

// Whether a periodic image shifts `quantity` by the box (positions only):
// the halo adds a swap's shift to it; every other quantity travels as is.
inline bool moves_with_image(const char* quantity) { return std::strcmp(quantity, "position") == 0; }

// The arrays of quantity `name` that a force may forward between passes
// (ghost-stored, of doubles), in component order, each as data(array): a
// raw pointer into the host's or the device's vector. Empty when the
// registry has no such quantity.
template <class Store, class Data>
std::vector<double*> forwardable_arrays(Store& store, const char* name, Data data) {
  std::vector<double*> out;
  for_each_field(store, kFieldGhost, [&](auto& v, const FieldInfo& f) {
    using T = typename std::decay_t<decltype(v)>::value_type;
    if constexpr (std::is_same_v<T, double>)
      if (std::strcmp(f.name, name) == 0) out.push_back(data(v));
  });
  return out;
}

}  // namespace tessera
