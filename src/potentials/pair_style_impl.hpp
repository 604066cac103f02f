#pragma once
// Turns a potential functor (see lj_cut.hpp) into a runnable PairStyle.
#include <algorithm>
#include <cmath>
#include <vector>

#include "atoms/atom_store.hpp"
#include "backend/cpu_cluster_kernel.hpp"
#include "backend/cpu_pair_kernel.hpp"
#include "backend/cpu_positions.hpp"
#include "backend/cpu_shares.hpp"
#include "neighbor/neighbor_list.hpp"
#include "potentials/narrow_params.hpp"
#include "potentials/pair_style.hpp"

// The portable kernel for potentials without compiled variants (see
// TESSERA_SIMD_POTENTIALS): same contract, this unit's flags.
#define TESSERA_SIMD_NS simd_fallback
#include "backend/cpu_cluster_kernel_impl.hpp"
#include "backend/cpu_pair_kernel_impl.hpp"
#undef TESSERA_SIMD_NS

namespace tessera {

template <class Pot>
class PairStyleImpl final : public PairStyle {
 public:
  using Potential = Pot;

  PairStyleImpl(int ntypes, const std::vector<PairCoeffs>& table, bool shift) : ntp_(ntypes + 1) {
    params_.resize(table.size());
    for (std::size_t k = 0; k < table.size(); ++k) {
      params_[k] = Pot::params(table[k], shift);
      const int ti = static_cast<int>(k) / ntp_, tj = static_cast<int>(k) % ntp_;
      if (ti > 0 && tj > 0) max_cutoff_ = std::max(max_cutoff_, table[k].cutoff);
    }
  }

  const char* name() const override { return Pot::name; }
  double max_cutoff() const override { return max_cutoff_; }

  void compute_pass(int, AtomStore& a, const NeighborList& nl, const PassOptions& opt) const override {
    compute_with(a, nl, simd_level(), opt);
  }

  // compute() with a given kernel variant, for tests that compare them.
  void compute_with(AtomStore& a, const NeighborList& nl, SimdLevel level, const PassOptions& opt = {}) const {
    // Mixed precision on full rows: integer positions (cpu_positions.hpp).
    const bool mixed_rows = opt.mixed && !nl.clustered && !nl.half;
    PairKernelArgs<typename Pot::Params> args;
    bool one_type;
    if (nl.clustered) {
      one_type = all_type_one(a);
    } else if (mixed_rows) {
      const double quantum = fixed_quantum(max_cutoff_);
      one_type = pack_fixed_positions(a, quantum, pos_fixed_);
      args.mixed = true;
      args.pos_fixed = pos_fixed_.data();
      args.quantum = static_cast<float>(quantum);  // a power of two: exact
      args.float_params = float_params().data();
    } else {
      one_type = pack_positions(a, pos_);
      args.pos = pos_.data();
    }
    // Full rows' kernels read record offsets, half rows' atom indices
    // (NeighborList::entry_shift).
    if (!nl.clustered) args.nbr = rows_with_shift(nl, nl.half ? 0 : kRecordShift, rows_);
    args.nbr_count = nl.count.data();
    args.stride = nl.stride;
    args.padded = nl.pad % kPairLanes == 0 && nl.stride % kPairLanes == 0;
    args.params = params_.data();
    args.type_stride = ntp_;
    args.one_type = one_type;
    static_cast<KernelOutputs&>(args) = kernel_outputs(a, opt);
    PairKernelFn<Pot> fn = &simd_fallback::pair_kernel_of<Pot>;
    if constexpr (kHasSimdKernels<Pot>) fn = pair_kernel_for<Pot>(level);
    if (nl.clustered) {
      run_clusters(a, nl.clusters, level, one_type, opt.mixed, static_cast<KernelOutputs&>(args));
      return;
    }
    if (nl.half) {
      run_half(args, fn, nl, static_cast<long>(a.nlocal));
      return;
    }
    // Chunks of atoms: each atom's sums are its own, so neither the chunk
    // size nor the thread that runs a chunk changes any result. Each thread
    // runs the atoms it packed first, then helps (backend/cpu_shares.hpp).
    const long nlocal = static_cast<long>(a.nlocal);
    for_chunks_own_first(pos_chunks(nlocal), [&](long c) {
      fn(args, static_cast<int>(c * kPosChunk), static_cast<int>(std::min(nlocal, (c + 1) * kPosChunk)));
    });
  }

