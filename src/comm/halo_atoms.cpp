#include "comm/halo_atoms.hpp"

namespace tessera {

namespace {

double& coord(AtomStore& a, int d, std::size_t i) { return d == 0 ? a.x[i] : (d == 1 ? a.y[i] : a.z[i]); }

}  // namespace

void push_migrant(AtomStore& to, const AtomStore& from, std::size_t i) {
  to.id.push_back(from.id[i]);
  to.type.push_back(from.type[i]);
  to.x.push_back(from.x[i]), to.y.push_back(from.y[i]), to.z.push_back(from.z[i]);
  to.vx.push_back(from.vx[i]), to.vy.push_back(from.vy[i]), to.vz.push_back(from.vz[i]);
  to.ix.push_back(from.ix[i]), to.iy.push_back(from.iy[i]), to.iz.push_back(from.iz[i]);
  ++to.nlocal;
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
    if (kept != i) {
      a.id[kept] = a.id[i];
      a.type[kept] = a.type[i];
      a.x[kept] = a.x[i], a.y[kept] = a.y[i], a.z[kept] = a.z[i];
      a.vx[kept] = a.vx[i], a.vy[kept] = a.vy[i], a.vz[kept] = a.vz[i];
      a.ix[kept] = a.ix[i], a.iy[kept] = a.iy[i], a.iz[kept] = a.iz[i];
    }
    ++kept;
  }
  a.resize_local(kept);  // keeps the first `kept` entries
}

void HostHaloAtoms::add_locals(const AtomStore& in) {
  AtomStore& a = a_;
  const std::size_t base = a.nlocal, n = in.nlocal;
  a.resize_local(base + n);
  for (std::size_t j = 0; j < n; ++j) {
    const std::size_t k = base + j;
    a.id[k] = in.id[j];
    a.type[k] = in.type[j];
    a.x[k] = in.x[j], a.y[k] = in.y[j], a.z[k] = in.z[j];
    a.vx[k] = in.vx[j], a.vy[k] = in.vy[j], a.vz[k] = in.vz[j];
    a.ix[k] = in.ix[j], a.iy[k] = in.iy[j], a.iz[k] = in.iz[j];
  }
}

}  // namespace tessera
