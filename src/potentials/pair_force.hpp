#pragma once
// The one pair loop. Every potential runs through this per-atom body, on
// every backend: the CPU backend calls it from OpenMP threads, the CUDA
// backend from one GPU thread per atom.
//
// Real is the type of the pair math: double, or float for `precision:
// mixed`. Here positions, the separation and the cutoff test stay in double
// either way (the separation of two nearby atoms loses no digits); the
// device's row loop reads float positions in mixed precision instead
// (PairSums::add_separation). Every sum is in double: float products are
// accumulated in double (energy and virial too).
#include "core/host_device.hpp"
#include "forces/kernel_outputs.hpp"

namespace tessera {

// The sums of one atom i over its pairs: what every neighbour layout (rows
// of a Verlet list here, cluster pairs in kernels/device/cluster_forces.hpp)
// feeds pair by pair, so the physics exists once.
// kTensor: the virial tensor too (xx yy zz xy xz yz), on the steps that ask.
// P: the parameter rows' type, Pot::Params, or the float copy that the
// device's mixed precision reads (potentials/narrow_params.hpp).
template <class Pot, class Real, bool kTensor = false, class P = typename Pot::Params>
struct PairSums {
  double xi, yi, zi;
  const P* row;  // the parameter row of i's type
  double fx = 0, fy = 0, fz = 0, e = 0, w = 0;
  double t[kTensor ? 6 : 1] = {};
  static constexpr int kTensorTerms = kTensor ? 6 : 0;

  TESSERA_HD void add(double xj, double yj, double zj, int type_j) { add_separation(xi - xj, yi - yj, zi - zj, type_j); }
  // The separation i - j in G: double, or float where the positions are
  // float (the device's mixed precision, kernels/device/packed_positions.hpp),
  // which makes r2 and the cutoff test float too.
  template <class G>
  TESSERA_HD void add_separation(G dx, G dy, G dz, int type_j) {
    const G r2 = dx * dx + dy * dy + dz * dz;
    const P& p = row[type_j];
    if (r2 < p.cutsq) {
      Real fpair, ep;
      const Real r2r = static_cast<Real>(r2);
      Pot::eval(r2r, p, fpair, ep);
      const Real fxr = static_cast<Real>(dx) * fpair, fyr = static_cast<Real>(dy) * fpair,
                 fzr = static_cast<Real>(dz) * fpair;
      fx += static_cast<double>(fxr);
      fy += static_cast<double>(fyr);
      fz += static_cast<double>(fzr);
      e += static_cast<double>(ep);
      w += static_cast<double>(r2r * fpair);
      if constexpr (kTensor) {
        t[0] += static_cast<double>(static_cast<Real>(dx) * fxr);
        t[1] += static_cast<double>(static_cast<Real>(dy) * fyr);
        t[2] += static_cast<double>(static_cast<Real>(dz) * fzr);
        t[3] += static_cast<double>(static_cast<Real>(dx) * fyr);
        t[4] += static_cast<double>(static_cast<Real>(dx) * fzr);
        t[5] += static_cast<double>(static_cast<Real>(dy) * fzr);
      }
    }
  }
  // Into `out` (the tensor too, kTensor only). Each pair is visited from
  // both ends: half the energy, virial and tensor here.
  TESSERA_HD void store(int i, const KernelOutputs& out) const {
    if constexpr (kTensor) {
      const double th[6] = {0.5 * t[0], 0.5 * t[1], 0.5 * t[2], 0.5 * t[3], 0.5 * t[4], 0.5 * t[5]};
      out.write_tensor(i, th);
    }
    out.write(i, fx, fy, fz, 0.5 * e, 0.5 * w);
  }
};

// Threads per atom of the device's row launches for a rank of `nlocal`
// atoms (kernels/device/pair_forces.hpp, RowLaneSums): enough for about 2^18
// threads in all (an H100 or H200 keeps 132 x 2048 resident), at most 8, so
// 1 from 2^18 atoms up. From the rank's atom count, not a launch's, so the
// inner and outer launches split rows alike. The plan counts their scratch.
TESSERA_HD inline int device_pair_lanes(long nlocal) {
  int lanes = 1;
  while (lanes < 8 && nlocal * lanes < (1L << 18)) lanes *= 2;
  return lanes;
}

// kGroup: neighbours read kGroup at a time, every load of a group issued
// before its first pair is added (GPU threads then keep kGroup gathers in
// flight instead of one: the device's pair loop waits on its loads, not on
// arithmetic). The pairs are still added in row order: the same bits for
// any kGroup.
template <class Pot, class Real = double, bool kTensor = false, int kGroup = 1>
struct PairForce {
  const double* x;
  const double* y;
  const double* z;
  const int* type;
  const int* nbr;
  const int* nbr_count;
  int stride;  // neighbour k of atom i is nbr[i * stride + k * step]
  const typename Pot::Params* params;  // (ntypes+1)^2 table, row-major by type
  int type_stride;
  KernelOutputs out;  // the tensor's arrays: kTensor only
  // 1 for the CPU's rows; the device's transposed list (stride 1) has its
  // pitch here (kernels/device/neighbor_lists.hpp).
  long step = 1;

  using Sums = PairSums<Pot, Real, kTensor>;

  TESSERA_HD void operator()(int i) const { store(i, sums(i)); }
  // Atom i's sums over neighbours first, first + every, ... of its row (the
  // device splits a row over several threads so; every 1: the whole row).
  TESSERA_HD Sums sums(int i, int first = 0, int every = 1) const {
    Sums s = begin(i);
    const int* list = nbr + static_cast<long>(i) * stride;
    const int n = nbr_count[i];
    int k = first;
    if constexpr (kGroup > 1) {
      for (; k + (kGroup - 1) * every < n; k += kGroup * every) {
        int j[kGroup], tj[kGroup];
        double xj[kGroup], yj[kGroup], zj[kGroup];
        for (int g = 0; g < kGroup; ++g) j[g] = list[(k + g * every) * step];
        for (int g = 0; g < kGroup; ++g) xj[g] = x[j[g]], yj[g] = y[j[g]], zj[g] = z[j[g]], tj[g] = type[j[g]];
        for (int g = 0; g < kGroup; ++g) s.add(xj[g], yj[g], zj[g], tj[g]);
      }
    }
    for (; k < n; k += every) {
      const int j = list[k * step];
      s.add(x[j], y[j], z[j], type[j]);
    }
    return s;
  }
  TESSERA_HD Sums begin(int i) const { return Sums{x[i], y[i], z[i], params + type[i] * type_stride}; }
  TESSERA_HD void store(int i, const Sums& s) const { s.store(i, out); }
};

}  // namespace tessera