  bool reads_half_list() const override { return true; }
  bool reads_record_offsets() const override { return true; }
  bool reads_clusters() const override { return true; }
  bool computes_mixed() const override { return true; }

  void eval_pair(int ti, int tj, double r2, double& fpair, double& energy) const override {
    const auto& p = params_[ti * ntp_ + tj];
    if (r2 >= p.cutsq) {
      fpair = energy = 0;
      return;
    }
    Pot::eval(r2, p, fpair, energy);
  }

  const std::vector<typename Pot::Params>& params() const { return params_; }

 private:
  // A half list's rows (NeighborList::half): the outputs zeroed when this
  // force stores rather than adds, then the slabs colour by colour, those
  // of one colour on any thread (each slab's rows in order on one), so
  // every sum has the same order whatever the thread count.
  static void run_half(PairKernelArgs<typename Pot::Params>& args, PairKernelFn<Pot> fn, const NeighborList& nl,
                       long nlocal) {
    const bool zero = !args.accumulate;
    args.accumulate = true;
    args.half = true;
    args.order = nl.slab_atoms.data();
    args.nlocal = static_cast<int>(nlocal);
    double* out[11] = {args.fx, args.fy, args.fz, args.pe, args.virial};
    int nout = 5;
    for (int c = 0; c < 6 && args.tensor[0]; ++c) out[nout++] = args.tensor[c];
    const int nslab = static_cast<int>(nl.slab_start.size()) - 1;
#pragma omp parallel
    {
      if (zero)
#pragma omp for schedule(static)
        for (long i = 0; i < nlocal; ++i)
          for (int c = 0; c < nout; ++c) out[c][i] = 0.0;
      for (int color = 0; color < nl.colors; ++color) {
#pragma omp for schedule(dynamic, 1)
        for (int s = color; s < nslab; s += nl.colors) fn(args, nl.slab_start[s], nl.slab_start[s + 1]);
      }
    }
  }

