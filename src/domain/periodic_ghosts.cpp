#include "domain/periodic_ghosts.hpp"

#include "backend/cpu_exec.hpp"
#include "domain/ghost_ops.hpp"

namespace tessera {

void PeriodicGhosts::wrap(AtomStore& a, const Box& box) {
  cpu_for(a.nlocal, WrapAtom{box, {a.x.data(), a.y.data(), a.z.data()}, {a.ix.data(), a.iy.data(), a.iz.data()}});
}

void PeriodicGhosts::build(AtomStore& a, const SubDomain& sd, double reach) {
  source_.clear();
  shift_.clear();
  a.resize_ghosts(0);
  std::vector<int> picked;
  for (int d = 0; d < 3; ++d) {
    // The stage's candidates in order (the device selects them with copy_if).
    const int n = static_cast<int>(a.nall());
    const NearFace near{d == 0 ? a.x.data() : (d == 1 ? a.y.data() : a.z.data()), sd.lo[d], sd.hi[d], reach};
    picked.clear();
    for (int k = 0; k < 2 * n; ++k)
      if (near(k)) picked.push_back(k);
    const std::size_t m = picked.size(), first = a.nghost;
    a.resize_ghosts(first + m);
    source_.resize(first + m);
    shift_.resize(3 * (first + m));
    cpu_for(m, MakeGhost{picked.data(), n, static_cast<int>(a.nlocal), d, sd.global.length(d), a.x.data(),
                         a.y.data(), a.z.data(), source_.data(), shift_.data()});
  }
  copy_unshifted_from_sources(
      a, static_cast<int>(a.nlocal), static_cast<int>(a.nghost), source_.data(),
      [](std::size_t n, const auto& f) { cpu_for(n, f); }, [](auto& v) { return v.data(); });
}

void PeriodicGhosts::update_positions(AtomStore& a, const Box& box) const {
  cpu_for(a.nghost, MoveGhost{static_cast<int>(a.nlocal),
                              {box.length(0), box.length(1), box.length(2)},
                              source_.data(),
                              shift_.data(),
                              a.x.data(),
                              a.y.data(),
                              a.z.data()});
}

void PeriodicGhosts::forward(AtomStore& a, const std::vector<double*>& fields, bool periodic, const Box& box) const {
  if (periodic) return update_positions(a, box);
  for (double* v : fields) cpu_for(a.nghost, CopyFromSource<double>{static_cast<int>(a.nlocal), source_.data(), v});
}

}  // namespace tessera
