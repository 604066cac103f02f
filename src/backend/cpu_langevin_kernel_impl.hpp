// The Langevin friction and noise loop (integrate/step_functors.hpp's
// LangevinForce) for each instruction set, included by the variant units
// (cpu_pair_kernel_<isa>.cpp) into their namespace. The functor is the
// one every path runs; compiled for AVX-512 its counter-based generator
// (ten Philox rounds an atom, 32-bit products) goes sixteen atoms a
// vector. Integer arithmetic and one correctly rounded sqrt, products and
// sums with no contraction: the same bits as the baseline loop.
#ifndef TESSERA_SIMD_NS
#error "include cpu_langevin_kernel_impl.hpp from a cpu_pair_kernel_<isa>.cpp"
#endif
#include "integrate/step_functors.hpp"

namespace tessera {
namespace TESSERA_SIMD_NS {

inline void langevin_forces_impl(const LangevinForce& f, int n) {
#pragma omp parallel
  {
    const LangevinForce g = f;  // a copy per thread, as cpu_for_simd's
#pragma omp for simd schedule(static)
    for (int i = 0; i < n; ++i) g(i);
  }
}

}  // namespace TESSERA_SIMD_NS
}  // namespace tessera
