// The avx2 variant of the CPU pair, EAM, bond and Langevin kernels (flags in src/CMakeLists.txt).
#define TESSERA_SIMD_NS simd_avx2
#include "backend/cpu_pair_kernel_impl.hpp"
#include "backend/cpu_cluster_kernel_impl.hpp"
#include "backend/cpu_eam_kernel_impl.hpp"
#include "backend/cpu_bond_kernel_impl.hpp"
#include "backend/cpu_langevin_kernel_impl.hpp"

namespace tessera {
namespace simd_avx2 {

#define TESSERA_DEFINE_PAIR_KERNEL(Pot) \
  void pair_kernel(const PairKernelArgs<Pot::Params>& a, int begin, int end) { pair_kernel_of<Pot>(a, begin, end); }
TESSERA_SIMD_POTENTIALS(TESSERA_DEFINE_PAIR_KERNEL)

#define TESSERA_DEFINE_CLUSTER_KERNEL(Pot)                                                      \
  void cluster_kernel(const ClusterKernelArgs<Pot::Params>& a, int begin, int end) {            \
    cluster_kernel_of<Pot>(a, begin, end);                                                     \
  }
TESSERA_SIMD_POTENTIALS(TESSERA_DEFINE_CLUSTER_KERNEL)

bool clusters_near(const double* ci, const double* cj, double reach_sq) {
  return clusters_near_impl(ci, cj, reach_sq);
}

void neighbor_scan_group(const double* x, const double* y, const double* z, const int* atoms, int n, double reach_sq,
                         ScanGroup& g) {
  neighbor_scan_group_impl(x, y, z, atoms, n, reach_sq, g);
}

void copy_candidates(const CandidatesIn& from, int m0, int n, const CandidatesOut& to, int at) {
  copy_candidates_impl(from, m0, n, to, at);
}

#define TESSERA_DEFINE_BOND_KERNEL(Style)                                                    \
  BondKernelResult bond_kernel(const BondKernelArgs<Style::Params>& a, long begin, long end) { \
    return bond_kernel_of<Style>(a, begin, end);                                             \
  }
TESSERA_SIMD_BOND_STYLES(TESSERA_DEFINE_BOND_KERNEL)

void langevin_forces(const LangevinForce& f, int n) { langevin_forces_impl(f, n); }

void eam_density(const EamKernelArgs& a, int begin, int end) { eam_density_of(a, begin, end); }
void eam_forces(const EamKernelArgs& a, int begin, int end) { eam_forces_of(a, begin, end); }

}  // namespace simd_avx2
}  // namespace tessera
