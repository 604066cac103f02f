#pragma once
// Pair forces on the device: PairForce<Pot> (src/potentials/pair_force.hpp),
// one thread per local atom over the transposed rows (in mixed precision its
// sums over packed float positions, PackedPairForce), or
// ClusterPairForce<Pot> over a cluster list. A device force of one pass
// (device_force.hpp): the one place a pipeline is typed by a potential.
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "device/cluster_forces.hpp"
#include "device/device_atoms.hpp"
#include "device/device_force.hpp"
#include "device/neighbor_build.hpp"
#include "device/packed_positions.hpp"
#include "potentials/narrow_params.hpp"
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

// PairForce<Pot> (src/potentials/pair_force.hpp) over the transposed rows
// in mixed precision, reading each atom as one packed float record
// (packed_positions.hpp): the separations are formed in float from offsets
// within tiles, so the whole pair geometry is float, and so are the
// parameters (narrow_params.hpp: the same floats the pair math used).
// kGroup: as PairForce's (pair_force.hpp), the same bits for any value.
template <class Pot, bool kTensor, int kGroup = 1>
struct PackedPairForce {
  const PackedFloat* pos;
  const int* nbr;
  const int* nbr_count;
  long pitch;  // neighbour k of atom i is nbr[k * pitch + i]
  float tile;  // the tiles' width
  const typename Pot::template ParamsT<float>* params;
  int type_stride;
  KernelOutputs out;

  using Sums = PairSums<Pot, float, kTensor, typename Pot::template ParamsT<float>>;

  TESSERA_HD void operator()(int i) const { store(i, sums(i)); }
  // As PairForce::sums: neighbours first, first + every, ...
  TESSERA_HD Sums sums(int i, int first = 0, int every = 1) const {
    const PackedFloat pi = load_packed(pos, i);
    // xi, yi, zi are unused: add_separation takes the separation itself.
    Sums s{0.0, 0.0, 0.0, params + pi.type() * type_stride};
    const int n = nbr_count[i];
    int k = first;
    if constexpr (kGroup > 1) {
      for (; k + (kGroup - 1) * every < n; k += kGroup * every) {
        int j[kGroup];
        PackedFloat pj[kGroup];
        for (int g = 0; g < kGroup; ++g) j[g] = nbr[(k + g * every) * pitch + i];
        for (int g = 0; g < kGroup; ++g) pj[g] = load_packed(pos, j[g]);
        for (int g = 0; g < kGroup; ++g) add(s, pi, pj[g]);
      }
    }
    for (; k < n; k += every) add(s, pi, load_packed(pos, nbr[k * pitch + i]));
    return s;
  }
  TESSERA_HD Sums begin(int i) const { return Sums{0.0, 0.0, 0.0, params + load_packed(pos, i).type() * type_stride}; }
  TESSERA_HD void store(int i, const Sums& s) const { s.store(i, out); }
  TESSERA_HD void add(Sums& s, const PackedFloat& pi, const PackedFloat& pj) const {
    float dx, dy, dz;
    separation(pi, pj, tile, dx, dy, dz);
    s.add_separation(dx, dy, dz, pj.type());
  }
};

// A row split over `lanes` threads (issue 25: a launch that fills the GPU
// at 32k atoms). Thread t takes atom t / lanes and, of its row, neighbours
// t % lanes, + lanes, ...; it writes its partial sums to `partial`
// ([term][thread], so a warp's writes are contiguous). RowLaneStore then
// adds each atom's partials in lane order and stores them: the same bits
// for a given lane count whatever the launch (all atoms, inner, outer).
template <class F>
struct RowLaneSums {
  F f;
  const int* atoms;  // null: atom a is a
  int lanes;
  long total;  // threads in the launch
  double* partial;
  TESSERA_HD void operator()(int t) const {
    const int a = t / lanes, l = t - a * lanes;
    const auto s = f.sums(atoms ? atoms[a] : a, l, lanes);
    double* p = partial + t;
    p[0] = s.fx, p[total] = s.fy, p[2 * total] = s.fz, p[3 * total] = s.e, p[4 * total] = s.w;
    for (int c = 0; c < F::Sums::kTensorTerms; ++c) p[(5 + c) * total] = s.t[c];
  }
};
template <class F>
struct RowLaneStore {
  F f;
  const int* atoms;
  int lanes;
  long total;
  const double* partial;
  TESSERA_HD void operator()(int a) const {
    const int i = atoms ? atoms[a] : a;
    auto s = f.begin(i);
    for (long t = static_cast<long>(a) * lanes; t < static_cast<long>(a + 1) * lanes; ++t) {
      s.fx += partial[t], s.fy += partial[total + t], s.fz += partial[2 * total + t];
      s.e += partial[3 * total + t], s.w += partial[4 * total + t];
      for (int c = 0; c < F::Sums::kTensorTerms; ++c) s.t[c] += partial[(5 + c) * total + t];
    }
    f.store(i, s);
  }
};

