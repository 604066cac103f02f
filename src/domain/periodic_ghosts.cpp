#include "domain/periodic_ghosts.hpp"

namespace tessera {

void PeriodicGhosts::wrap(AtomStore& a, const Box& box) {
  double* pos[3] = {a.x.data(), a.y.data(), a.z.data()};
  int* img[3] = {a.ix.data(), a.iy.data(), a.iz.data()};
  const long n = static_cast<long>(a.nlocal);
  for (int d = 0; d < 3; ++d) {
    const double lo = box.lo[d], hi = box.hi[d], len = box.length(d);
    double* p = pos[d];
    int* im = img[d];
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; ++i) {
      // One image at most: the step guard stops any atom that moves more
      // than the skin, far less than a box length.
      if (p[i] >= hi) {
        p[i] -= len;
        if (p[i] < lo) p[i] = lo;  // rounding of hi - len
        ++im[i];
      } else if (p[i] < lo) {
        p[i] += len;
        if (p[i] >= hi) p[i] = lo;  // -tiny + len rounds to len
        --im[i];
      }
    }
  }
}

void PeriodicGhosts::build(AtomStore& a, const SubDomain& sd, double reach) {
  source_.clear();
  shift_.clear();
  a.resize_ghosts(0);
  for (int d = 0; d < 3; ++d) {
    const double len = sd.global.length(d);
    const std::size_t n = a.nall();
    for (std::size_t i = 0; i < n; ++i) {
      const double v = d == 0 ? a.x[i] : (d == 1 ? a.y[i] : a.z[i]);
      for (int dir = -1; dir <= 1; dir += 2) {
        const bool near = dir > 0 ? v < sd.lo[d] + reach : v >= sd.hi[d] - reach;
        if (!near) continue;
        const bool is_ghost = i >= a.nlocal;
        const std::size_t g = i >= a.nlocal ? i - a.nlocal : 0;
        source_.push_back(is_ghost ? source_[g] : static_cast<int>(i));
        signed char s[3] = {0, 0, 0};
        if (is_ghost)
          for (int e = 0; e < 3; ++e) s[e] = shift_[3 * g + e];
        s[d] = static_cast<signed char>(s[d] + dir);
        shift_.insert(shift_.end(), s, s + 3);
        a.x.push_back(a.x[i] + (d == 0 ? dir * len : 0.0));
        a.y.push_back(a.y[i] + (d == 1 ? dir * len : 0.0));
        a.z.push_back(a.z[i] + (d == 2 ? dir * len : 0.0));
        a.id.push_back(a.id[i]);
        a.type.push_back(a.type[i]);
        ++a.nghost;
      }
    }
  }
  // Ghost-stored fields the loop above does not copy (a force's forwarded
  // intermediates) get their ghost entries too.
  a.resize_ghosts(a.nghost);
}

void PeriodicGhosts::update_positions(AtomStore& a, const Box& box) const {
  const long ng = static_cast<long>(a.nghost);
  const std::size_t nl = a.nlocal;
  const double lx = box.length(0), ly = box.length(1), lz = box.length(2);
#pragma omp parallel for schedule(static)
  for (long g = 0; g < ng; ++g) {
    const int s = source_[g];
    a.x[nl + g] = a.x[s] + shift_[3 * g] * lx;
    a.y[nl + g] = a.y[s] + shift_[3 * g + 1] * ly;
    a.z[nl + g] = a.z[s] + shift_[3 * g + 2] * lz;
  }
}

void PeriodicGhosts::forward(AtomStore& a, const std::vector<double*>& fields, bool periodic, const Box& box) const {
  if (periodic) return update_positions(a, box);
  const long n = static_cast<long>(a.nghost);
  for (double* v : fields) {
#pragma omp parallel for schedule(static)
    for (long g = 0; g < n; ++g) v[a.nlocal + g] = v[source_[g]];
  }
}

}  // namespace tessera
