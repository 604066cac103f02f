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

}  // namespace tessera