// Threads per atom for a row launch (device_pair_lanes, pair_force.hpp),
// or TESSERA_PAIR_LANES (1 to 32, a power of two), to measure.
inline int pair_lanes(int nlocal, int fixed) { return fixed > 0 ? fixed : device_pair_lanes(nlocal); }
inline int pair_lanes_fixed() {
  const char* e = std::getenv("TESSERA_PAIR_LANES");
  if (!e || !*e) return 0;
  const int n = std::atoi(e);
  if (n < 1 || n > 32 || (n & (n - 1)) != 0)
    throw std::invalid_argument(std::string("TESSERA_PAIR_LANES=") + e + ": give a power of two from 1 to 32");
  return n;
}

// Neighbours a row thread reads at a time (PairForce's kGroup), or 1 with
// TESSERA_PAIR_GROUP=1, to measure what the groups bring.
constexpr int kPairGroup = 4;
inline int pair_group() {
  const char* e = std::getenv("TESSERA_PAIR_GROUP");
  if (!e || !*e) return kPairGroup;
  const int n = std::atoi(e);
  if (n != 1 && n != kPairGroup)
    throw std::invalid_argument(std::string("TESSERA_PAIR_GROUP=") + e + ": give 1 or " + std::to_string(kPairGroup));
  return n;
}

}  // namespace detail

// A pair style's parameter table holds (ntypes+1)^2 entries (row and column
// 0 unused); throws std::invalid_argument otherwise. A function of its own
// so the tests can ask it without instantiating a DevicePairForce, whose
// kernels are built only in device_forces.cpp (with FMAs).
inline void check_pair_table(int ntypes, std::size_t entries) {
  const auto stride = static_cast<std::size_t>(ntypes) + 1;
  if (ntypes < 1 || entries != stride * stride)
    throw std::invalid_argument("DevicePairForce: the parameter table must have (ntypes+1)^2 entries");
}

template <class Pot>
class DevicePairForce final : public DeviceForce {
 public:
  using Params = typename Pot::Params;

