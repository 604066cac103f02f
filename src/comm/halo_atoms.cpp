#include "comm/halo_atoms.hpp"

namespace tessera {

namespace {

double& coord(AtomStore& a, int d, std::size_t i) { return d == 0 ? a.x[i] : (d == 1 ? a.y[i] : a.z[i]); }

}  // namespace

void copy_migrant(AtomStore& to, std::size_t k, const AtomStore& from, std::size_t i) {
  zip_fields(to, from, kFieldMigrates, [k, i](auto& t, const auto& f, FieldInfo) { t[k] = f[i]; });
}

void push_migrant(AtomStore& to, const AtomStore& from, std::size_t i) {
  to.resize_local(to.nlocal + 1);
  copy_migrant(to, to.nlocal - 1, from, i);
}

void HostHaloAtoms::pick_ghosts(int d, int dir, double bound, std::size_t n, double shift, std::vector<int>& picked,
                                GhostRecords& out) {
  picked.clear();
  out.resize(0);
  for (std::size_t i = 0; i < n; ++i) {
    const double v = coord(a_, d, i);
    if (dir < 0 ? v < bound : v >= bound) {
      picked.push_back(static_cast<int>(i));
      out.id.push_back(a_.id[i]);
      out.type.push_back(a_.type[i]);
      for (int e = 0; e < 3; ++e) out.pos.push_back(coord(a_, e, i) + (e == d ? shift : 0.0));
    }
  }
}

void HostHaloAtoms::add_ghosts(const GhostRecords& in) {
  const std::size_t first = a_.nall();
  a_.resize_ghosts(a_.nghost + in.size());
  for (std::size_t k = 0; k < in.size(); ++k) {
    const std::size_t g = first + k;
    a_.id[g] = in.id[k];
    a_.type[g] = in.type[k];
    for (int e = 0; e < 3; ++e) coord(a_, e, g) = in.pos[3 * k + e];
  }
}

void HostHaloAtoms::image_ghosts(int d, int dir, double bound, std::size_t n, double shift, std::vector<int>& picked) {
  GhostRecords r;
  pick_ghosts(d, dir, bound, n, shift, picked, r);
  add_ghosts(r);
}

void HostHaloAtoms::take_leavers(int d, double lo, double hi, AtomStore& below, AtomStore& above) {
  AtomStore& a = a_;
  a.resize_ghosts(0);
  std::size_t kept = 0;
  for (std::size_t i = 0; i < a.nlocal; ++i) {
    const double v = coord(a, d, i);
    if (v < lo || v >= hi) {
      push_migrant(v < lo ? below : above, a, i);
      continue;
    }
    if (kept != i) copy_migrant(a, kept, a, i);
    ++kept;
  }
  a.resize_local(kept);  // keeps the first `kept` entries
}

void HostHaloAtoms::add_locals(const AtomStore& in) {
  AtomStore& a = a_;
  const std::size_t base = a.nlocal, n = in.nlocal;
  a.resize_local(base + n);
  for (std::size_t j = 0; j < n; ++j) copy_migrant(a, base + j, in, j);
}

}  // namespace tessera