  // The cluster layout (NeighborList::clustered): positions to cluster
  // order, the slabs colour by colour as run_half, then the sums back to
  // the atoms by the outputs' accumulate rule.
  void run_clusters(AtomStore& a, const ClusterPairs& cl, SimdLevel level, bool one_type, bool mixed,
                    const KernelOutputs& out) const {
    constexpr int S = kClusterSize;
    const long nslot = static_cast<long>(cl.nclusters) * S, nlslot = static_cast<long>(cl.nlocal_clusters) * S;
    ClusterScratch& c = cluster_;
    c.type.resize(static_cast<std::size_t>(nslot));
    if (!mixed) c.xyz.resize(static_cast<std::size_t>(nslot * kClusterPack));
    c.f.resize(static_cast<std::size_t>(nlslot * 3));
    const int nsum = out.with_tensor() ? 8 : 2;
    for (int k = 0; k < nsum; ++k) c.sums[k].resize(static_cast<std::size_t>(nlslot));
    ClusterKernelArgs<typename Pot::Params> args;
    args.xyz = c.xyz.data();
    args.type = c.type.data();
    args.row_start = cl.row_start.data();
    args.ghost_start = cl.ghost_start.data();
    args.partner = cl.partner.data();
    args.nlocal_clusters = cl.nlocal_clusters;
    args.f = c.f.data();
    args.pe = c.sums[0].data();
    args.virial = c.sums[1].data();
    for (int k = 2; k < nsum; ++k) args.tensor[k - 2] = c.sums[k].data();
    args.params = params_.data();
    args.type_stride = ntp_;
    args.one_type = one_type;
    args.mixed = mixed;
    args.energy = out.energy;
    TileFloats tiles;
    if (mixed) {
      args.float_params = float_params().data();
      c.pos32.resize(static_cast<std::size_t>(nslot * kClusterPackMixed));
      c.partner_force.resize(static_cast<std::size_t>(nlslot * 3));
      args.pos32 = c.pos32.data();
      args.partner_force = c.partner_force.data();
      tiles = TileFloats::for_cutoff(max_cutoff_, a);
    }
    ClusterKernelFn<Pot> fn = &simd_fallback::cluster_kernel_of<Pot>;
    if constexpr (kHasSimdKernels<Pot>) fn = cluster_kernel_for<Pot>(level);
    const int* atom = cl.atom.data();
    const int nslab = static_cast<int>(cl.slab_start.size()) - 1;
    // A short cluster's padding: far from every atom (it meets only other
    // padding, in lanes no atom's sums read).
    constexpr double kFar = 1e30;
#pragma omp parallel
    {
      // Cluster by cluster, the double and the mixed form apart: a slot loop
      // that tested `mixed` per value and floored per coordinate cost a
      // quarter of the mixed Pair phase (32k in.lj).
      const long ncl = cl.nclusters, nlcl = cl.nlocal_clusters;
#pragma omp for schedule(static)
      for (long k = 0; k < ncl; ++k) {
        const int* ak = atom + k * S;
        double p[3][S];
        for (int l = 0; l < S; ++l) {
          const int i = ak[l];
          p[0][l] = i >= 0 ? a.x[i] : kFar;
          p[1][l] = i >= 0 ? a.y[i] : kFar;
          p[2][l] = i >= 0 ? a.z[i] : kFar;
          c.type[static_cast<std::size_t>(k * S + l)] = i >= 0 ? a.type[i] : 1;
        }
        if (mixed) {
          float* q = &c.pos32[static_cast<std::size_t>(k * kClusterPackMixed * S)];
          for (int d = 0; d < 3; ++d)
            for (int l = 0; l < S; ++l) tiles.split(d, ak[l] >= 0, p[d][l], q[d * S + l], q[(3 + d) * S + l]);
        } else {
          double* q = &c.xyz[static_cast<std::size_t>(k * kClusterPack * S)];
          for (int d = 0; d < 3; ++d)
            for (int l = 0; l < S; ++l) q[d * S + l] = p[d][l];
        }
        if (k < nlcl) {
          std::fill_n(&c.f[static_cast<std::size_t>(k * 3 * S)], 3 * S, 0.0);
          if (mixed) std::fill_n(&c.partner_force[static_cast<std::size_t>(k * 3 * S)], 3 * S, 0.0f);
        }
      }
      for (int color = 0; color < kClusterColors; ++color) {
#pragma omp for schedule(dynamic, 1)
        for (int sl = color; sl < nslab; sl += kClusterColors) fn(args, cl.slab_start[sl], cl.slab_start[sl + 1]);
      }
#pragma omp for schedule(static)
      for (long s = 0; s < nlslot; ++s) {
        const int i = atom[s];
        if (i < 0) continue;
        const std::size_t at = static_cast<std::size_t>((s / S) * 3 * S + s % S);
        double f[3] = {c.f[at], c.f[at + S], c.f[at + 2 * S]};
        if (mixed)
          for (int d = 0; d < 3; ++d) f[d] += static_cast<double>(c.partner_force[at + d * S]);
        out.write(i, f[0], f[1], f[2], args.pe[s], args.virial[s]);
        if (out.with_tensor()) {
          const double t[6] = {args.tensor[0][s], args.tensor[1][s], args.tensor[2][s],
                               args.tensor[3][s], args.tensor[4][s], args.tensor[5][s]};
          out.write_tensor(i, t);
        }
      }
    }
  }

  // The parameter rows in float (mixed precision), made at first use.
  const std::vector<typename Pot::template ParamsT<float>>& float_params() const {
    if (float_params_.empty())
      for (const auto& p : params_) float_params_.push_back(narrow_params<Pot>(p));
    return float_params_;
  }

