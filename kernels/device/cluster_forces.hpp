#pragma once
// Pair forces over a cluster list (cluster_list.hpp): one thread per atom
// slot of each listed cluster, the 8 threads of a cluster reading the same
// cluster pairs. The pair math is PairSums (src/potentials/pair_force.hpp),
// as for the per-atom rows; only the order of the neighbours differs, so the
// two layouts agree to rounding.
#include <cstdint>

#include "atoms/molecular_fields.hpp"
#include "device/cluster_list.hpp"
#include "potentials/pair_force.hpp"

namespace tessera::device {
inline namespace TESSERA_DEVICE_SYSTEM_NS {

template <class Pot, class Real = double, bool kTensor = false>
struct ClusterPairForce {
  const double* x;
  const double* y;
  const double* z;
  const int* type;
  const int* slot_atom;
  const int* first;
  const int* row_cluster;
  const int* count;
  const int* cj;
  const std::uint8_t* jmask;
  int stride;
  int nlocal;
  const int* rows;  // the rows to run (inner or outer), or null for all
  const typename Pot::Params* params;
  int type_stride;
  KernelOutputs out;  // the tensor's arrays: kTensor only
  // Molecules: the ids and the locals' special slots (null when the
  // molecular fields are off). A cluster pair's mask is the i cluster's,
  // so an atom's factor-0 partners are skipped here, pair by pair.
  const AtomId* id = nullptr;
  AtomId* special[kMaxSpecial] = {};

  TESSERA_HD void operator()(int t) const {
    const int r = rows ? rows[t / kClusterSize] : t / kClusterSize;
    const int slot = first[row_cluster[r]] + t % kClusterSize;
    if (slot >= first[row_cluster[r] + 1]) return;
    const int i = slot_atom[slot];
    if (i >= nlocal) return;  // a ghost in a cluster with locals
    PairSums<Pot, Real, kTensor> s{x[i], y[i], z[i], params + type[i] * type_stride};
    const ExcludedIds excluded(special, i);
    const long row = static_cast<long>(r) * stride;
    for (int k = 0; k < count[r]; ++k) {
      const int c = cj[row + k];
      const unsigned m = jmask[row + k];
      const int s0 = first[c];
      for (int jj = 0; jj < kClusterSize; ++jj) {
        if (!(m >> jj & 1u)) continue;
        const int j = slot_atom[s0 + jj];
        if (j != i && !(excluded.n > 0 && excluded.has(id[j]))) s.add(x[j], y[j], z[j], type[j]);
      }
    }
    s.store(i, out);
  }
};

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
