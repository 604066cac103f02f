#pragma once
// The Langevin friction and noise loop over a rank's atoms, one variant per
// instruction set as the pair kernels (cpu_langevin_kernel_impl.hpp says
// why); every variant adds the same bits.
#include "backend/cpu_simd.hpp"
#include "integrate/step_functors.hpp"

namespace tessera {

namespace simd_scalar {
void langevin_forces(const LangevinForce& f, int n);
}
namespace simd_avx2 {
void langevin_forces(const LangevinForce& f, int n);
}
namespace simd_avx512 {
void langevin_forces(const LangevinForce& f, int n);
}

// f on atoms [0, n), by the variant of `level`.
inline void langevin_forces(const LangevinForce& f, int n, SimdLevel level) {
  switch (level) {
    case SimdLevel::kAvx512: return simd_avx512::langevin_forces(f, n);
    case SimdLevel::kAvx2: return simd_avx2::langevin_forces(f, n);
    default: return simd_scalar::langevin_forces(f, n);
  }
}

}  // namespace tessera
