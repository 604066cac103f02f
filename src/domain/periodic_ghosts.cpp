#include "domain/periodic_ghosts.hpp"

#include <omp.h>

#include "backend/cpu_exec.hpp"
#include "backend/cpu_positions.hpp"
#include "backend/cpu_shares.hpp"
#include "domain/ghost_ops.hpp"

namespace tessera {

void PeriodicGhosts::wrap(AtomStore& a, const Box& box) {
  cpu_for(a.nlocal, WrapAtom{box, {a.x.data(), a.y.data(), a.z.data()}, {a.ix.data(), a.iy.data(), a.iz.data()}});
}

void PeriodicGhosts::build(AtomStore& a, const SubDomain& sd, double reach) {
  source_.clear();
  shift_.clear();
  a.resize_ghosts(0);
  std::vector<int>& picked = picked_;
  for (int d = 0; d < 3; ++d) {
    // The stage's candidates in order (the device selects them with copy_if;
    // here the threads, each from its share: on one thread, the selection
    // was 0.4 % of a 2-thread in.lj 256k run's samples, the other thread
    // idle meanwhile).
    const int n = static_cast<int>(a.nall());
    const NearFace near{d == 0 ? a.x.data() : (d == 1 ? a.y.data() : a.z.data()), sd.lo[d], sd.hi[d], reach};
    select_.run(2L * n, near, picked);
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
  const long nlocal = static_cast<long>(a.nlocal);
  ghost_shares_by_source(source_.data(), static_cast<long>(a.nghost), nlocal, pos_chunks(nlocal), kPosChunk,
                         omp_get_max_threads(), a.ghost_shares);
}

namespace {

// f(g) for every ghost, each on the thread that owns its source (for_own_ghosts).
template <class F>
void for_ghosts_by_source(const AtomStore& a, const F& f) {
  const long nlocal = static_cast<long>(a.nlocal), nghost = static_cast<long>(a.nghost);
#pragma omp parallel
  for_own_ghosts(a.ghost_shares, nlocal, nghost, omp_get_thread_num(), omp_get_num_threads(), [&](long b, long e) {
    for (long g = b; g < e; ++g) f(static_cast<int>(g));
  });
}

}  // namespace

void PeriodicGhosts::update_positions(AtomStore& a, const Box& box) const {
  for_ghosts_by_source(a, MoveGhost{static_cast<int>(a.nlocal),
                                    {box.length(0), box.length(1), box.length(2)},
                                    source_.data(),
                                    shift_.data(),
                                    a.x.data(),
                                    a.y.data(),
                                    a.z.data()});
}

void PeriodicGhosts::forward(AtomStore& a, const std::vector<double*>& fields, bool periodic, const Box& box) const {
  if (periodic) return update_positions(a, box);
  for (double* v : fields)
    for_ghosts_by_source(a, CopyFromSource<double>{static_cast<int>(a.nlocal), source_.data(), v});
}

}  // namespace tessera
