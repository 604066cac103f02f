#pragma once
// The bonded forces of a run, as forces of the step's list
// (forces/force.hpp): one for the bonds, one for the angles, and the pair
// correction of special neighbours with fractional factors. Each atom
// computes the force on itself only (docs/algorithms.md, "Bonds, angles and
// special pairs"): it finds its partners among the locals and ghosts through
// a global-id map, so no force is ever sent back to a ghost's owner and the
// result does not depend on the rank layout or the thread count.
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "atoms/atom_store.hpp"
#include "atoms/molecular_fields.hpp"
#include "backend/cpu_bond_kernel.hpp"
#include "bonded/bonded_coeffs.hpp"
#include "bonded/bonded_force.hpp"
#include "bonded/id_map.hpp"
#include "forces/force.hpp"
#include "neighbor/neighbor_list.hpp"

namespace tessera {

class PairStyle;

// What the bonded forces of one run share: the id map of its atoms, made
// again after each list build (the ghosts change only then).
class BondedAtoms {
 public:
  // `reach`: how far the ghosts reach, for the messages.
  explicit BondedAtoms(double reach) : reach_(reach) {}
  const IdMap& map(const AtomStore& a, const NeighborList& list) const {
    if (list.builds != built_) {
      map_.build(a);
      built_ = list.builds;
    }
    return map_;
  }
  double reach() const { return reach_; }
  // Where atom i's partner `id` is: its image nearest atom i, or -1 when
  // that is farther than the ghosts reach. Beyond the reach the nearest
  // copy this rank holds need not be the partner's nearest image (on one
  // rank, the partner itself across the box): using it would make a bond
  // of the wrong length, so it counts as missing.
  int partner(const IdMap& map, AtomId id, const AtomStore& a, std::size_t i) const {
    return within_reach(a, i, map.nearest(id, a.x[i], a.y[i], a.z[i], a));
  }
  // j when it is a copy (not -1) within the ghosts' reach of atom i, else -1.
  int within_reach(const AtomStore& a, std::size_t i, int j) const {
    if (j < 0) return -1;
    const double dx = a.x[j] - a.x[i], dy = a.y[j] - a.y[i], dz = a.z[j] - a.z[i];
    return dx * dx + dy * dy + dz * dz <= reach_ * reach_ ? j : -1;
  }