  static bool all_type_one(const AtomStore& a) {
    const long nall = static_cast<long>(a.nall());
    int other = 0;
#pragma omp parallel for schedule(static) reduction(+ : other)
    for (long i = 0; i < nall; ++i) other += a.type[i] != 1;
    return other == 0;
  }

  // Mixed precision's coordinates (cpu_cluster_kernel.hpp): tiles of
  // power-of-two width w about an eighth of the cutoff, counted from a
  // corner at a multiple of w below every atom, so a tile centre
  // (k + 1/2) w is exact in float for k < 2^22 (boxes up to 4 million
  // tiles across).
  struct TileFloats {
    double w = 1, inv_w = 1, lo[3] = {0, 0, 0};  // inv_w exact: w is a power of two
    static TileFloats for_cutoff(double cutoff, const AtomStore& a) {
      TileFloats t;
      t.w = std::exp2(std::floor(std::log2(cutoff > 0 ? cutoff / 8 : 1.0)));
      t.inv_w = 1 / t.w;
      // The atoms' lowest coordinates, whatever their order in the store,
      // so a restarted run (its atoms in another order) splits each
      // coordinate as the straight run does.
      const long n = static_cast<long>(a.nall());
      double mx = HUGE_VAL, my = HUGE_VAL, mz = HUGE_VAL;
#pragma omp parallel for schedule(static) reduction(min : mx, my, mz)
      for (long i = 0; i < n; ++i) {
        mx = std::min(mx, a.x[i]);
        my = std::min(my, a.y[i]);
        mz = std::min(mz, a.z[i]);
      }
      const double m[3] = {mx, my, mz};
      for (int d = 0; d < 3; ++d) t.lo[d] = n > 0 ? std::floor(m[d] * t.inv_w) * t.w : 0.0;
      return t;
    }
    // A real atom's coordinate v along d as its tile's centre and the
    // offset from it; padding far off (no real pair reaches it, and its
    // squares stay finite in float).
    void split(int d, bool real, double v, float& centre, float& offset) const {
      if (!real) {
        centre = 1e15f;
        offset = 0.0f;
        return;
      }
      // v >= lo[d] (for_cutoff): truncation is the floor, without a call
      // to floor() in this unit's baseline x86-64 code.
      const double k = static_cast<double>(static_cast<long long>((v - lo[d]) * inv_w));
      centre = static_cast<float>((k + 0.5) * w);
      offset = static_cast<float>(v - (lo[d] + (k + 0.5) * w));
    }
  };

  struct ClusterScratch {
    std::vector<float> pos32, partner_force;  // mixed precision only, packed
    std::vector<double> xyz, f;               // packed (cpu_cluster_kernel.hpp); xyz: double only
    std::vector<double> type;
    std::vector<double> sums[8];  // pe virial, the tensor's six
  };
  mutable ClusterScratch cluster_;
  mutable std::vector<typename Pot::template ParamsT<float>> float_params_;

  int ntp_;
  double max_cutoff_ = 0;
  std::vector<typename Pot::Params> params_;
  mutable LargeVector<double> pos_;     // scratch for compute()
  mutable LargeVector<int> pos_fixed_;  // the same, mixed precision's rows
  mutable std::vector<int> rows_;       // the list converted, when its entries are not the kernel's
};

template <class Pot>
PairStyleEntry describe_pair_style() {
  PairStyleEntry e;
  e.name = Pot::name;
  e.coeff_names.assign(Pot::coeff_names, Pot::coeff_names + Pot::ncoeff);
  e.mix = &Pot::mix;
  e.check = &Pot::check;
  e.make = [](int ntypes, const std::vector<PairCoeffs>& table, bool shift) -> std::unique_ptr<PairStyle> {
    return std::make_unique<PairStyleImpl<Pot>>(ntypes, table, shift);
  };
  return e;
}

}  // namespace tessera
