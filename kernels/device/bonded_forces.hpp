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
// broken FENE bond), or a FENE bond clamped as LAMMPS clamps it, leaves a
// code in a per-atom array. queue_check() folds the codes on the device
// into two records, the first failure and the first clamped bond with a
// count of the steps after it, and the host reads them with the motion
// guard's record (Simulation::settle_motion): a step waits for none of it.
#include <thrust/copy.h>
#include <thrust/execution_policy.h>
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
#include "device/reductions.hpp"

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

// An atom's bonded sums into `out` (the tensor when the step asks).
TESSERA_HD inline void write_sums(const KernelOutputs& out, int i, const BondedSums& s) {
  out.write(i, s.f[0], s.f[1], s.f[2], s.e, s.w);
  if (out.with_tensor()) out.write_tensor(i, s.t);
}

// An atom's code: 0 none; else kind (1: partner missing, 2: bond broken,
// 3: bond clamped), the slot, which partner of an angle, and the partner's
// index + 1 (for a missing one, its nearest copy's, or 0).
enum : int { kMissing = 1, kBroken = 2, kClamped = 3 };
TESSERA_HD inline AtomId failure_code(int kind, int slot, int which, int j) {
  return static_cast<AtomId>(kind) | (static_cast<AtomId>(slot) << 2) | (static_cast<AtomId>(which) << 6) |
         (static_cast<AtomId>(j + 1) << 8);
}
TESSERA_HD inline int code_kind(AtomId c) { return static_cast<int>(c & 3); }
TESSERA_HD inline int code_slot(AtomId c) { return static_cast<int>((c >> 2) & 15); }
TESSERA_HD inline int code_which(AtomId c) { return static_cast<int>((c >> 6) & 1); }
TESSERA_HD inline int code_partner(AtomId c) { return static_cast<int>(c >> 8) - 1; }
// A failure replaces a clamp in the atom's code; a clamp fills only an empty code.
TESSERA_HD inline void note_failure(AtomId& code, AtomId c) {
  if (code == 0 || code_kind(code) == kClamped) code = c;
}

// The first atom (lowest index) with a failure and the first with a clamped
// bond, n for none: both minima, exact in any order.
struct CodeCheck {
  int first_failure;
  int first_clamped;
};
struct CodeCheckOf {
  const AtomId* code;
  int n;
  TESSERA_HD CodeCheck operator()(int i) const {
    const AtomId c = code[i];
    if (c == 0) return {n, n};
    return code_kind(c) == kClamped ? CodeCheck{n, i} : CodeCheck{i, n};
  }
};
struct MergeCodeCheck {
  TESSERA_HD CodeCheck operator()(const CodeCheck& a, const CodeCheck& b) const {
    return {a.first_failure < b.first_failure ? a.first_failure : b.first_failure,
            a.first_clamped < b.first_clamped ? a.first_clamped : b.first_clamped};
  }
};

// A failure or a clamp as found, kept on the device until the host reads
// it: everything the message needs, since by then the atoms have moved and
// may have been sorted.
struct BondedEvent {
  long step = -1;  // -1: none
  long later = 0;  // a clamp's: how many later steps had one, the last being `last`
  long last = -1;
  AtomId code = 0, id = 0, a = 0, b = 0;  // the atom's code and id; its bond's or angle's partners
  int type = 0;                           // the bond's type, or the angle's info word
  double length = -1;                     // to the code's partner copy, or -1
};

// One thread, after the fold of a step's codes: the first failure of the
// run and the first clamp since the host's last read, each kept as found.
template <class Body>
struct KeepFirstEvents {
  const CodeCheck* in;
  int n;
  long step;
  const AtomId* code;
  const AtomId* id;
  MolecularArrays m;
  const double *x, *y, *z;
  BondedEvent* events;  // [0] failure, [1] clamp
  TESSERA_HD void describe(int i, BondedEvent& e) const {
    e.step = step;
    e.code = code[i];
    e.id = id[i];
    Body::describe(m, i, e.code, e);
    const int j = code_partner(e.code);
    if (j >= 0) {
      const double dx = x[i] - x[j], dy = y[i] - y[j], dz = z[i] - z[j];
      e.length = sqrt(dx * dx + dy * dy + dz * dz);
    }
  }
  TESSERA_HD void operator()(int) const {
    const CodeCheck c = *in;
    if (c.first_failure < n && events[0].step < 0) describe(c.first_failure, events[0]);
    if (c.first_clamped >= n) return;
    if (events[1].step < 0) {
      describe(c.first_clamped, events[1]);
    } else {
      ++events[1].later;
      events[1].last = step;
    }
  }
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
  KernelOutputs out;
  AtomId* status;
  TESSERA_HD void operator()(int i) const {
    BondedSums s;
    const AtomId code = Body::sum(*this, i, s);
    write_sums(out, i, s);
    status[i] = code;
  }
};