 private:
  double reach_;
  mutable IdMap map_;
  mutable long built_ = -1;
};

// Why a bond or an angle could not be computed, in the words of every
// backend (the device's twins, kernels/device/bonded_forces.hpp, say the same).
inline std::string missing_bond_partner(const char* style, AtomId id, AtomId partner, int type, double reach,
                                        double nearest_copy = -1) {
  const std::string seen =
      nearest_copy < 0 ? std::string() : fmt::format(" (its nearest copy on this rank is {:.10g} away)", nearest_copy);
  return fmt::format("the {} bond between atoms {} and {} (type {}): atom {} is not within the ghosts' reach "
                     "({:g}) of atom {}{}; the bond has stretched beyond it, or the reach is too short "
                     "(neighbor.ghost_cutoff)",
                     style, std::min(id, partner), std::max(id, partner), type, partner, reach, id, seen);
}
inline std::string broken_bond(const char* style, AtomId id, AtomId partner, int type, double length) {
  return fmt::format("the {} bond between atoms {} and {} (type {}) is broken: its length {:.10g} reached "
                     "the bond's maximum extent",
                     style, std::min(id, partner), std::max(id, partner), type, length);
}
// A bond whose style clamped its energy (BondStatus::kStretched: a FENE
// bond past sqrt(0.9) R0, LAMMPS's "FENE bond too long"), at its first
// step; `later`: how many later steps, up to `last`, had one too.
inline std::string stretched_bond(const char* style, AtomId id, AtomId partner, int type, double length,
                                  long later = 0, long last = 0) {
  return fmt::format("the {} bond between atoms {} and {} (type {}) is too long: length {:.10g}, past "
                     "sqrt(0.9) R0, where its log term is clamped as LAMMPS's (1 - (r/R0)^2 taken as 0.1){}",
                     style, std::min(id, partner), std::max(id, partner), type, length,
                     later > 0 ? fmt::format("; bonds were too long at {} more steps, up to step {}", later, last)
                               : std::string());
}
inline std::string missing_angle_partner(AtomId id, int type, AtomId a, AtomId b, AtomId partner, double reach) {
  return fmt::format("an angle of atom {} (type {}, with atoms {} and {}): atom {} is not within the ghosts' "
                     "reach ({:g}) of atom {}; raise neighbor.ghost_cutoff to about two bond lengths",
                     id, type, a, b, partner, reach, id);
}

namespace bonded_detail {

// The copy of each slot's partner nearest its atom, found once per list
// build: the ghosts, and so the indices, only change then, and an atom moves
// less than the skin in between, far less than the distance between two
// images of one partner (LAMMPS fixes its bond partners at each
// reneighbouring too). Steps then read the partners without the id map;
// the reach is still checked every step (BondedAtoms::within_reach).
template <int Slots>
struct PartnerSlots {
  long built = -1;
  std::vector<int> at[Slots];  // at[s][i]: the copy's index, or -1 for none (or an empty slot)
  // ids(s, i): the partner's id in slot s of atom i, or 0 for an empty slot.
  template <class Ids>
  void refresh(const AtomStore& a, const IdMap& map, long builds, Ids ids) {
    if (built == builds) return;
    const long n = static_cast<long>(a.nlocal);
    for (auto& v : at) v.resize(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; ++i)
      for (int s = 0; s < Slots; ++s) {
        const AtomId id = ids(s, i);
        at[s][i] = id == 0 ? -1 : map.nearest(id, a.x[i], a.y[i], a.z[i], a);
      }
    built = builds;
  }
};

// One atom's sums, added to (or stored in) its force, energy and virial.
struct Sums : BondedSums {
  void write(AtomStore& a, std::size_t i, const PassOptions& opt) const {
    double* out[5] = {a.fx.data(), a.fy.data(), a.fz.data(), a.pe.data(), a.virial.data()};
    const double v[5] = {f[0], f[1], f[2], e, w};
    for (int c = 0; c < 5; ++c) out[c][i] = opt.accumulate ? out[c][i] + v[c] : v[c];
    for (int c = 0; c < 6 && opt.virial_tensor(); ++c)
      opt.tensor[c][i] = opt.accumulate ? opt.tensor[c][i] + t[c] : t[c];
  }
};

inline Vec3<double> minus(const AtomStore& a, std::size_t i, int j) {
  return Vec3<double>{a.x[i] - a.x[j], a.y[i] - a.y[j], a.z[i] - a.z[j]};
}

}  // namespace bonded_detail

// What the bond and angle forces share: the style's parameters by type
// (index 0 unused), the run's atoms, and the last computation's failure.
template <class Style>
class BondedForceOf : public Force {
 public:
  BondedForceOf(std::vector<typename Style::Params> by_type, std::shared_ptr<const BondedAtoms> atoms)
      : params_(std::move(by_type)), atoms_(std::move(atoms)) {}
  const char* name() const override { return Style::name; }
  double max_cutoff() const override { return 0; }
  bool reads_half_list() const override { return true; }  // partners by id, not by the list's rows
  bool reads_record_offsets() const override { return true; }
  bool may_fail() const override { return true; }
  std::string failure() const override { return failure_; }
  std::string warning() const override { return warning_; }
  // The parameters by type (index 0 unused) and the shared atoms: what the
  // device twin (kernels/device/bonded_forces.hpp) is made from.
  using StyleType = Style;
  const std::vector<typename Style::Params>& params() const { return params_; }
  const BondedAtoms& atoms() const { return *atoms_; }

 protected:
  std::vector<typename Style::Params> params_;
  std::shared_ptr<const BondedAtoms> atoms_;
  mutable std::string failure_, warning_;
};

// The bonds of style `Style` (bonded/bond_*.hpp), parameters by bond type.
template <class Style>
class BondForce final : public BondedForceOf<Style> {
  using Base = BondedForceOf<Style>;
  using Base::atoms_, Base::failure_, Base::params_, Base::warning_;

 public:
  using Base::Base;