  // `table`: (ntypes+1)^2 entries, row-major by type, as Pot::params fills
  // them (PairStyleImpl<Pot>::params() on the host).
  DevicePairForce(int ntypes, const std::vector<Params>& table, DeviceStream s)
      : stream_(s), type_stride_(ntypes + 1), lanes_fixed_(detail::pair_lanes_fixed()), group_(detail::pair_group()) {
    check_pair_table(ntypes, table.size());
    assign(stream_, params_, table);  // host -> device
    std::vector<FloatParams> narrow;
    narrow.reserve(table.size());
    for (const Params& p : table) narrow.push_back(narrow_params<Pot>(p));
    assign(stream_, params_float_, narrow);
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
    const KernelOutputs out = device_outputs(a, opt);
    if (nl.clustered) {
      const DeviceClusterList& c = nl.clusters;
      ClusterPairForce<Pot, Real, kTensor> f{raw(a.x),         raw(a.y),    raw(a.z),
                                             raw(a.type),      raw(c.slot_atom), raw(c.first),
                                             raw(c.row_cluster), raw(c.count), raw(c.cj),
                                             raw(c.jmask),     c.stride,    a.nlocal,
                                             some ? raw(*some) : nullptr, raw(params_), type_stride_,
                                             out};
      if (molecular_fields_on()) {
        f.id = raw(a.id);
        const MolecularArrays m = molecular_arrays(a, [](const auto& v) { return raw(v); });
        for (int k = 0; k < kMaxSpecial; ++k) f.special[k] = m.special[k];
      }
      const int rows = some ? static_cast<int>(some->size()) : c.nrows;
      for_each_index(stream_, rows * kClusterSize, f);
      return;
    }
    if constexpr (std::is_same_v<Real, float>) {
      // Pack what this launch reads and no more: the locals for the inner
      // atoms (the ghosts are still in flight), the ghosts for the outer
      // ones (whose launch follows the inner one's on this stream), else all.
      const int first = some == &nl.outer ? a.nlocal : 0, last = some == &nl.inner ? a.nlocal : a.nall();
      if (first == 0) resize_for_overwrite(stream_, packed_, static_cast<std::size_t>(a.nall()));
      pack_positions(stream_, a, first, last, nl.tiles, raw(packed_));
      if (group_ == 1)
        launch(a, some, packed<kTensor, 1>(nl, out));
      else
        launch(a, some, packed<kTensor, detail::kPairGroup>(nl, out));
    } else {
      if (group_ == 1)
        launch(a, some, rows<kTensor, 1>(a, nl, out));
      else
        launch(a, some, rows<kTensor, detail::kPairGroup>(a, nl, out));
    }
  }
  template <bool kTensor, int kGroup>
  detail::PackedPairForce<Pot, kTensor, kGroup> packed(const DeviceNeighborList& nl, const KernelOutputs& out) const {
    return {raw(packed_), raw(nl.index), raw(nl.count), nl.pitch, nl.tiles.w, raw(params_float_), type_stride_, out};
  }
  template <bool kTensor, int kGroup>
  PairForce<Pot, double, kTensor, kGroup> rows(const DeviceAtoms& a, const DeviceNeighborList& nl,
                                               const KernelOutputs& out) const {
    PairForce<Pot, double, kTensor, kGroup> f;
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
    f.out = out;
    return f;
  }

  // One thread per local atom, or per atom of `some`; or `lanes` threads
  // per atom and a second launch that adds their sums (RowLaneSums).
  template <class F>
  void launch(const DeviceAtoms& a, const dvec<int>* some, const F& f) const {
    const int lanes = detail::pair_lanes(a.nlocal, lanes_fixed_);
    const int n = some ? static_cast<int>(some->size()) : a.nlocal;
    const int* atoms = some ? raw(*some) : nullptr;
    if (lanes == 1) {
      if (some)
        for_each_index(stream_, n, detail::OverAtoms<F>{atoms, f});
      else
        for_each_index(stream_, n, f);
      return;
    }
    const long total = static_cast<long>(n) * lanes;
    if (total > 0x7fffffffL) throw std::invalid_argument("pair force: more threads than one launch takes; fewer lanes");
    resize_for_overwrite(stream_, partial_, static_cast<std::size_t>(total) * (5 + F::Sums::kTensorTerms));
    for_each_index(stream_, static_cast<int>(total), detail::RowLaneSums<F>{f, atoms, lanes, total, raw(partial_)});
    for_each_index(stream_, n, detail::RowLaneStore<F>{f, atoms, lanes, total, raw(partial_)});
  }

  DeviceStream stream_;
  int type_stride_;
  dvec<Params> params_;
  using FloatParams = typename Pot::template ParamsT<float>;
  dvec<FloatParams> params_float_;  // mixed precision's rows (PackedPairForce)
  int lanes_fixed_;  // TESSERA_PAIR_LANES, or 0: pair_lanes' rule
  int group_;  // detail::pair_group()
  // Mixed precision's packed positions of each step (rows only), kept from
  // step to step.
  mutable dvec<PackedFloat> packed_;
  mutable dvec<double> partial_;  // the lanes' partial sums (RowLaneSums), kept likewise
};

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
