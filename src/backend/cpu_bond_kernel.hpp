#pragma once
// The CPU bond kernel: BondForce's loop (bonded/bonded_forces.hpp) with
// atoms as vector lanes, compiled for every instruction set as the pair
// kernel is (cpu_pair_kernel.hpp). Each atom still sums its own bonds in slot
// order, with the style's eval and bond_force_on_self, so every variant
// gives bitwise the forces, energies and virials of the scalar loop.
#include "atoms/molecular_fields.hpp"
#include "backend/cpu_simd.hpp"
#include "bonded/bond_fene.hpp"
#include "bonded/bond_harmonic.hpp"

namespace tessera {

// Raw pointers only, as PairKernelArgs: the kernels live in translation
// units compiled for different CPUs.
template <class Params>
struct BondKernelArgs {
  const double *x, *y, *z;  // local and ghost positions
  // Per slot: the local atoms' bond types (0: no bond in this slot or any
  // later one) and their partners' indices (-1: no copy on this rank).
  const int* type[kMaxBonds];
  const int* partner[kMaxBonds];
  const Params* params;  // by bond type, [0] unused
  bool one_type;         // every bond has type 1
  double reach_sq;       // a partner farther than this counts as missing
  // Outputs of the local atoms: stored, or added to when `accumulate`;
  // tensor[0] null when the step asks no virial tensor.
  double *fx, *fy, *fz, *pe, *virial;
  double* tensor[6];
  bool accumulate;
};

// The first atom of a range with a bond that cannot be computed (missing
// partner, or broken), and the first with one its style clamped; the
// range's end where there is none.
struct BondKernelResult {
  long bad, stretched;
};

// The bond styles with kernels for every instruction set. A registered
// style missing here runs BondForce's scalar loop (the same result).
#define TESSERA_SIMD_BOND_STYLES(X) \
  X(BondHarmonic)                   \
  X(BondFENE)

template <class Style>
inline constexpr bool kHasBondKernels = false;

// Local atoms [begin, end).
#define TESSERA_DECLARE_BOND_KERNELS(Style)                                                      \
  template <>                                                                                    \
  inline constexpr bool kHasBondKernels<Style> = true;                                          \
  namespace simd_scalar {                                                                        \
  BondKernelResult bond_kernel(const BondKernelArgs<Style::Params>& a, long begin, long end); \
  }                                                                                              \
  namespace simd_avx2 {                                                                          \
  BondKernelResult bond_kernel(const BondKernelArgs<Style::Params>& a, long begin, long end); \
  }                                                                                              \
  namespace simd_avx512 {                                                                        \
  BondKernelResult bond_kernel(const BondKernelArgs<Style::Params>& a, long begin, long end); \
  }
TESSERA_SIMD_BOND_STYLES(TESSERA_DECLARE_BOND_KERNELS)
#undef TESSERA_DECLARE_BOND_KERNELS

template <class Style>
using BondKernelFn = BondKernelResult (*)(const BondKernelArgs<typename Style::Params>&, long, long);

template <class Style>
BondKernelFn<Style> bond_kernel_for(SimdLevel level) {
  switch (level) {
    case SimdLevel::kAvx512: return &simd_avx512::bond_kernel;
    case SimdLevel::kAvx2: return &simd_avx2::bond_kernel;
    default: return &simd_scalar::bond_kernel;
  }
}

}  // namespace tessera
