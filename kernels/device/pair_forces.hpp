#pragma once
// Pair forces on the device: PairForce<Pot> (src/potentials/pair_force.hpp),
// the one pair loop every backend runs, one thread per local atom, or
// ClusterPairForce<Pot> over a cluster list. A device force of one pass
// (device_force.hpp): the one place a pipeline is typed by a potential.
#include <stdexcept>
#include <vector>

#include "device/cluster_forces.hpp"
#include "device/device_atoms.hpp"
#include "device/device_force.hpp"
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
class DevicePairForce final : public DeviceForce {
 public:
  using Params = typename Pot::Params;

  // `table`: (ntypes+1)^2 entries, row-major by type, as Pot::params fills
  // them (PairStyleImpl<Pot>::params() on the host).
  DevicePairForce(int ntypes, const std::vector<Params>& table, DeviceStream s)
      : stream_(s), type_stride_(ntypes + 1) {
    if (ntypes < 1 || table.size() != static_cast<std::size_t>(type_stride_) * type_stride_)
      throw std::invalid_argument("DevicePairForce: the parameter table must have (ntypes+1)^2 entries");
    assign(stream_, params_, table);  // host -> device
  }

  // Forces, per-atom energies and virials of the local atoms (all, or
  // those of `some`); `mixed`: the pair math in float (pair_force.hpp).
  void compute(int, DeviceAtoms& a, const DeviceNeighborList& nl, const dvec<int>* some, bool mixed,
               const PassOptions& opt) const override {
    if (opt.virial_tensor())
      return mixed ? run<float, true>(a, nl, some, opt) : run<double, true>(a, nl, some, opt);
    if (mixed)
      run<float, false>(a, nl, some, opt);
    else
      run<double, false>(a, nl, some, opt);
  }
  // All local atoms, stored: the pair style alone (tests).
  void compute(DeviceAtoms& a, const DeviceNeighborList& nl, bool mixed = false) const {
    compute(0, a, nl, nullptr, mixed, PassOptions{});
  }

 private:
  template <class Real, bool kTensor>
  void run(DeviceAtoms& a, const DeviceNeighborList& nl, const dvec<int>* some, const PassOptions& opt) const {
    const bool accumulate = opt.accumulate;
    double* const* tensor = opt.tensor;
    if (nl.clustered) {
      const DeviceClusterList& c = nl.clusters;
      ClusterPairForce<Pot, Real, kTensor> f{raw(a.x),       raw(a.y),        raw(a.z),      raw(a.type),  raw(c.slot_atom),
                                             raw(c.first),   raw(c.row_cluster), raw(c.count), raw(c.cj),   raw(c.jmask),
                                             c.stride,       a.nlocal,        some ? raw(*some) : nullptr,
                                             raw(params_),   type_stride_,    raw(a.fx),     raw(a.fy),    raw(a.fz),
                                             raw(a.pe),      raw(a.virial),   accumulate,    {}};
      for (int k = 0; k < 6; ++k) f.tensor[k] = tensor[k];
      const int rows = some ? static_cast<int>(some->size()) : c.nrows;
      for_each_index(stream_, rows * kClusterSize, f);
      return;
    }
    PairForce<Pot, Real, kTensor> f;
    f.x = raw(a.x);
    f.y = raw(a.y);
    f.z = raw(a.z);
    f.type = raw(a.type);
    f.nbr = raw(nl.index);
    f.nbr_count = raw(nl.count);
    f.stride = 1;  // the transposed list (neighbor_lists.hpp)
    f.step = nl.pitch;
    f.params = raw(params_);
    f.type_stride = type_stride_;
    f.fx = raw(a.fx);
    f.fy = raw(a.fy);
    f.fz = raw(a.fz);
    f.pe = raw(a.pe);
    f.virial = raw(a.virial);
    f.accumulate = accumulate;
    for (int k = 0; k < 6; ++k) f.tensor[k] = tensor[k];
    if (some)
      for_each_index(stream_, static_cast<int>(some->size()),
                     detail::OverAtoms<PairForce<Pot, Real, kTensor>>{raw(*some), f});
    else
      for_each_index(stream_, a.nlocal, f);
  }

  DeviceStream stream_;
  int type_stride_;
  dvec<Params> params_;
};

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
