#pragma once
// Pair forces on the device: PairForce<Pot> (src/potentials/pair_force.hpp),
// the one pair loop every backend runs, one thread per local atom.
#include <stdexcept>
#include <vector>

#include "device/device_atoms.hpp"
#include "device/cluster_forces.hpp"
#include "device/neighbor_build.hpp"
#include "potentials/pair_force.hpp"

namespace tessera::device {
inline namespace TESSERA_DEVICE_SYSTEM_NS {

namespace detail {

// A per-atom functor over a list of atoms (namespace scope: nvcc launches
// it, which a private nested type would forbid).
template <class F>
struct OverAtoms {
  const int* atoms;
  F f;
  TESSERA_HD void operator()(int k) const { f(atoms[k]); }
};

}  // namespace detail

template <class Pot>
class DevicePairForces {
 public:
  using Params = typename Pot::Params;

  // `table`: (ntypes+1)^2 entries, row-major by type, as Pot::params fills
  // them (PairStyleImpl<Pot>::params() on the host).
  DevicePairForces(int ntypes, const std::vector<Params>& table, DeviceStream s)
      : stream_(s), type_stride_(ntypes + 1) {
    if (ntypes < 1 || table.size() != static_cast<std::size_t>(type_stride_) * type_stride_)
      throw std::invalid_argument("DevicePairForces: the parameter table must have (ntypes+1)^2 entries");
    assign(stream_, params_, table);  // host -> device
  }

  // Forces, per-atom energies and virials of the local atoms; `mixed`: the
  // pair math in float (pair_force.hpp).
  void compute(DeviceAtoms& a, const DeviceNeighborList& nl, bool mixed = false) const {
    if (mixed)
      run<float>(a, nl, nullptr);
    else
      run<double>(a, nl, nullptr);
  }
  // Only the atoms of `some`: nl.inner or nl.outer (local atoms), or for a
  // cluster list nl.clusters.inner or .outer (rows). Each atom's sums are
  // the same bits as in compute(), whatever the split.
  void compute_some(DeviceAtoms& a, const DeviceNeighborList& nl, const dvec<int>& some, bool mixed) const {
    if (mixed)
      run<float>(a, nl, &some);
    else
      run<double>(a, nl, &some);
  }

 private:
  template <class Real>
  void run(DeviceAtoms& a, const DeviceNeighborList& nl, const dvec<int>* some) const {
    if (nl.clustered) {
      const DeviceClusterList& c = nl.clusters;
      const ClusterPairForce<Pot, Real> f{raw(a.x),       raw(a.y),        raw(a.z),      raw(a.type),  raw(c.slot_atom),
                                          raw(c.first),   raw(c.row_cluster), raw(c.count), raw(c.cj),   raw(c.jmask),
                                          c.stride,       a.nlocal,        some ? raw(*some) : nullptr,
                                          raw(params_),   type_stride_,    raw(a.fx),     raw(a.fy),    raw(a.fz),
                                          raw(a.pe),      raw(a.virial)};
      const int rows = some ? static_cast<int>(some->size()) : c.nrows;
      for_each_index(stream_, rows * kClusterSize, f);
      return;
    }
    PairForce<Pot, Real> f;
    f.x = raw(a.x);
    f.y = raw(a.y);
    f.z = raw(a.z);
    f.type = raw(a.type);
    f.nbr = raw(nl.index);
    f.nbr_count = raw(nl.count);
    f.stride = nl.stride;
    f.params = raw(params_);
    f.type_stride = type_stride_;
    f.fx = raw(a.fx);
    f.fy = raw(a.fy);
    f.fz = raw(a.fz);
    f.pe = raw(a.pe);
    f.virial = raw(a.virial);
    if (some)
      for_each_index(stream_, static_cast<int>(some->size()), detail::OverAtoms<PairForce<Pot, Real>>{raw(*some), f});
    else
      for_each_index(stream_, a.nlocal, f);
  }

  DeviceStream stream_;
  int type_stride_;
  dvec<Params> params_;
};

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
