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
  // virial): atoms that arrive or are made start at zero.
  kFieldDerived = 1u << 3,
};

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
  F(virial, double, "virial", 0, 1, kFieldDerived)

// Calls f(array, FieldInfo) for each field of `store` that has any of the
// roles in `mask`. `store` is any struct with one member per entry (the
// host's AtomStore, the device's DeviceAtoms, a scratch set of arrays), so
// the same walk serves host vectors and device vectors; f is generic over
// the array type.
template <class Store, class F>
void for_each_field(Store& store, unsigned mask, F&& f) {
#define TESSERA_VISIT_FIELD(member, T, name, component, width, roles)            \
  if (((roles) & mask) != 0) f(store.member, FieldInfo{#member, name, component, width, roles});
  TESSERA_ATOM_FIELDS(TESSERA_VISIT_FIELD)
#undef TESSERA_VISIT_FIELD
}

// The same walk over the same fields of two stores side by side:
// f(a.array, b.array, FieldInfo).
template <class A, class B, class F>
void zip_fields(A& a, B& b, unsigned mask, F&& f) {
#define TESSERA_ZIP_FIELD(member, T, name, component, width, roles)              \
  if (((roles) & mask) != 0) f(a.member, b.member, FieldInfo{#member, name, component, width, roles});
  TESSERA_ATOM_FIELDS(TESSERA_ZIP_FIELD)
#undef TESSERA_ZIP_FIELD
}

// Bytes per atom of the fields with any of the roles in `mask` (a migration
// record's size).
constexpr std::size_t field_bytes(unsigned mask) {
  std::size_t bytes = 0;
#define TESSERA_FIELD_BYTES(member, T, name, component, width, roles) \
  if (((roles) & mask) != 0) bytes += sizeof(T);
  TESSERA_ATOM_FIELDS(TESSERA_FIELD_BYTES)
#undef TESSERA_FIELD_BYTES
  return bytes;
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
