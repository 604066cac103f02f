#pragma once
// The CPU cluster-pair kernel (neighbor/cluster_pairs.hpp): a cluster pair's
// kClusterSize x kClusterSize atom pairs as one block of lanes, each pair
// once, the partner cluster's share of the forces added to its sums in the
// same pass.
//
// Summation order (every variant the same, bitwise, as cpu_pair_kernel.hpp's
// contract): lane s = kClusterSize * i + j holds the pair of the row
// cluster's atom i and the partner's atom j; each lane sums its pairs in
// row order; an atom's lanes are reduced as (j0 + j1) + (j2 + j3); a
// partner atom's share of one block is (i0 + i2) + (i1 + i3), taken off its
// sums at once. Compiled with -ffp-contract=off in each unit like the row
// kernels, so no variant fuses a multiply-add that another rounds twice.
//
// Mixed precision (ClusterKernelArgs::mixed): the same blocks in float. A
// coordinate is delivered as two floats, the centre of its tile (a cube of
// power-of-two width w, so every tile centre difference is exact in float)
// and the offset from it (at most w/2, so float keeps it to a few 1e-9);
// a separation is (o_i - o_j) + (t_i - t_j), carrying little more than its
// own rounding whatever the box's size. Parameters are the float rows of
// potentials/narrow_params.hpp (the same cutoff decisions as in double).
// A lane's forces sum in float over its row (at most one pair per block),
// the row's lanes then in double; a block's share for the partner is summed
// in float, (i0 + i2) + (i1 + i3), and taken off the partner's float sums
// (partner_force); energy and virial are summed in double pair by pair.
#include "backend/cpu_pair_kernel.hpp"
#include "neighbor/cluster_pairs.hpp"

namespace tessera {

// A cluster's coordinates (and forces) are packed, component by component:
// value d of its atom k at [c * kClusterPack * kClusterSize + d *
// kClusterSize + k], so a partner's whole block input is one run of 96
// bytes (double x y z; float tile centres x y z then offsets x y z), not a
// cache line in each of 3 or 6 arrays.
constexpr int kClusterPack = 3;       // double: x y z
constexpr int kClusterPackMixed = 6;  // float: tile centres x y z, offsets x y z

template <class Params>
struct ClusterKernelArgs {
  // Every cluster's coordinates, packed (kClusterPack; unused in mixed
  // precision), and per slot (c * kClusterSize + k) the type (as a double);
  // a short cluster's padding lies far away.
  const double* xyz;
  const double* type;
  const int* row_start;
  const int* ghost_start;  // ClusterPairs::ghost_start
  const int* partner;
  int nlocal_clusters;
  // The local clusters' forces, packed as xyz, added to (the caller zeroes
  // them); per slot, energy and virial (and the tensor, when tensor[0]),
  // stored. A pair of locals counts whole in its row atom's energy and
  // virial, a pair with a ghost half (the ghost's rank counts the other half).
  double* f;
  double *pe, *virial;
  double* tensor[6] = {nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
  bool energy = true;  // false: pe and virial stored as zero (KernelOutputs::energy)
  const Params* params;  // (ntypes+1)^2 table, row-major by type
  int type_stride;
  bool one_type;
  // Mixed precision: every cluster's tile centres and offsets, packed
  // (kClusterPackMixed), and the float parameter rows (Pot::ParamsT<float>,
  // same layout as params).
  bool mixed = false;
  const float* pos32 = nullptr;
  const void* float_params = nullptr;
  // Mixed precision: the local clusters' forces as partners, in float,
  // packed as f (added to; the caller zeroes them and adds them to f).
  float* partner_force = nullptr;
};

#define TESSERA_DECLARE_CLUSTER_KERNELS(Pot)                                        \
  namespace simd_scalar {                                                           \
  void cluster_kernel(const ClusterKernelArgs<Pot::Params>& a, int begin, int end); \
  }                                                                                 \
  namespace simd_avx2 {                                                             \
  void cluster_kernel(const ClusterKernelArgs<Pot::Params>& a, int begin, int end); \
  }                                                                                 \
  namespace simd_avx512 {                                                           \
  void cluster_kernel(const ClusterKernelArgs<Pot::Params>& a, int begin, int end); \
  }
TESSERA_SIMD_POTENTIALS(TESSERA_DECLARE_CLUSTER_KERNELS)
#undef TESSERA_DECLARE_CLUSTER_KERNELS

// The cluster list's test (neighbor/cluster_pairs.cpp): whether any of the
// 16 atom pairs of two clusters, each given as x[4], y[4], z[4], is closer
// than sqrt(reach_sq), in the same three variants (every variant gives the
// same answer: each distance is formed in the same order, without FMA).
using ClusterNearFn = bool (*)(const double* ci, const double* cj, double reach_sq);
namespace simd_scalar {
bool clusters_near(const double*, const double*, double);
}
namespace simd_avx2 {
bool clusters_near(const double*, const double*, double);
}
namespace simd_avx512 {
bool clusters_near(const double*, const double*, double);
}
inline ClusterNearFn clusters_near_for(SimdLevel level) {
  switch (level) {
    case SimdLevel::kAvx512: return &simd_avx512::clusters_near;
    case SimdLevel::kAvx2: return &simd_avx2::clusters_near;
    default: return &simd_scalar::clusters_near;
  }
}

template <class Pot>
using ClusterKernelFn = void (*)(const ClusterKernelArgs<typename Pot::Params>&, int, int);

// The variant of `level` for Pot (only for potentials in TESSERA_SIMD_POTENTIALS).
template <class Pot>
ClusterKernelFn<Pot> cluster_kernel_for(SimdLevel level) {
  switch (level) {
    case SimdLevel::kAvx512: return &simd_avx512::cluster_kernel;
    case SimdLevel::kAvx2: return &simd_avx2::cluster_kernel;
    default: return &simd_scalar::cluster_kernel;
  }
}

}  // namespace tessera
