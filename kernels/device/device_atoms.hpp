#pragma once
// The device mirror of AtomStore: the same structure of arrays, locals in
// [0, nlocal) and ghosts after them. Every copy between host and device goes
// through upload_atoms / download_atoms, so a copy is never hidden.
#include <climits>
#include <stdexcept>
#include <string>
#include <vector>

#include "atoms/atom_store.hpp"
#include "device/exec_policy.hpp"

namespace tessera::device {
inline namespace TESSERA_DEVICE_SYSTEM_NS {

struct DeviceAtoms {
  int nlocal = 0;
  int nghost = 0;
  int ntypes = 1;
  dvec<double> mass_of_type;  // index 0 unused, as in AtomStore

  // One array per entry of the field registry (atoms/atom_fields.hpp),
  // as in AtomStore: the ghost fields hold locals then ghosts.
#define TESSERA_DEVICE_FIELD(member, T, name, component, width, roles) dvec<T> member;
  TESSERA_ATOM_FIELDS(TESSERA_DEVICE_FIELD)
#undef TESSERA_DEVICE_FIELD

  int nall() const { return nlocal + nghost; }

  // Sizes the ghost part of the shared arrays, keeping the locals; `s`
  // queues their users.
  void resize_ghosts(const DeviceStream& s, int n) {
    nghost = n;
    const std::size_t all = static_cast<std::size_t>(nlocal) + n;
    for_each_field(*this, kFieldGhost, [&](auto& v, FieldInfo) { resize(s, v, all); });
  }
  // Room for n ghosts in the shared arrays, the sizes unchanged.
  void reserve_ghosts(const DeviceStream& s, int n) {
    const std::size_t all = static_cast<std::size_t>(nlocal) + n;
    for_each_field(*this, kFieldGhost, [&](auto& v, FieldInfo) { reserve(s, v, all); });
  }
};

namespace detail {

template <class T>
void to_device(const DeviceStream& s, const std::vector<T>& h, std::size_t n, dvec<T>& d, const char* name) {
  if (h.size() < n)
    throw std::invalid_argument(std::string("upload_atoms: AtomStore::") + name + " is too short");
  synchronize(s);
  d.assign(h.begin(), h.begin() + static_cast<long>(n));
}

}  // namespace detail

// Host to device: every array, ghosts included (host -> device copies), in
// the order of stream `s`.
inline void upload_atoms(const DeviceStream& s, const AtomStore& a, DeviceAtoms& d) {
  // Atom indices are int on the device, as in the neighbour list.
  if (a.nall() > static_cast<std::size_t>(INT_MAX))
    throw std::invalid_argument("upload_atoms: more atoms on one rank than an int can index");
  const std::size_t nl = a.nlocal, na = a.nall();
  d.nlocal = static_cast<int>(nl);
  d.nghost = static_cast<int>(a.nghost);
  d.ntypes = a.ntypes;
  detail::to_device(s, a.mass_of_type, a.mass_of_type.size(), d.mass_of_type, "mass_of_type");
  zip_fields(a, d, kAnyField, [&](const auto& h, auto& v, FieldInfo f) {
    detail::to_device(s, h, f.has(kFieldGhost) ? na : nl, v, f.member);
  });
}

namespace detail {

// Host to device: three local arrays, keeping the ghosts.
inline void upload_locals(const DeviceStream& s, std::size_t host_nlocal, DeviceAtoms& d,
                          const std::vector<double>* const (&h)[3], dvec<double>* const (&dv)[3], const char* what) {
  if (host_nlocal != static_cast<std::size_t>(d.nlocal))
    throw std::invalid_argument(std::string(what) + ": the host holds another number of atoms than the device");
  synchronize(s);
  for (int k = 0; k < 3; ++k) thrust::copy(h[k]->begin(), h[k]->begin() + d.nlocal, dv[k]->begin());
}

}  // namespace detail

// Host to device: local positions only, keeping the ghosts (restart).
inline void upload_positions(const DeviceStream& s, const AtomStore& a, DeviceAtoms& d) {
  detail::upload_locals(s, a.nlocal, d, {&a.x, &a.y, &a.z}, {&d.x, &d.y, &d.z}, "upload_positions");
}

// Host to device: local forces only (restart).
inline void upload_forces(const DeviceStream& s, const AtomStore& a, DeviceAtoms& d) {
  detail::upload_locals(s, a.nlocal, d, {&a.fx, &a.fy, &a.fz}, {&d.fx, &d.fy, &d.fz}, "upload_forces");
}

// Device to host: every array, ghosts included (device -> host copies),
// once what `s` queued has run.
inline void download_atoms(const DeviceStream& s, const DeviceAtoms& d, AtomStore& a) {
  const std::size_t nl = d.nlocal, na = d.nall();
  a.nlocal = nl;
  a.nghost = d.nghost;
  a.ntypes = d.ntypes;
  to_host(s, d.mass_of_type, d.mass_of_type.size(), a.mass_of_type);
  zip_fields(d, a, kAnyField, [&](const auto& v, auto& h, FieldInfo f) {
    to_host(s, v, f.has(kFieldGhost) ? na : nl, h);
  });
}

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
