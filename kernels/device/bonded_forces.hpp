#pragma once
// Bonds, angles and the special-pair correction on the device: the twins of
// src/bonded/bonded_forces.hpp (docs/algorithms.md, "Bonds, angles and
// special pairs"). One thread per local atom computes the force on itself
// with the same functors (bonded/bonded_force.hpp), its slots in the same
// order and the same sums as the CPU, so in double each atom's numbers are
// the CPU's. Partners are found through DeviceIdMap: the (id, index) pairs
// of the locals and ghosts sorted by id after each list build, searched by
// bisection, the nearest image taken among equal ids (all adjacent, in
// index order, so ties go to the lowest index as on the CPU).
// A bond or angle that cannot be computed (a partner beyond the ghosts, a
// broken FENE bond) leaves a code in a per-atom array; failure() finds the
// first such atom (one search and a read by the host, at every check).
#include <thrust/copy.h>
#include <thrust/execution_policy.h>
#include <thrust/find.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "atoms/molecular_fields.hpp"
#include "bonded/bonded_force.hpp"
#include "bonded/bonded_forces.hpp"
#include "device/device_atoms.hpp"
#include "device/device_force.hpp"
#include "device/neighbor_lists.hpp"
#include "device/pair_forces.hpp"

namespace tessera::device {
inline namespace TESSERA_DEVICE_SYSTEM_NS {

// The molecular arrays of the device's atoms (raw device pointers), by slot.
inline MolecularArrays device_molecular(const DeviceAtoms& a) {
  return molecular_arrays(a, [](const auto& v) { return raw(v); });
}

// A search in the sorted (id, index) pairs: the image of `id` nearest a
// point, or -1.
struct IdLookup {
  const AtomId* ids = nullptr;  // sorted
  const int* index = nullptr;   // the atom of each sorted id; equal ids in index order
  int n = 0;
  const double* x = nullptr;
  const double* y = nullptr;
  const double* z = nullptr;
  double reach2 = 0;  // partner(): the ghosts' reach, squared
  // The image of `id` nearest the point, or -1 when that is beyond the
  // ghosts' reach (BondedAtoms::partner's rule: a farther copy need not be
  // the partner's nearest image).
  TESSERA_HD int partner(AtomId id, double px, double py, double pz) const {
    const int j = nearest(id, px, py, pz);
    return j >= 0 && dist2(j, px, py, pz) <= reach2 ? j : -1;
  }
  TESSERA_HD int nearest(AtomId id, double px, double py, double pz) const {
    int lo = 0, hi = n;  // first position whose id is not below `id`
    while (lo < hi) {
      const int mid = lo + (hi - lo) / 2;
      if (ids[mid] < id)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo >= n || ids[lo] != id) return -1;
    int best = index[lo];
    double best2 = dist2(best, px, py, pz);
    for (int k = lo + 1; k < n && ids[k] == id; ++k) {
      const int j = index[k];
      const double d2 = dist2(j, px, py, pz);
      if (d2 < best2) best = j, best2 = d2;
    }
    return best;
  }
  TESSERA_HD double dist2(int k, double px, double py, double pz) const {
    const double dx = x[k] - px, dy = y[k] - py, dz = z[k] - pz;
    return dx * dx + dy * dy + dz * dz;
  }
};

// The id map of the device's atoms, made again when the list was built
// since (the ghosts and the order change only then), shared by the bonded
// forces of a run.
class DeviceIdMap {
 public:
  explicit DeviceIdMap(DeviceStream s) : stream_(s) {}
  IdLookup lookup(const DeviceAtoms& a, const DeviceNeighborList& nl) const {
    if (nl.generation != built_ || n_ != a.nall()) {
      n_ = a.nall();
      resize(stream_, ids_, static_cast<std::size_t>(n_));
      resize(stream_, index_, static_cast<std::size_t>(n_));
      thrust::copy(policy(stream_), a.id.begin(), a.id.begin() + n_, ids_.begin());
      thrust::sequence(policy(stream_), index_.begin(), index_.end());
      thrust::stable_sort_by_key(policy(stream_), ids_.begin(), ids_.end(), index_.begin());
      built_ = nl.generation;
    }
    return IdLookup{raw(ids_), raw(index_), n_, raw(a.x), raw(a.y), raw(a.z)};
  }

 private:
  DeviceStream stream_;
  mutable dvec<AtomId> ids_;
  mutable dvec<int> index_;
  mutable int n_ = -1;
  mutable long built_ = -1;
};

namespace detail {

// Where the sums go: as PairForce's outputs.
struct BondedOut {
  double* fx;
  double* fy;
  double* fz;
  double* pe;
  double* virial;
  double* tensor[6];
  bool accumulate;
  bool with_tensor;
  TESSERA_HD void write(int i, const BondedSums& s) const {
    double* out[5] = {fx, fy, fz, pe, virial};
    const double v[5] = {s.f[0], s.f[1], s.f[2], s.e, s.w};
    for (int c = 0; c < 5; ++c) out[c][i] = accumulate ? out[c][i] + v[c] : v[c];
    for (int c = 0; c < 6 && with_tensor; ++c) tensor[c][i] = accumulate ? tensor[c][i] + s.t[c] : s.t[c];
  }
};

inline BondedOut bonded_out(DeviceAtoms& a, const PassOptions& opt) {
  BondedOut o{raw(a.fx), raw(a.fy), raw(a.fz), raw(a.pe), raw(a.virial), {}, opt.accumulate, opt.virial_tensor()};
  for (int c = 0; c < 6; ++c) o.tensor[c] = opt.tensor[c];
  return o;
}

// A failure code: 0 none; else kind (1: partner missing, 2: bond broken),
// the slot and, for a broken bond, the partner's index + 1.
enum : int { kMissing = 1, kBroken = 2 };
TESSERA_HD inline AtomId failure_code(int kind, int slot, int which, int j) {
  return static_cast<AtomId>(kind) | (static_cast<AtomId>(slot) << 2) | (static_cast<AtomId>(which) << 6) |
         (static_cast<AtomId>(j + 1) << 8);
}

struct NonZero {
  TESSERA_HD bool operator()(AtomId c) const { return c != 0; }
};

// One thread per local atom: Body::sum adds the atom's bonds or angles
// (slots in order) and gives its failure code.
template <class Style, class Body>
struct BondedKernel {
  using StyleType = Style;
  IdLookup map;
  MolecularArrays m;
  const double* x;
  const double* y;
  const double* z;
  const typename Style::Params* params;
  BondedOut out;
  AtomId* status;
  TESSERA_HD void operator()(int i) const {
    BondedSums s;
    const AtomId code = Body::sum(*this, i, s);
    out.write(i, s);
    status[i] = code;
  }
};

// BondForce's body (src/bonded/bonded_forces.hpp).
struct BondSlots {
  template <class K>
  TESSERA_HD static AtomId sum(const K& k, int i, BondedSums& s) {
    using Style = typename K::StyleType;
    const double *x = k.x, *y = k.y, *z = k.z;
    AtomId code = 0;
    for (int b = 0; b < kMaxBonds && k.m.bond_type[b][i] != 0; ++b) {
      const int j = k.map.partner(k.m.bond_atom[b][i], x[i], y[i], z[i]);
      if (j < 0) {
        // The nearest copy beyond the reach, if any, for the message.
        if (code == 0) code = failure_code(kMissing, b, 0, k.map.nearest(k.m.bond_atom[b][i], x[i], y[i], z[i]));
        continue;
      }
      const Vec3<double> d{x[i] - x[j], y[i] - y[j], z[i] - z[j]};
      Vec3<double> f;
      double eh, wh;
      if (bond_force_on_self<Style>(d, k.params[k.m.bond_type[b][i]], f, eh, wh) == BondStatus::kBroken && code == 0)
        code = failure_code(kBroken, b, 0, j);
      s.f[0] += f.x, s.f[1] += f.y, s.f[2] += f.z;
      s.e += eh, s.w += wh;
      if (k.out.with_tensor) {
        const double dd[3] = {d.x, d.y, d.z}, ff[3] = {f.x, f.y, f.z};
        s.add_tensor(dd, ff, 0.5);
      }
    }
    return code;
  }
};

// AngleForce's body.
struct AngleSlots {
  template <class K>
  TESSERA_HD static AtomId sum(const K& k, int i, BondedSums& s) {
    using Style = typename K::StyleType;
    const double *x = k.x, *y = k.y, *z = k.z;
    AtomId code = 0;
    for (int g = 0; g < kMaxAngles && k.m.angle_info[g][i] != 0; ++g) {
      const int role = angle_role_of(k.m.angle_info[g][i]);
      const int ja = k.map.partner(k.m.angle_a[g][i], x[i], y[i], z[i]);
      const int jb = k.map.partner(k.m.angle_b[g][i], x[i], y[i], z[i]);
      if (ja < 0 || jb < 0) {
        if (code == 0) code = failure_code(kMissing, g, ja < 0 ? 0 : 1, -1);
        continue;
      }
      const int k1 = role == 0 ? i : ja, k2 = role == 1 ? i : (role == 0 ? ja : jb), k3 = role == 2 ? i : jb;
      const Vec3<double> d1{x[k1] - x[k2], y[k1] - y[k2], z[k1] - z[k2]};
      const Vec3<double> d2{x[k3] - x[k2], y[k3] - y[k2], z[k3] - z[k2]};
      Vec3<double> f1, f2, f3;
      double e, w;
      angle_forces<Style>(d1, d2, k.params[angle_type_of(k.m.angle_info[g][i])], f1, f2, f3, e, w);
      const Vec3<double>& f = role == 0 ? f1 : (role == 1 ? f2 : f3);
      s.f[0] += f.x, s.f[1] += f.y, s.f[2] += f.z;
      s.e += e / 3, s.w += w / 3;
      if (k.out.with_tensor) {
        const double a1[3] = {d1.x, d1.y, d1.z}, b1[3] = {f1.x, f1.y, f1.z};
        const double a2[3] = {d2.x, d2.y, d2.z}, b2[3] = {f3.x, f3.y, f3.z};
        s.add_tensor(a1, b1, 1.0 / 3);
        s.add_tensor(a2, b2, 1.0 / 3);
      }
    }
    return code;
  }
};

// SpecialPairCorrection's body: (1 - factor) of each fractional special
// pair's force, energy and virial taken off, through the pair style's
// functor (in Real: float under precision: mixed, as the pair force).
template <class Pot, class Real>
struct SpecialKernel {
  IdLookup map;
  MolecularArrays m;
  const double* x;
  const double* y;
  const double* z;
  const int* type;
  const typename Pot::Params* params;
  int type_stride;
  double factor[3];
  BondedOut out;
  TESSERA_HD void operator()(int i) const {
    BondedSums s;
    for (int k = 0; k < kMaxSpecial && m.special[k][i] != 0; ++k) {
      const AtomId e = m.special[k][i];
      if (special_excluded(e)) continue;  // not in the list at all
      const int j = map.nearest(special_partner(e), x[i], y[i], z[i]);
      if (j < 0) continue;  // beyond the halo's reach, so beyond every cutoff
      const Vec3<double> d{x[i] - x[j], y[i] - y[j], z[i] - z[j]};
      const double r2 = dot3(d, d);
      double fpair = 0, energy = 0;
      const typename Pot::Params& p = params[type[i] * type_stride + type[j]];
      if (r2 < p.cutsq) {
        Real fr, er;
        Pot::eval(static_cast<Real>(r2), p, fr, er);
        fpair = static_cast<double>(fr);
        energy = static_cast<double>(er);
      }
      s.take_off(1.0 - factor[special_level(e) - 1], d, r2, fpair, energy, out.with_tensor);
    }
    out.write(i, s);
  }
};

}  // namespace detail

// What the bonded twins share: the id map, the per-atom failure codes, the
// stream. Bonded forces read their partners wherever they are, ghosts
// included, so they never run split into inner and outer atoms.
class DeviceBondedBase : public DeviceForce {
 public:
  DeviceBondedBase(std::shared_ptr<const DeviceIdMap> map, DeviceStream s) : map_(std::move(map)), stream_(s) {}
  bool splits() const override { return false; }

 protected:
  // The atoms to run: every local, or those of `some`.
  template <class K>
  void launch(const DeviceAtoms& a, const dvec<int>* some, const K& k) const {
    if (some)
      for_each_index(stream_, static_cast<int>(some->size()), detail::OverAtoms<K>{raw(*some), k});
    else
      for_each_index(stream_, a.nlocal, k);
  }
  // The first atom whose code is not 0, or -1 (reads the device).
  long first_failure(const DeviceAtoms& a) const {
    if (status_.size() < static_cast<std::size_t>(a.nlocal) || a.nlocal == 0) return -1;
    synchronize(stream_);
    const auto it = thrust::find_if(policy(stream_), status_.begin(), status_.begin() + a.nlocal, detail::NonZero{});
    synchronize(stream_);
    const long i = static_cast<long>(it - status_.begin());
    return i < a.nlocal ? i : -1;
  }
  // One element of a device array, read by the host.
  template <class T>
  T read_one(const T* p, long i) const {
    synchronize(stream_);
    T v;
    thrust::copy(thrust::device_pointer_cast(p) + i, thrust::device_pointer_cast(p) + i + 1, &v);
    return v;
  }
  AtomId* status(const DeviceAtoms& a) const {
    resize(stream_, status_, static_cast<std::size_t>(a.nlocal));
    return raw(status_);
  }

  std::shared_ptr<const DeviceIdMap> map_;
  DeviceStream stream_;
  mutable dvec<AtomId> status_;
};

// A bond or angle style's force: Body (BondSlots, AngleSlots) over the locals, the
// style's parameters by type on the device.
template <class Style, class Body>
class DeviceBondedOf : public DeviceBondedBase {
 public:
  DeviceBondedOf(const std::vector<typename Style::Params>& params, double reach,
                 std::shared_ptr<const DeviceIdMap> map, DeviceStream s)
      : DeviceBondedBase(std::move(map), s), reach_(reach) {
    assign(stream_, params_, params);
  }
  void compute(int, DeviceAtoms& a, const DeviceNeighborList& nl, const dvec<int>* some, bool,
               const PassOptions& opt) const override {
    IdLookup look = map_->lookup(a, nl);
    look.reach2 = reach_ * reach_;
    const detail::BondedKernel<Style, Body> k{look, device_molecular(a), raw(a.x), raw(a.y), raw(a.z),
                          raw(params_), detail::bonded_out(a, opt), status(a)};
    launch(a, some, k);
  }
  bool may_fail() const override { return true; }
  std::string failure(const DeviceAtoms& a) const final {
    const long i = this->first_failure(a);
    if (i < 0) return {};
    return explain(a, device_molecular(a), i, this->read_one(raw(status_), i), this->read_one(raw(a.id), i));
  }

 protected:
  // Why atom i (id `id`) left failure code `code`.
  virtual std::string explain(const DeviceAtoms& a, const MolecularArrays& m, long i, AtomId code,
                              AtomId id) const = 0;
  double reach_;
  dvec<typename Style::Params> params_;
};

template <class Style>
class DeviceBondForce final : public DeviceBondedOf<Style, detail::BondSlots> {
  using Base = DeviceBondedOf<Style, detail::BondSlots>;
  using Base::reach_;

 public:
  using Base::Base;

 private:
  std::string explain(const DeviceAtoms& a, const MolecularArrays& m, long i, AtomId code,
                      AtomId id) const override {
    const int b = static_cast<int>((code >> 2) & 15);
    const AtomId partner = this->read_one(m.bond_atom[b], i);
    const int type = this->read_one(m.bond_type[b], i);
    const long j = static_cast<long>((code >> 8) - 1);  // the partner's copy, or -1
    double r2 = 0;
    for (const dvec<double>* c : {&a.x, &a.y, &a.z}) {
      const double dc = j < 0 ? 0.0 : this->read_one(raw(*c), i) - this->read_one(raw(*c), j);
      r2 += dc * dc;
    }
    if ((code & 3) == detail::kMissing)
      return missing_bond_partner(Style::name, id, partner, type, reach_, j < 0 ? -1.0 : std::sqrt(r2));
    return broken_bond(Style::name, id, partner, type, std::sqrt(r2));
  }
};

template <class Style>
class DeviceAngleForce final : public DeviceBondedOf<Style, detail::AngleSlots> {
  using Base = DeviceBondedOf<Style, detail::AngleSlots>;
  using Base::reach_;

 public:
  using Base::Base;

 private:
  std::string explain(const DeviceAtoms&, const MolecularArrays& m, long i, AtomId code, AtomId id) const override {
    const int g = static_cast<int>((code >> 2) & 15), which = static_cast<int>((code >> 6) & 1);
    const AtomId pa = this->read_one(m.angle_a[g], i), pb = this->read_one(m.angle_b[g], i);
    const int info = this->read_one(m.angle_info[g], i);
    return missing_angle_partner(id, angle_type_of(info), pa, pb, which ? pb : pa, reach_);
  }
};

// SpecialPairCorrection's twin over the pair style Pot's parameter table.
template <class Pot>
class DeviceSpecialCorrection final : public DeviceBondedBase {
 public:
  DeviceSpecialCorrection(int ntypes, const std::vector<typename Pot::Params>& table, const double factor[3],
                          std::shared_ptr<const DeviceIdMap> map, DeviceStream s)
      : DeviceBondedBase(std::move(map), s), type_stride_(ntypes + 1), factor_{factor[0], factor[1], factor[2]} {
    assign(stream_, params_, table);
  }
  void compute(int, DeviceAtoms& a, const DeviceNeighborList& nl, const dvec<int>* some, bool mixed,
               const PassOptions& opt) const override {
    if (mixed) return run<float>(a, nl, some, opt);
    run<double>(a, nl, some, opt);
  }

 private:
  template <class Real>
  void run(DeviceAtoms& a, const DeviceNeighborList& nl, const dvec<int>* some, const PassOptions& opt) const {
    const detail::SpecialKernel<Pot, Real> k{map_->lookup(a, nl), device_molecular(a), raw(a.x), raw(a.y), raw(a.z),
                                             raw(a.type), raw(params_), type_stride_, {factor_[0], factor_[1], factor_[2]},
                                             detail::bonded_out(a, opt)};
    launch(a, some, k);
  }
  int type_stride_;
  double factor_[3];
  dvec<typename Pot::Params> params_;
};

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
