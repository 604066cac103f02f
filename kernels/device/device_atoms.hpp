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

  // Sizes the ghost part of the shared arrays, keeping the locals.
  void resize_ghosts(int n) {
    nghost = n;
    const std::size_t all = static_cast<std::size_t>(nlocal) + n;
    resize_exact(id, all);
    resize_exact(type, all);
    resize_exact(x, all);
    resize_exact(y, all);
    resize_exact(z, all);
  }
};

namespace detail {

template <class T>
void to_device(const std::vector<T>& h, std::size_t n, dvec<T>& d, const char* name) {
  if (h.size() < n) throw std::invalid_argument(std::string("upload_atoms: AtomStore::") + name + " is too short");
  d.assign(h.begin(), h.begin() + static_cast<long>(n));
}

template <class T>
void to_host(const dvec<T>& d, std::size_t n, std::vector<T>& h) {
  h.resize(n);
  thrust::copy(d.begin(), d.begin() + static_cast<long>(n), h.begin());
}

}  // namespace detail

// Host to device: every array, ghosts included (host -> device copies).
inline void upload_atoms(const AtomStore& a, DeviceAtoms& d) {
  // Atom indices are int on the device, as in the neighbour list.
  if (a.nall() > static_cast<std::size_t>(INT_MAX))
    throw std::invalid_argument("upload_atoms: more atoms on one rank than an int can index");
  const std::size_t nl = a.nlocal, na = a.nall();
  d.nlocal = static_cast<int>(nl);
  d.nghost = static_cast<int>(a.nghost);
  d.ntypes = a.ntypes;
  detail::to_device(a.mass_of_type, a.mass_of_type.size(), d.mass_of_type, "mass_of_type");
  detail::to_device(a.id, na, d.id, "id");
  detail::to_device(a.type, na, d.type, "type");
  detail::to_device(a.x, na, d.x, "x");
  detail::to_device(a.y, na, d.y, "y");
  detail::to_device(a.z, na, d.z, "z");
  detail::to_device(a.vx, nl, d.vx, "vx");
  detail::to_device(a.vy, nl, d.vy, "vy");
  detail::to_device(a.vz, nl, d.vz, "vz");
  detail::to_device(a.fx, nl, d.fx, "fx");
  detail::to_device(a.fy, nl, d.fy, "fy");
  detail::to_device(a.fz, nl, d.fz, "fz");
  detail::to_device(a.ix, nl, d.ix, "ix");
  detail::to_device(a.iy, nl, d.iy, "iy");
  detail::to_device(a.iz, nl, d.iz, "iz");
  detail::to_device(a.pe, nl, d.pe, "pe");
  detail::to_device(a.virial, nl, d.virial, "virial");
}

namespace detail {

// Host to device: three local arrays, keeping the ghosts.
inline void upload_locals(std::size_t host_nlocal, DeviceAtoms& d, const std::vector<double>* const (&h)[3],
                          dvec<double>* const (&dv)[3], const char* what) {
  if (host_nlocal != static_cast<std::size_t>(d.nlocal))
    throw std::invalid_argument(std::string(what) + ": the host holds another number of atoms than the device");
  for (int k = 0; k < 3; ++k) thrust::copy(h[k]->begin(), h[k]->begin() + d.nlocal, dv[k]->begin());
}

}  // namespace detail

// Host to device: local positions only, keeping the ghosts (restart).
inline void upload_positions(const AtomStore& a, DeviceAtoms& d) {
  detail::upload_locals(a.nlocal, d, {&a.x, &a.y, &a.z}, {&d.x, &d.y, &d.z}, "upload_positions");
}

// Host to device: local forces only (restart).
inline void upload_forces(const AtomStore& a, DeviceAtoms& d) {
  detail::upload_locals(a.nlocal, d, {&a.fx, &a.fy, &a.fz}, {&d.fx, &d.fy, &d.fz}, "upload_forces");
}

// Device to host: every array, ghosts included (device -> host copies).
inline void download_atoms(const DeviceAtoms& d, AtomStore& a) {
  const std::size_t nl = d.nlocal, na = d.nall();
  a.nlocal = nl;
  a.nghost = d.nghost;
  a.ntypes = d.ntypes;
  detail::to_host(d.mass_of_type, d.mass_of_type.size(), a.mass_of_type);
  detail::to_host(d.id, na, a.id);
  detail::to_host(d.type, na, a.type);
  detail::to_host(d.x, na, a.x);
  detail::to_host(d.y, na, a.y);
  detail::to_host(d.z, na, a.z);
  detail::to_host(d.vx, nl, a.vx);
  detail::to_host(d.vy, nl, a.vy);
  detail::to_host(d.vz, nl, a.vz);
  detail::to_host(d.fx, nl, a.fx);
  detail::to_host(d.fy, nl, a.fy);
  detail::to_host(d.fz, nl, a.fz);
  detail::to_host(d.ix, nl, a.ix);
  detail::to_host(d.iy, nl, a.iy);
  detail::to_host(d.iz, nl, a.iz);
  detail::to_host(d.pe, nl, a.pe);
  detail::to_host(d.virial, nl, a.virial);
}

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