  void compute_pass(int, AtomStore& a, const NeighborList& list, const PassOptions& opt) const override {
    const IdMap& map = atoms_->map(a, list);
    const MolecularArrays m = molecular_arrays(a);
    partners_.refresh(a, map, list.builds,
                      [&](int b, long i) { return m.bond_type[b][i] != 0 ? m.bond_atom[b][i] : AtomId{0}; });
    const long n = static_cast<long>(a.nlocal);
    long bad = n;        // the first atom whose bond cannot be computed
    long stretched = n;  // the first atom with a bond its style clamped
    if constexpr (kHasBondKernels<Style>) {
      BondKernelArgs<typename Style::Params> k{};
      k.x = a.x.data(), k.y = a.y.data(), k.z = a.z.data();
      for (int b = 0; b < kMaxBonds; ++b) k.type[b] = m.bond_type[b], k.partner[b] = partners_.at[b].data();
      k.params = params_.data();
      k.one_type = params_.size() == 2;
      k.reach_sq = atoms_->reach() * atoms_->reach();
      k.fx = a.fx.data(), k.fy = a.fy.data(), k.fz = a.fz.data(), k.pe = a.pe.data(), k.virial = a.virial.data();
      for (int c = 0; c < 6; ++c) k.tensor[c] = opt.tensor[c];
      k.accumulate = opt.accumulate;
      const BondKernelFn<Style> kernel = bond_kernel_for<Style>(simd_level());
      // One kernel chunk (cpu_bond_kernel_impl.hpp's kBondChunk atoms) a
      // call; each thread takes a contiguous run of them.
      const long block = 64, chunks = (n + block - 1) / block;
#pragma omp parallel for schedule(static) reduction(min : bad, stretched)
      for (long c = 0; c < chunks; ++c) {
        const long end = std::min(n, (c + 1) * block);
        const BondKernelResult r = kernel(k, c * block, end);
        if (r.bad < end) bad = std::min(bad, r.bad);
        if (r.stretched < end) stretched = std::min(stretched, r.stretched);
      }
    } else {
#pragma omp parallel for schedule(static) reduction(min : bad, stretched)
      for (long i = 0; i < n; ++i) {
        bonded_detail::Sums s;
        for (int b = 0; b < kMaxBonds && m.bond_type[b][i] != 0; ++b) {
          const int j = atoms_->within_reach(a, static_cast<std::size_t>(i), partners_.at[b][i]);
          if (j < 0) {
            bad = std::min(bad, i);
            continue;
          }
          const Vec3<double> d = bonded_detail::minus(a, static_cast<std::size_t>(i), j);
          Vec3<double> f;
          double eh, wh;
          const BondStatus status = bond_force_on_self<Style>(d, params_[m.bond_type[b][i]], f, eh, wh);
          if (status == BondStatus::kBroken) bad = std::min(bad, i);
          if (status == BondStatus::kStretched) stretched = std::min(stretched, i);
          s.f[0] += f.x, s.f[1] += f.y, s.f[2] += f.z;
          s.e += eh, s.w += wh;
          if (opt.virial_tensor()) {
            const double dd[3] = {d.x, d.y, d.z}, ff[3] = {f.x, f.y, f.z};
            s.add_tensor(dd, ff, 0.5);
          }
        }
        s.write(a, static_cast<std::size_t>(i), opt);
      }
    }
    failure_ = bad < n ? explain(a, map, m, static_cast<std::size_t>(bad)) : std::string();
    warning_ = stretched < n ? explain_stretched(a, map, m, static_cast<std::size_t>(stretched)) : std::string();
  }

 private:
  std::string explain(const AtomStore& a, const IdMap& map, const MolecularArrays& m, std::size_t i) const {
    for (int b = 0; b < kMaxBonds && m.bond_type[b][i] != 0; ++b) {
      const AtomId partner = m.bond_atom[b][i];
      const int j = atoms_->partner(map, partner, a, i);
      if (j < 0) {
        // A copy beyond the reach may still be the partner's nearest image:
        // its distance then tells a stretched bond from a missing one.
        const int far = map.nearest(partner, a.x[i], a.y[i], a.z[i], a);
        const Vec3<double> df = far < 0 ? Vec3<double>{-1, 0, 0} : bonded_detail::minus(a, i, far);
        return missing_bond_partner(Style::name, a.id[i], partner, m.bond_type[b][i], atoms_->reach(),
                                    far < 0 ? -1.0 : std::sqrt(dot3(df, df)));
      }
      const Vec3<double> d = bonded_detail::minus(a, i, j);
      double fb, e;
      if (Style::eval(dot3(d, d), params_[m.bond_type[b][i]], fb, e) == BondStatus::kBroken)
        return broken_bond(Style::name, a.id[i], partner, m.bond_type[b][i], std::sqrt(dot3(d, d)));
    }
    return fmt::format("a bond of atom {} could not be computed", a.id[i]);
  }
  std::string explain_stretched(const AtomStore& a, const IdMap& map, const MolecularArrays& m, std::size_t i) const {
    for (int b = 0; b < kMaxBonds && m.bond_type[b][i] != 0; ++b) {
      const AtomId partner = m.bond_atom[b][i];
      const int j = atoms_->partner(map, partner, a, i);
      if (j < 0) continue;
      const Vec3<double> d = bonded_detail::minus(a, i, j);
      double fb, e;
      if (Style::eval(dot3(d, d), params_[m.bond_type[b][i]], fb, e) == BondStatus::kStretched)
        return stretched_bond(Style::name, a.id[i], partner, m.bond_type[b][i], std::sqrt(dot3(d, d)));
    }
    return fmt::format("a bond of atom {} is too long", a.id[i]);
  }

  mutable bonded_detail::PartnerSlots<kMaxBonds> partners_;
};

// The angles of style `Style` (bonded/angle_*.hpp), parameters by angle type.
template <class Style>
class AngleForce final : public BondedForceOf<Style> {
  using Base = BondedForceOf<Style>;
  using Base::atoms_, Base::failure_, Base::params_;

