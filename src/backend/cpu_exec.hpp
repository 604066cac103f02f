#pragma once
// CPU execution space: run a host-device functor over [0, n) on OpenMP
// threads. Static scheduling keeps each index on a predictable thread; the
// functors write only their own index, so the result does not depend on it.
#include <cstddef>

namespace tessera {

template <class F>
void cpu_for(std::size_t n, const F& f) {
  const long count = static_cast<long>(n);
#pragma omp parallel for schedule(static)
  for (long i = 0; i < count; ++i) f(static_cast<int>(i));
}

// cpu_for for functors whose iteration i reads nothing another iteration
// writes (the integrator's per-atom steps): the loop is also vectorised,
// which the compiler cannot prove safe by itself through the functor's
// pointer members, and each thread works on a copy of the functor, whose
// fields it would otherwise reload every iteration (a store through one of
// its pointers might have changed them). HalfKick as a plain cpu_for ran
// one atom per ~9 cycles, scalar (in.lj 256k, 2026-11-30).
template <class F>
void cpu_for_simd(std::size_t n, const F& f) {
  // An int counter, as the functors index: with a long one converted per
  // iteration GCC did not vectorise.
  const int count = static_cast<int>(n);
#pragma omp parallel
  {
    const F g = f;
#pragma omp for simd schedule(static)
    for (int i = 0; i < count; ++i) g(i);
  }
}

}  // namespace tessera
