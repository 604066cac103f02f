#pragma once
// The CPU pair kernel: the loop of PairForce<Pot> in a form that compilers
// vectorise, with the same result on every instruction set.
//
// Summation order (the contract every variant keeps; the mixed-precision
// form's is in cpu_pair_kernel_mixed_impl.hpp): an atom's neighbours
// are dealt to kPairLanes partial sums, lane l taking neighbours l,
// l + kPairLanes, ...; a neighbour beyond the cutoff adds nothing. The lanes
// are then reduced in a fixed tree, ((l0+l4)+(l2+l6)) + ((l1+l5)+(l3+l7)).
// Each variant is the same source (cpu_pair_kernel_impl.hpp) compiled with
// -ffp-contract=off for baseline x86-64, x86-64-v3 and x86-64-v4, so no
// variant fuses a multiply-add that another rounds twice: forces, energies
// and virials are bitwise identical whichever runs. The order differs from
// PairForce<Pot>, so the two agree to rounding only.
#include "backend/cpu_simd.hpp"
#include "core/types.hpp"
#include "forces/kernel_outputs.hpp"
#include "neighbor/record_shift.hpp"
#include "potentials/potential_list.hpp"

namespace tessera {

constexpr int kPairLanes = 8;

// KernelOutputs (forces/kernel_outputs.hpp): cpu_positions.hpp fills it
// from the atoms and the pass's options.

// Raw pointers only: the kernels live in translation units compiled for
// different CPUs and share nothing with the rest of the program but this.
template <class Params>
struct PairKernelArgs : KernelOutputs {
  const double* pos;  // x, y, z, type (as a double) per atom, local and ghost
  // Full rows (double or `mixed`) hold record offsets, a half list's rows
  // atom indices (NeighborList::entry_shift).
  const int* nbr;
  const int* nbr_count;
  long stride;
  bool padded;           // each row holds valid atom indices up to a multiple of kPairLanes
  const Params* params;  // (ntypes+1)^2 table, row-major by type
  int type_stride;
  bool one_type;  // every atom has type 1: the parameters are read once
  // A half list (NeighborList::half): the rows of atoms order[begin, end)
  // (one slab's), each pair's opposite force added to a local partner
  // (index < nlocal), a local pair's whole energy and virial to the row's
  // atom and half of a ghost pair's; every output is added to (accumulate:
  // the caller zeroes them first when the force is the list's first).
  bool half = false;
  const int* order = nullptr;
  int nlocal = 0;
  // Mixed precision on full rows (cpu_pair_kernel_mixed_impl.hpp): per atom,
  // local and ghost, x y z as integer multiples of `quantum` (a power of
  // two, from the lowest coordinate up; cpu_positions.hpp) and the type, and
  // the float parameter rows (Pot::ParamsT<float>, laid out as params).
  bool mixed = false;
  const int* pos_fixed = nullptr;
  float quantum = 1.0f;
  const void* float_params = nullptr;
};

// The potentials with kernels compiled for every instruction set. A
// registered potential missing here still runs, with the kernel of
// pair_style_impl.hpp compiled for baseline x86-64 only (bitwise the same
// result, slower); adding it here gives it the vector kernels.
#define TESSERA_SIMD_POTENTIALS(X) \
  X(LJCut)                         \
  X(LJSmoothLinear)                \
  X(Morse)

template <class Pot>
inline constexpr bool kHasSimdKernels = false;

// Local atoms [begin, end) of one variant (of a half list: the atoms
// order[begin, end)).
#define TESSERA_DECLARE_PAIR_KERNELS(Pot)                                     \
  template <>                                                                 \
  inline constexpr bool kHasSimdKernels<Pot> = true;                          \
  namespace simd_scalar {                                                     \
  void pair_kernel(const PairKernelArgs<Pot::Params>& a, int begin, int end); \
  }                                                                           \
  namespace simd_avx2 {                                                       \
  void pair_kernel(const PairKernelArgs<Pot::Params>& a, int begin, int end); \
  }                                                                           \
  namespace simd_avx512 {                                                     \
  void pair_kernel(const PairKernelArgs<Pot::Params>& a, int begin, int end); \
  }
TESSERA_SIMD_POTENTIALS(TESSERA_DECLARE_PAIR_KERNELS)
#undef TESSERA_DECLARE_PAIR_KERNELS

// The ids a scan must leave out (one atom's special neighbours with factor
// 0, every image of them) and the candidates' ids to compare them with,
// indexed as the candidates; n == 0: none, and ids may be null.
struct ScanExclusions {
  const AtomId* ids = nullptr;
  const AtomId* excluded = nullptr;
  int n = 0;
};

// The neighbour-list distance test, in the same variants, for up to
// kScanGroup atoms of one block of cells against the block's shared run of
// candidates: for each atom, appends to out[a], in order, every atoms[m]
// (m < n) other than self[a] with (x[a] - x[m])^2 + (y[a] - y[m])^2 +
// (z[a] - z[m])^2 < reach_sq whose id (ids[m], when ids is set) is none of
// the atom's excluded ids, and sets count[a]. The sum is formed in that
// order without fused multiply-adds in every variant, so all variants list
// the same atoms. The AVX-512 variant loads each candidate vector once for
// the group, whose appends then run side by side (one atom at a time, each
// vector waited on its own append: benchmarks/NOTES.md, 2026-11-29). The
// run is read in whole vectors of 8: x, y, z, atoms and ids need n rounded
// up to 8 entries, those past n far away (+inf); out[a] needs room for
// n + 16.
constexpr int kScanGroup = 4;
struct ScanGroup {
  int n = 0;  // atoms in the group, 1 .. kScanGroup
  double x[kScanGroup], y[kScanGroup], z[kScanGroup];
  int self[kScanGroup];
  int* out[kScanGroup];
  int count[kScanGroup];       // set by the scan
  const AtomId* ids = nullptr;  // the run's ids (null: no exclusions), as far as x
  const AtomId* excluded[kScanGroup] = {};
  int excluded_n[kScanGroup] = {};
};
using NeighborScanGroupFn = void (*)(const double* x, const double* y, const double* z, const int* atoms, int n,
                                     double reach_sq, ScanGroup& g);
namespace simd_scalar {
void neighbor_scan_group(const double*, const double*, const double*, const int*, int, double, ScanGroup&);
}
namespace simd_avx2 {
void neighbor_scan_group(const double*, const double*, const double*, const int*, int, double, ScanGroup&);
}
namespace simd_avx512 {
void neighbor_scan_group(const double*, const double*, const double*, const int*, int, double, ScanGroup&);
}
inline NeighborScanGroupFn neighbor_scan_group_for(SimdLevel level) {
  switch (level) {
    case SimdLevel::kAvx512: return &simd_avx512::neighbor_scan_group;
    case SimdLevel::kAvx2: return &simd_avx2::neighbor_scan_group;
    default: return &simd_scalar::neighbor_scan_group;
  }
}

// The same lists from a float first pass (AVX-512 only; null for the other
// levels): 16 candidates a vector instead of 8. Candidates and the group's
// atoms come as float offsets from a point of the block (fx, fy, fz), whose
// roundings move a float r^2 from the double one by less than `band` (the
// builder's bound, from the offsets' largest magnitude); a candidate whose
// float r^2 lies within `band` of reach_sq is decided by the double test
// above on the atoms' own coordinates (x, y, z, indexed by atom), so each
// list is the double scan's, atom for atom and in order. No exclusions
// (ids must be null). Float arrays are read in whole vectors of 16.
struct ScanGroupFloat {
  float fx[kScanGroup], fy[kScanGroup], fz[kScanGroup];
  const double *x, *y, *z;  // every atom's coordinates, for the band's double test
  float band;
};
using NeighborScanGroupFloatFn = void (*)(const float* x, const float* y, const float* z, const int* atoms, int n,
                                          double reach_sq, const ScanGroupFloat& f, ScanGroup& g);
namespace simd_avx512 {
void neighbor_scan_group_float(const float*, const float*, const float*, const int*, int, double,
                               const ScanGroupFloat&, ScanGroup&);
}
inline NeighborScanGroupFloatFn neighbor_scan_group_float_for(SimdLevel level) {
  return level == SimdLevel::kAvx512 ? &simd_avx512::neighbor_scan_group_float : nullptr;
}

// A list search's candidates, index by index: positions, atom indices and,
// for molecules' exclusions only (else null), ids.
struct CandidatesIn {
  const double *x, *y, *z;
  const int* atoms;
  const AtomId* id;
};
struct CandidatesOut {
  double *x, *y, *z;
  int* atoms;
  AtomId* id;
};

// Copies candidates [m0, m0 + n) of `from` to `to` from index `at` on, in
// whole vectors: `to` needs room for at + n + 8. The builder gathers a
// cell's 9 rows of neighbouring cells this way, a few atoms a row, which
// plain element loops did at a tenth of a 1-thread in.chain run.
using CandidateCopyFn = void (*)(const CandidatesIn& from, int m0, int n, const CandidatesOut& to, int at);
namespace simd_scalar {
void copy_candidates(const CandidatesIn&, int, int, const CandidatesOut&, int);
}
namespace simd_avx2 {
void copy_candidates(const CandidatesIn&, int, int, const CandidatesOut&, int);
}
namespace simd_avx512 {
void copy_candidates(const CandidatesIn&, int, int, const CandidatesOut&, int);
}
inline CandidateCopyFn copy_candidates_for(SimdLevel level) {
  switch (level) {
    case SimdLevel::kAvx512: return &simd_avx512::copy_candidates;
    case SimdLevel::kAvx2: return &simd_avx2::copy_candidates;
    default: return &simd_scalar::copy_candidates;
  }
}

// Candidates [m0, m0 + n) of `from` as float offsets from `origin` into
// x, y, z (and their atoms) from index `at` on, in whole vectors (room for
// at + n + 16); returns the largest offset's magnitude (the float scan's
// band comes from it), infinite when a coordinate is not a number (inf or
// NaN: the band then sends every candidate to the double test). AVX-512
// only, as the float scan.
struct FloatCandidatesOut {
  float *x, *y, *z;
  int* atoms;
};
using CandidateCopyFloatFn = double (*)(const CandidatesIn& from, int m0, int n, const double* origin,
                                        const FloatCandidatesOut& to, int at);
namespace simd_avx512 {
double copy_candidates_float(const CandidatesIn&, int, int, const double*, const FloatCandidatesOut&, int);
}
inline CandidateCopyFloatFn copy_candidates_float_for(SimdLevel level) {
  return level == SimdLevel::kAvx512 ? &simd_avx512::copy_candidates_float : nullptr;
}

template <class Pot>
using PairKernelFn = void (*)(const PairKernelArgs<typename Pot::Params>&, int, int);

// The variant of `level` for Pot (only for potentials in the list above).
template <class Pot>
PairKernelFn<Pot> pair_kernel_for(SimdLevel level) {
  switch (level) {
    case SimdLevel::kAvx512: return &simd_avx512::pair_kernel;
    case SimdLevel::kAvx2: return &simd_avx2::pair_kernel;
    default: return &simd_scalar::pair_kernel;
  }
}

}  // namespace tessera