// BondForce's body (src/bonded/bonded_forces.hpp).
struct BondSlots {
  // The bond of the code's slot, for the host's message.
  TESSERA_HD static void describe(const MolecularArrays& m, int i, AtomId code, BondedEvent& e) {
    const int b = code_slot(code);
    e.a = m.bond_atom[b][i];
    e.type = m.bond_type[b][i];
  }
  template <class K>
  TESSERA_HD static AtomId sum(const K& k, int i, BondedSums& s) {
    using Style = typename K::StyleType;
    const double *x = k.x, *y = k.y, *z = k.z;
    AtomId code = 0;
    for (int b = 0; b < kMaxBonds && k.m.bond_type[b][i] != 0; ++b) {
      const int j = k.map.partner(k.m.bond_atom[b][i], x[i], y[i], z[i]);
      if (j < 0) {
        // The nearest copy beyond the reach, if any, for the message.
        note_failure(code, failure_code(kMissing, b, 0, k.map.nearest(k.m.bond_atom[b][i], x[i], y[i], z[i])));
        continue;
      }
      const Vec3<double> d{x[i] - x[j], y[i] - y[j], z[i] - z[j]};
      Vec3<double> f;
      double eh, wh;
      const BondStatus status = bond_force_on_self<Style>(d, k.params[k.m.bond_type[b][i]], f, eh, wh);
      if (status == BondStatus::kBroken) note_failure(code, failure_code(kBroken, b, 0, j));
      if (status == BondStatus::kStretched && code == 0) code = failure_code(kClamped, b, 0, j);
      s.f[0] += f.x, s.f[1] += f.y, s.f[2] += f.z;
      s.e += eh, s.w += wh;
      if (k.out.with_tensor()) {
        const double dd[3] = {d.x, d.y, d.z}, ff[3] = {f.x, f.y, f.z};
        s.add_tensor(dd, ff, 0.5);
      }
    }
    return code;
  }
};

// AngleForce's body.
struct AngleSlots {
  // The angle of the code's slot, for the host's message.
  TESSERA_HD static void describe(const MolecularArrays& m, int i, AtomId code, BondedEvent& e) {
    const int g = code_slot(code);
    e.a = m.angle_a[g][i];
    e.b = m.angle_b[g][i];
    e.type = m.angle_info[g][i];
  }
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
        note_failure(code, failure_code(kMissing, g, ja < 0 ? 0 : 1, -1));
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
      if (k.out.with_tensor()) {
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
  KernelOutputs out;
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
      s.take_off(1.0 - factor[special_level(e) - 1], d, r2, fpair, energy, out.with_tensor());
    }
    write_sums(out, i, s);
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
  AtomId* status(const DeviceAtoms& a) const {
    resize(stream_, status_, static_cast<std::size_t>(a.nlocal));
    return raw(status_);
  }
  // The fold of the codes the last computation left (queue_check) and the
  // records it keeps, on the stream; the first call makes the records.
  template <class Body>
  void queue_events(const DeviceAtoms& a, long step) const {
    const int n = a.nlocal;
    if (n == 0 || status_.size() < static_cast<std::size_t>(n)) return;
    if (events_.empty()) {
      resize(stream_, events_, 2);
      to_device(stream_, std::vector<detail::BondedEvent>(2), events_);
      resize(stream_, check_, 1);
    }
    detail::reduce_into(stream_, n, detail::CodeCheckOf{raw(status_), n}, detail::CodeCheck{n, n},
                        detail::MergeCodeCheck{}, raw(check_), temp_);
    for_each_index(stream_, 1,
                   detail::KeepFirstEvents<Body>{raw(check_), n, step, raw(status_), raw(a.id), device_molecular(a),
                                                 raw(a.x), raw(a.y), raw(a.z), raw(events_)});
  }
  // The records, once the stream has run (one wait); the clamp's is cleared.
  std::vector<detail::BondedEvent> read_events() const {
    if (events_.empty()) return {};
    to_host(stream_, events_, 2, host_events_);
    if (host_events_[1].step >= 0) write_element(stream_, events_, 1, detail::BondedEvent{});
    return host_events_;
  }

  std::shared_ptr<const DeviceIdMap> map_;
  DeviceStream stream_;
  mutable dvec<AtomId> status_;
  mutable dvec<detail::CodeCheck> check_;       // the fold's result
  mutable dvec<std::uint8_t> temp_;             // its scratch (GPU only)
  mutable dvec<detail::BondedEvent> events_;    // [0] the run's first failure, [1] the first clamp since the last read
  mutable std::vector<detail::BondedEvent> host_events_;
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
                          raw(params_), device_outputs(a, opt), status(a)};
    launch(a, some, k);
  }
  bool may_fail() const override { return true; }
  void queue_check(const DeviceAtoms& a, long step) const final { this->template queue_events<Body>(a, step); }
  Report read_report() const final {
    Report r;
    const std::vector<detail::BondedEvent> e = this->read_events();
    if (e.empty()) return r;
    if (e[0].step >= 0) r.failure = {e[0].step, explain(e[0])};
    if (e[1].step >= 0) r.warning = {e[1].step, explain(e[1])};
    return r;
  }

 protected:
  // The host's words for an event (Force::failure's and Force::warning's).
  virtual std::string explain(const detail::BondedEvent& e) const = 0;
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
  std::string explain(const detail::BondedEvent& e) const override {
    switch (detail::code_kind(e.code)) {
      case detail::kMissing:
        return missing_bond_partner(Style::name, e.id, e.a, e.type, reach_, e.length);
      case detail::kBroken:
        return broken_bond(Style::name, e.id, e.a, e.type, e.length);
      default:
        return stretched_bond(Style::name, e.id, e.a, e.type, e.length, e.later, e.last);
    }
  }
};

template <class Style>
class DeviceAngleForce final : public DeviceBondedOf<Style, detail::AngleSlots> {
  using Base = DeviceBondedOf<Style, detail::AngleSlots>;
  using Base::reach_;

 public:
  using Base::Base;

 private:
  std::string explain(const detail::BondedEvent& e) const override {
    return missing_angle_partner(e.id, angle_type_of(e.type), e.a, e.b, detail::code_which(e.code) ? e.b : e.a,
                                 reach_);
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
                                             device_outputs(a, opt)};
    launch(a, some, k);
  }
  int type_stride_;
  double factor_[3];
  dvec<typename Pot::Params> params_;
};

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
