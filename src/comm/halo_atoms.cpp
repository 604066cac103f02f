#include "comm/halo_atoms.hpp"

#include <algorithm>
#include <cstddef>

#include "backend/cpu_exec.hpp"
#include "domain/ghost_ops.hpp"

namespace tessera {

namespace {

double& coord(AtomStore& a, int d, std::size_t i) { return d == 0 ? a.x[i] : (d == 1 ? a.y[i] : a.z[i]); }

// HaloAtoms::pick_ghosts's selection: atoms i < n near the face, in order.
void near_bound(AtomStore& a, int d, int dir, double bound, std::size_t n, std::vector<int>& picked) {
  picked.clear();
  for (std::size_t i = 0; i < n; ++i) {
    const double v = coord(a, d, i);
    if (dir < 0 ? v < bound : v >= bound) picked.push_back(static_cast<int>(i));
  }
}

}  // namespace

void copy_migrant(AtomStore& to, std::size_t k, const AtomStore& from, std::size_t i) {
  zip_fields(to, from, kFieldMigrates, [k, i](auto& t, const auto& f, FieldInfo) { t[k] = f[i]; });
}

void push_migrant(AtomStore& to, const AtomStore& from, std::size_t i) {
  to.resize_local(to.nlocal + 1);
  copy_migrant(to, to.nlocal - 1, from, i);
}

void resize_records(AtomStore& r, unsigned mask, std::size_t n) {
  r.nlocal = n;
  r.nghost = 0;
  for_each_field(r, mask, [n](auto& v, FieldInfo) { v.resize(n); });
}

void HostHaloAtoms::pick_ghosts(int d, int dir, double bound, std::size_t n, double shift, std::vector<int>& picked,
                                AtomStore& out) {
  near_bound(a_, d, dir, bound, n, picked);
  resize_records(out, kFieldGhost, picked.size());
  zip_fields(out, a_, kFieldGhost, [&](auto& r, const auto& v, const FieldInfo& f) {
    cpu_for(picked.size(), copy_imaged(f, d, shift, picked.data(), v.data(), r.data(), 0));
  });
}

void HostHaloAtoms::add_ghosts(const AtomStore& in) {
  const std::size_t first = a_.nall();
  a_.resize_ghosts(a_.nghost + in.nlocal);
  zip_fields(a_, in, kFieldGhost, [&](auto& v, const auto& r, FieldInfo) {
    std::copy(r.begin(), r.begin() + static_cast<std::ptrdiff_t>(in.nlocal), v.begin() + static_cast<std::ptrdiff_t>(first));
  });
}

void HostHaloAtoms::image_ghosts(int d, int dir, double bound, std::size_t n, double shift, std::vector<int>& picked) {
  near_bound(a_, d, dir, bound, n, picked);
  const std::size_t first = a_.nall();
  a_.resize_ghosts(a_.nghost + picked.size());
  for_each_field(a_, kFieldGhost, [&](auto& v, const FieldInfo& f) {
    cpu_for(picked.size(), copy_imaged(f, d, shift, picked.data(), v.data(), v.data(), first));
  });
}

void HostHaloAtoms::take_leavers(int d, double lo, double hi, AtomStore& below, AtomStore& above) {
  AtomStore& a = a_;
  a.resize_ghosts(0);
  leavers_.clear();
  for (std::size_t i = 0; i < a.nlocal; ++i) {
    const double v = coord(a, d, i);
    if (v < lo || v >= hi) {
      push_migrant(v < lo ? below : above, a, i);
      leavers_.push_back(i);
    }
  }
  if (leavers_.empty()) return;
  // Close the gaps field by field, each array by block moves of the runs
  // between leavers (forward, so an overlapping std::copy is safe), rather
  // than atom by atom across every field: with the molecular fields that is
  // some forty arrays, and the atom-by-atom copy was 5 % of a chain run on
  // 2 ranks.
  leavers_.push_back(a.nlocal);  // the end of the last run
  for_each_field(a, kFieldMigrates, [&](auto& v, FieldInfo) {
    auto to = v.begin() + static_cast<std::ptrdiff_t>(leavers_[0]);
    for (std::size_t q = 0; q + 1 < leavers_.size(); ++q)
      to = std::copy(v.begin() + static_cast<std::ptrdiff_t>(leavers_[q] + 1),
                     v.begin() + static_cast<std::ptrdiff_t>(leavers_[q + 1]), to);
  });
  a.resize_local(a.nlocal - (leavers_.size() - 1));  // keeps the first entries
}

void HostHaloAtoms::add_locals(const AtomStore& in) {
  AtomStore& a = a_;
  const std::size_t base = a.nlocal, n = in.nlocal;
  a.resize_local(base + n);
  for (std::size_t j = 0; j < n; ++j) copy_migrant(a, base + j, in, j);
}

}  // namespace tessera
