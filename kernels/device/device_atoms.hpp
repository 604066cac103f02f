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

  // Local and ghost.
  dvec<AtomId> id;
  dvec<int> type;
  dvec<double> x, y, z;
  // Local only.
  dvec<double> vx, vy, vz;
  dvec<double> fx, fy, fz;
  dvec<int> ix, iy, iz;
  dvec<double> pe, virial;

  int nall() const { return nlocal + nghost; }

  // Sizes the ghost part of the shared arrays, keeping the locals; `s`
  // queues their users.
  void resize_ghosts(const DeviceStream& s, int n) {
    nghost = n;
    const std::size_t all = static_cast<std::size_t>(nlocal) + n;
    resize_exact(s, id, all);
    resize_exact(s, type, all);
    resize_exact(s, x, all);
    resize_exact(s, y, all);
    resize_exact(s, z, all);
  }
};

namespace detail {

template <class T>
void to_device(const DeviceStream& s, const std::vector<T>& h, std::size_t n, dvec<T>& d, const char* name) {
  if (h.size() < n) throw std::invalid_argument(std::string("upload_atoms: AtomStore::") + name + " is too short");
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
  detail::to_device(s, a.id, na, d.id, "id");
  detail::to_device(s, a.type, na, d.type, "type");
  detail::to_device(s, a.x, na, d.x, "x");
  detail::to_device(s, a.y, na, d.y, "y");
  detail::to_device(s, a.z, na, d.z, "z");
  detail::to_device(s, a.vx, nl, d.vx, "vx");
  detail::to_device(s, a.vy, nl, d.vy, "vy");
  detail::to_device(s, a.vz, nl, d.vz, "vz");
  detail::to_device(s, a.fx, nl, d.fx, "fx");
  detail::to_device(s, a.fy, nl, d.fy, "fy");
  detail::to_device(s, a.fz, nl, d.fz, "fz");
  detail::to_device(s, a.ix, nl, d.ix, "ix");
  detail::to_device(s, a.iy, nl, d.iy, "iy");
  detail::to_device(s, a.iz, nl, d.iz, "iz");
  detail::to_device(s, a.pe, nl, d.pe, "pe");
  detail::to_device(s, a.virial, nl, d.virial, "virial");
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
  to_host(s, d.id, na, a.id);
  to_host(s, d.type, na, a.type);
  to_host(s, d.x, na, a.x);
  to_host(s, d.y, na, a.y);
  to_host(s, d.z, na, a.z);
  to_host(s, d.vx, nl, a.vx);
  to_host(s, d.vy, nl, a.vy);
  to_host(s, d.vz, nl, a.vz);
  to_host(s, d.fx, nl, a.fx);
  to_host(s, d.fy, nl, a.fy);
  to_host(s, d.fz, nl, a.fz);
  to_host(s, d.ix, nl, a.ix);
  to_host(s, d.iy, nl, a.iy);
  to_host(s, d.iz, nl, a.iz);
  to_host(s, d.pe, nl, a.pe);
  to_host(s, d.virial, nl, a.virial);
}

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
