#pragma once
// The CPU kernels of the two EAM passes (manybody/eam_kernels.hpp) in lane
// form, compiled into the pair kernel's variant units.
//
// Summation order: the pair kernel's (cpu_pair_kernel.hpp), lane l taking
// neighbours l, l + kPairLanes, ..., reduced in the same fixed tree, for
// rho and for every sum of the force pass; but the neighbours dealt to the
// lanes are those of the list inside the cutoff, in list order (the density
// pass keeps them first). Per pair each lane does, operation for operation,
// what EamDensity and EamForces do in double, so the variants are bitwise
// identical to each other and differ from the portable functors by the
// order of the sums only.
//
// No lane loop reads a table at a lane's own knot, which GCC 12 does not
// vectorise (benchmarks/NOTES.md, "EAM: the race"): each lane's spline
// piece is read as rows and transposed into lane arrays first, as the
// positions are.
#include "backend/cpu_pair_kernel.hpp"
#include "backend/cpu_simd.hpp"

namespace tessera {

// Raw pointers only, as PairKernelArgs: the variants share nothing else
// with the rest of the program.
struct EamKernelArgs : KernelOutputs {
  const double* pos;  // x, y, z, type (as a double) per atom, local and ghost
  const int* nbr;
  const int* nbr_count;
  long stride;
  bool padded;  // as PairKernelArgs::padded
  bool one_type;
  // The r tables of EamView (each table (nr + 1) knots of kEamCoeffs).
  const double* rhor;
  const double* z2r;
  const int* type2rhor;
  const int* type2z2r;
  int ntp;  // ntypes + 1
  int nr;
  double rdr, cutsq;
  // Density pass: rho_i of the locals, and each local's neighbours inside
  // the cutoff, in list order, into row i * kept_stride of `kept` (the row
  // then padded with i to a whole block): both passes' spline work runs
  // over these, not over the skin's ~40 % of the list.
  // kept_stride >= stride + kPairLanes.
  double* rho = nullptr;
  int* kept = nullptr;
  int* kept_count = nullptr;
  long kept_stride = 0;
  // Force pass: F' of locals and ghosts and F of the locals (the outputs
  // are the base's).
  const double* fp = nullptr;
  const double* embed = nullptr;
};

// Local atoms [begin, end).
using EamKernelFn = void (*)(const EamKernelArgs& a, int begin, int end);

#define TESSERA_DECLARE_EAM_KERNELS(ns)                         \
  namespace ns {                                                \
  void eam_density(const EamKernelArgs& a, int begin, int end); \
  void eam_forces(const EamKernelArgs& a, int begin, int end);  \
  }
TESSERA_DECLARE_EAM_KERNELS(simd_scalar)
TESSERA_DECLARE_EAM_KERNELS(simd_avx2)
TESSERA_DECLARE_EAM_KERNELS(simd_avx512)
#undef TESSERA_DECLARE_EAM_KERNELS

// pass 0: the density kernel of `level`; 1: the force kernel.
inline EamKernelFn eam_kernel_for(SimdLevel level, int pass) {
  switch (level) {
    case SimdLevel::kAvx512: return pass == 0 ? &simd_avx512::eam_density : &simd_avx512::eam_forces;
    case SimdLevel::kAvx2: return pass == 0 ? &simd_avx2::eam_density : &simd_avx2::eam_forces;
    default: return pass == 0 ? &simd_scalar::eam_density : &simd_scalar::eam_forces;
  }
}

}  // namespace tessera