 public:
  using Base::Base;

  void compute_pass(int, AtomStore& a, const NeighborList& list, const PassOptions& opt) const override {
    const IdMap& map = atoms_->map(a, list);
    const MolecularArrays m = molecular_arrays(a);
    // Slots 2g and 2g+1: the angle's two other atoms.
    partners_.refresh(a, map, list.builds, [&](int s, long i) {
      const int g = s / 2;
      return m.angle_info[g][i] == 0 ? AtomId{0} : (s % 2 == 0 ? m.angle_a[g][i] : m.angle_b[g][i]);
    });
    const long n = static_cast<long>(a.nlocal);
    long bad = n;
#pragma omp parallel for schedule(static) reduction(min : bad)
    for (long i = 0; i < n; ++i) {
      bonded_detail::Sums s;
      for (int g = 0; g < kMaxAngles && m.angle_info[g][i] != 0; ++g) {
        // The angle's three atoms in its order, this one at `role`.
        const int role = angle_role_of(m.angle_info[g][i]);
        const int ja = atoms_->within_reach(a, static_cast<std::size_t>(i), partners_.at[2 * g][i]);
        const int jb = atoms_->within_reach(a, static_cast<std::size_t>(i), partners_.at[2 * g + 1][i]);
        if (ja < 0 || jb < 0) {
          bad = std::min(bad, i);
          continue;
        }
        const int self = static_cast<int>(i);
        const int k1 = role == 0 ? self : ja, k2 = role == 1 ? self : (role == 0 ? ja : jb),
                  k3 = role == 2 ? self : jb;
        const Vec3<double> d1{a.x[k1] - a.x[k2], a.y[k1] - a.y[k2], a.z[k1] - a.z[k2]};
        const Vec3<double> d2{a.x[k3] - a.x[k2], a.y[k3] - a.y[k2], a.z[k3] - a.z[k2]};
        Vec3<double> f1, f2, f3;
        double e, w;
        angle_forces<Style>(d1, d2, params_[angle_type_of(m.angle_info[g][i])], f1, f2, f3, e, w);
        const Vec3<double>& f = role == 0 ? f1 : (role == 1 ? f2 : f3);
        s.f[0] += f.x, s.f[1] += f.y, s.f[2] += f.z;
        s.e += e / 3, s.w += w / 3;
        if (opt.virial_tensor()) {
          const double a1[3] = {d1.x, d1.y, d1.z}, b1[3] = {f1.x, f1.y, f1.z};
          const double a2[3] = {d2.x, d2.y, d2.z}, b2[3] = {f3.x, f3.y, f3.z};
          s.add_tensor(a1, b1, 1.0 / 3);
          s.add_tensor(a2, b2, 1.0 / 3);
        }
      }
      s.write(a, static_cast<std::size_t>(i), opt);
    }
    failure_.clear();
    if (bad < n) {
      const std::size_t i = static_cast<std::size_t>(bad);
      for (int g = 0; g < kMaxAngles && m.angle_info[g][i] != 0; ++g)
        for (AtomId partner : {m.angle_a[g][i], m.angle_b[g][i]})
          if (failure_.empty() && atoms_->partner(map, partner, a, i) < 0)
            failure_ = missing_angle_partner(a.id[i], angle_type_of(m.angle_info[g][i]), m.angle_a[g][i],
                                             m.angle_b[g][i], partner, atoms_->reach());
    }
  }

 private:
  mutable bonded_detail::PartnerSlots<2 * kMaxAngles> partners_;
};

// Special neighbours with a pair factor between 0 and 1: the list holds
// them as ordinary pairs (factor 1), and this removes (1 - factor) of each
// pair's force, energy and virial, through the pair style's own eval_pair.
// Pairs with factor 0 never reach the list (neighbor/verlet_builder.cpp).
class SpecialPairCorrection final : public Force {
 public:
  SpecialPairCorrection(const PairStyle& pair, const double special_lj[3], std::shared_ptr<const BondedAtoms> atoms);
  const char* name() const override { return "special pairs"; }
  double max_cutoff() const override { return 0; }
  bool reads_half_list() const override { return true; }  // partners by id, not by the list's rows
  bool reads_record_offsets() const override { return true; }
  void compute_pass(int, AtomStore& a, const NeighborList& list, const PassOptions& opt) const override;
  // What the device twin is made from: the pair style and the factors of
  // levels 1-2, 1-3 and 1-4.
  const PairStyle& pair() const { return pair_; }
  const double* factors() const { return factor_; }

 private:
  const PairStyle& pair_;
  double factor_[3];
  std::shared_ptr<const BondedAtoms> atoms_;
  mutable bonded_detail::PartnerSlots<kMaxSpecial> partners_;
};

}  // namespace tessera
