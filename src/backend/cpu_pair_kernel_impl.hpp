// The body of every CPU pair-kernel variant (see cpu_pair_kernel.hpp for the
// summation contract). Included once per translation unit, inside a
// namespace named by TESSERA_SIMD_NS, so that each variant's code has its own
// symbols: an inline function shared between units compiled for different
// CPUs could otherwise be merged by the linker into the AVX-512 copy and run
// on a CPU without AVX-512. `flatten` inlines Pot::eval into the kernel for
// the same reason, and because the lane loops only vectorise once it is.
//
// The lane loops are plain loops over kPairLanes doubles, written so that
// each lane does exactly what the scalar code does; the compiler turns them
// into vector instructions of the unit's width (or leaves them scalar), which
// changes nothing in the arithmetic.
#ifndef TESSERA_SIMD_NS
#error "define TESSERA_SIMD_NS before including cpu_pair_kernel_impl.hpp"
#endif
#include <cmath>
#include <limits>

#include "backend/cpu_pair_kernel.hpp"

#if defined(__AVX2__)
// GCC 12 warns about the deliberately undefined pass-through operand inside
// its own AVX-512 intrinsics (GCC bug 105593).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#endif

namespace tessera {
namespace TESSERA_SIMD_NS {

constexpr int W = kPairLanes;

// Integers in lane loops (the lane index, EAM's knots). GCC sizes the
// vectors of a loop by its narrowest type, and W lanes of 32-bit ints fill
// only a 32-byte vector: with 64-bit ones the doubles beside them get 64.
#if defined(__AVX512F__)
using LaneInt = long long;
#else
using LaneInt = int;
#endif

struct LaneSums {
  alignas(64) double fx[W], fy[W], fz[W], e[W], w[W];
};
// The virial tensor's lanes (xx yy zz xy xz yz), only when a step asks.
struct LaneTensor {
  alignas(64) double t[6][W];
};

// The fixed reduction tree of the contract.
inline double reduce_lanes(const double* s) {
  static_assert(W == 8, "the reduction tree is written for 8 lanes");
#if defined(__AVX2__)
  // The same additions, three vector steps: halves, quarters, the last pair.
  const __m256d h = _mm256_add_pd(_mm256_load_pd(s), _mm256_load_pd(s + 4));
  const __m128d q = _mm_add_pd(_mm256_castpd256_pd128(h), _mm256_extractf128_pd(h, 1));
  return _mm_cvtsd_f64(_mm_add_sd(q, _mm_unpackhi_pd(q, q)));
#else
  return ((s[0] + s[4]) + (s[2] + s[6])) + ((s[1] + s[5]) + (s[3] + s[7]));
#endif
}

// Four consecutive doubles from row(l) for each lane l < N into lane arrays
// c0..c3. This is data movement only, so the variants may differ here: a
// 4x4 (AVX2) or 8x4 (AVX-512) transpose of 32-byte rows instead of one load
// per value. N: W, or 4 for a row's short last block (pair_rows).
template <int N = W, class Row>
inline void load_rows4(const Row& row, double* c0, double* c1, double* c2, double* c3) {
  static_assert(N == W || N == 4, "whole blocks or blocks of 4");
#if defined(__AVX512F__)
  if constexpr (N == W) {
    auto pair = [&](int l) {  // rows l and l + 1: a b c d a' b' c' d'
      return _mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_loadu_pd(row(l))), _mm256_loadu_pd(row(l + 1)), 1);
    };
    const __m512d r01 = pair(0), r23 = pair(2), r45 = pair(4), r67 = pair(6);
    // a0 a2 c0 c2 a1 a3 c1 c3 and b0 b2 d0 d2 b1 b3 d1 d3, and the same for 4-7.
    const __m512d ac03 = _mm512_unpacklo_pd(r01, r23), bd03 = _mm512_unpackhi_pd(r01, r23);
    const __m512d ac47 = _mm512_unpacklo_pd(r45, r67), bd47 = _mm512_unpackhi_pd(r45, r67);
    const __m512i lo = _mm512_setr_epi64(0, 4, 1, 5, 8, 12, 9, 13), hi = _mm512_setr_epi64(2, 6, 3, 7, 10, 14, 11, 15);
    _mm512_store_pd(c0, _mm512_permutex2var_pd(ac03, lo, ac47));
    _mm512_store_pd(c2, _mm512_permutex2var_pd(ac03, hi, ac47));
    _mm512_store_pd(c1, _mm512_permutex2var_pd(bd03, lo, bd47));
    _mm512_store_pd(c3, _mm512_permutex2var_pd(bd03, hi, bd47));
    return;
  }
#endif
#if defined(__AVX2__)  // also an AVX-512 unit's blocks of 4
  for (int h = 0; h < N; h += 4) {
    const __m256d r0 = _mm256_loadu_pd(row(h)), r1 = _mm256_loadu_pd(row(h + 1));
    const __m256d r2 = _mm256_loadu_pd(row(h + 2)), r3 = _mm256_loadu_pd(row(h + 3));
    // a0 a1 c0 c1, b0 b1 d0 d1, a2 a3 c2 c3, b2 b3 d2 d3
    const __m256d ac01 = _mm256_unpacklo_pd(r0, r1), bd01 = _mm256_unpackhi_pd(r0, r1);
    const __m256d ac23 = _mm256_unpacklo_pd(r2, r3), bd23 = _mm256_unpackhi_pd(r2, r3);
    _mm256_store_pd(c0 + h, _mm256_permute2f128_pd(ac01, ac23, 0x20));
    _mm256_store_pd(c2 + h, _mm256_permute2f128_pd(ac01, ac23, 0x31));
    _mm256_store_pd(c1 + h, _mm256_permute2f128_pd(bd01, bd23, 0x20));
    _mm256_store_pd(c3 + h, _mm256_permute2f128_pd(bd01, bd23, 0x31));
  }
#else
  for (int l = 0; l < N; ++l) {
    const double* r = row(l);
    c0[l] = r[0];
    c1[l] = r[1];
    c2[l] = r[2];
    c3[l] = r[3];
  }
#endif
}

// Packed coordinates and type of atoms idx[0, N) into lane arrays.
// kOffsets: idx holds record offsets (NeighborList::entry_shift), 16 j for
// atom j, whose 32-byte record is then at byte 2 idx[l]: an address's scale,
// where an index needs a shift of its own per neighbour.
template <int N = W, bool kOffsets = false>
inline void load_lanes(const double* pos, const int* idx, double* xj, double* yj, double* zj, double* tj) {
  static_assert(4 * sizeof(double) == 2 << kRecordShift, "a record offset, doubled, is a 4-double record's");
  if constexpr (kOffsets) {
    const char* base = reinterpret_cast<const char*>(pos);
    load_rows4<N>([&](int l) { return reinterpret_cast<const double*>(base + 2L * idx[l]); }, xj, yj, zj, tj);
  } else {
    load_rows4<N>([&](int l) { return pos + 4L * idx[l]; }, xj, yj, zj, tj);
  }
}

// One block's pairs into the lane sums: force f (times the separation) and
// energy e per lane, lanes [0, N). !kEnergy: forces only (KernelOutputs::
// energy; the tensor always comes with the energy).
template <bool kTensor, bool kEnergy = true, int N = W>
inline void add_lane_sums(int nvalid, const double* dx, const double* dy, const double* dz, const double* r2,
                          const double* cut, const double* f, const double* e, LaneSums& s, LaneTensor& vt) {
  // Lanes past the cutoff or the list end add zero (r2 may be 0 there: the
  // inf or NaN of the force is dropped here, never added).
#pragma omp simd
  for (LaneInt l = 0; l < N; ++l) {
    const bool in = l < nvalid && r2[l] < cut[l];
    const double fl = in ? f[l] : 0.0;
    s.fx[l] += dx[l] * fl;
    s.fy[l] += dy[l] * fl;
    s.fz[l] += dz[l] * fl;
    if constexpr (kEnergy) {
      s.e[l] += in ? e[l] : 0.0;
      s.w[l] += r2[l] * fl;
    }
  }
  if constexpr (kTensor) {
#pragma omp simd
    for (LaneInt l = 0; l < N; ++l) {
      const double fl = l < nvalid && r2[l] < cut[l] ? f[l] : 0.0;
      const double fxl = dx[l] * fl, fyl = dy[l] * fl, fzl = dz[l] * fl;
      vt.t[0][l] += dx[l] * fxl;
      vt.t[1][l] += dy[l] * fyl;
      vt.t[2][l] += dz[l] * fzl;
      vt.t[3][l] += dx[l] * fyl;
      vt.t[4][l] += dx[l] * fzl;
      vt.t[5][l] += dy[l] * fzl;
    }
  }
}

// The pairs of atom i (at xi, yi, zi) with atoms idx[0, N), lane l taking
// idx[l]: separation, its square, force (times the separation), energy and
// the pair's cutoff, whether or not the pair is within it. Into plain lane
// arrays of the caller: through a struct of them, GCC stored all seven to
// the stack every block (with the plain row loop below, taking the struct
// away cut a full row's Pair by 11-15 %; benchmarks/NOTES.md, "What the
// mixed row kernel waits on").
// B > 1: B whole blocks, idx[0, B W), into lanes [0, B W) (pair_two_blocks).
// kOffsets: idx holds record offsets (load_lanes).
template <class Pot, bool kOneType, int N = W, int B = 1, bool kOffsets = false>
inline void eval_lanes(const PairKernelArgs<typename Pot::Params>& a, const typename Pot::Params* row, const int* idx,
                       double xi, double yi, double zi, double* dx, double* dy, double* dz, double* r2, double* f,
                       double* e, double* cut) {
  static_assert(B == 1 || N == W, "several blocks are whole ones");
  using P = typename Pot::Params;
  constexpr int L = B * N;
  alignas(64) double xj[B * W], yj[B * W], zj[B * W], tj[B * W];
  for (int b = 0; b < B; ++b)
    load_lanes<N, kOffsets>(a.pos, idx + b * W, xj + b * W, yj + b * W, zj + b * W, tj + b * W);
#pragma omp simd
  for (int l = 0; l < L; ++l) {
    dx[l] = xi - xj[l];
    dy[l] = yi - yj[l];
    dz[l] = zi - zj[l];
    r2[l] = dx[l] * dx[l] + dy[l] * dy[l] + dz[l] * dz[l];
  }
  if (kOneType) {
    const P& q = row[1];
#pragma omp simd
    for (int l = 0; l < L; ++l) {
      Pot::eval(r2[l], q, f[l], e[l]);
      cut[l] = q.cutsq;
    }
  } else {
    for (int l = 0; l < L; ++l) {
      const P& q = row[static_cast<int>(tj[l])];
      Pot::eval(r2[l], q, f[l], e[l]);
      cut[l] = q.cutsq;
    }
  }
}

// Neighbours idx[0, nvalid) of atom i, lane l taking idx[l], into a full
// row's lane sums. N = 4: a row's last block of at most 4 neighbours, in
// lanes 0-3 as in a whole block. A whole block's lanes 4-7 would add +0 or
// -0 there, which changes no bit: a lane sum starts at +0 and, rounding to
// nearest, never becomes -0 (x + (-x) is +0), and +0 + (-0) is +0.
template <class Pot, bool kOneType, bool kTensor, bool kEnergy, int N = W, bool kOffsets = false>
inline void pair_block(const PairKernelArgs<typename Pot::Params>& a, const typename Pot::Params* row, const int* idx,
                       int nvalid, double xi, double yi, double zi, LaneSums& s, LaneTensor& vt) {
  alignas(64) double dx[W], dy[W], dz[W], r2[W], f[W], e[W], cut[W];
  eval_lanes<Pot, kOneType, N, 1, kOffsets>(a, row, idx, xi, yi, zi, dx, dy, dz, r2, f, e, cut);
  add_lane_sums<kTensor, kEnergy, N>(nvalid, dx, dy, dz, r2, cut, f, e, s, vt);
}

// Two whole blocks, idx[0, 2W): both blocks' pairs evaluated in one lane
// loop of 2W, then added block by block, the first's then the second's, so
// the lane sums take the same terms in the same order as two pair_block
// calls. Why: an expensive eval (Morse's sqrt, det_exp's polynomial and a
// division) is one long chain of dependent operations per block, which
// the core overlapped with the next block's only as far as its reorder
// window reached; two blocks' chains side by side keep its units busy
// (1 thread: Morse 256k Pair -7.5 %, in.lj 32k -5 %; the mixed rows, done
// the same way, ran 7 % slower, their 32 float lanes spilling registers;
// benchmarks/NOTES.md, 2026-11-30).
template <class Pot, bool kOneType, bool kTensor, bool kEnergy, bool kOffsets = false>
inline void pair_two_blocks(const PairKernelArgs<typename Pot::Params>& a, const typename Pot::Params* row,
                            const int* idx, double xi, double yi, double zi, LaneSums& s, LaneTensor& vt) {
  alignas(64) double dx[2 * W], dy[2 * W], dz[2 * W], r2[2 * W], f[2 * W], e[2 * W], cut[2 * W];
  eval_lanes<Pot, kOneType, W, 2, kOffsets>(a, row, idx, xi, yi, zi, dx, dy, dz, r2, f, e, cut);
  for (int b = 0; b < 2; ++b) {
    const int o = b * W;
    add_lane_sums<kTensor, kEnergy>(W, dx + o, dy + o, dz + o, r2 + o, cut + o, f + o, e + o, s, vt);
  }
}

// The same for a half list's row (PairKernelArgs::half): lane l's pair
// counts whole in atom i's energy and virial when its partner is local (the
// partner gets none of it), half when it is a ghost; and the partner, when
// local, gets the opposite force. The lanes hold different atoms, so their
// partners' sums do not depend on the lanes' order.
template <class Pot, bool kOneType, bool kTensor, bool kEnergy>
inline void pair_block_half(const PairKernelArgs<typename Pot::Params>& a, const typename Pot::Params* row,
                            const int* idx, int nvalid, double xi, double yi, double zi, LaneSums& s,
                            LaneTensor& vt, double (*jbuf)[W]) {
  alignas(64) double dx[W], dy[W], dz[W], r2[W], f[W], e[W], cut[W];
  eval_lanes<Pot, kOneType>(a, row, idx, xi, yi, zi, dx, dy, dz, r2, f, e, cut);
  alignas(64) double fm[W], wt[W], em[W], jd[W];
  // The partners' forces go straight to the buffer (HalfRowBuffer).
  // (No __builtin_assume_aligned: clang 14's UBSan check of it crashes the
  // compiler, in CI's fuzz build.)
  double* const fxj = jbuf[0];
  double* const fyj = jbuf[1];
  double* const fzj = jbuf[2];
  const int nlocal = a.nlocal;
  const double nlocal_d = nlocal;
  // The partners' indices as doubles, so that the lane loop below has no
  // integer lanes and vectorises (with them GCC left it scalar, and its
  // lane-by-lane reads of vector stores ran the kernel 3.5x slower).
#pragma omp simd
  for (int l = 0; l < W; ++l) jd[l] = idx[l];
#pragma omp simd
  for (LaneInt l = 0; l < W; ++l) {
    const bool in = (l < nvalid) & (r2[l] < cut[l]);
    fm[l] = in ? f[l] : 0.0;
    em[l] = in ? e[l] : 0.0;
    wt[l] = jd[l] < nlocal_d ? 1.0 : 0.5;
  }
#pragma omp simd
  for (LaneInt l = 0; l < W; ++l) {
    fxj[l] = dx[l] * fm[l];
    fyj[l] = dy[l] * fm[l];
    fzj[l] = dz[l] * fm[l];
    s.fx[l] += fxj[l];
    s.fy[l] += fyj[l];
    s.fz[l] += fzj[l];
    if constexpr (kEnergy) {
      s.e[l] += wt[l] * em[l];
      s.w[l] += wt[l] * (r2[l] * fm[l]);
    }
  }
  if constexpr (kTensor) {
#pragma omp simd
    for (LaneInt l = 0; l < W; ++l) {
      vt.t[0][l] += wt[l] * (dx[l] * fxj[l]);
      vt.t[1][l] += wt[l] * (dy[l] * fyj[l]);
      vt.t[2][l] += wt[l] * (dz[l] * fzj[l]);
      vt.t[3][l] += wt[l] * (dx[l] * fyj[l]);
      vt.t[4][l] += wt[l] * (dx[l] * fzj[l]);
      vt.t[5][l] += wt[l] * (dy[l] * fzj[l]);
    }
  }
}

// Atom i's sums into the outputs of `a` (PairKernelArgs or EamKernelArgs),
// plus own[i] in the energy when given (EAM's embedding energy).
// !kEnergy: zero energy and virial (the lanes hold none).
template <bool kTensor, class Args, bool kHalfList = false, bool kEnergy = true>
inline void store_lane_sums(const Args& a, int i, const LaneSums& s, const LaneTensor& vt, const double* own) {
  // In a full list each pair is visited from both ends: half the energy and
  // virial here. A half list's lanes carry their shares already.
  constexpr double kShare = kHalfList ? 1.0 : 0.5;
  const double e = kEnergy ? kShare * reduce_lanes(s.e) : 0.0;
  const double f[5] = {reduce_lanes(s.fx), reduce_lanes(s.fy), reduce_lanes(s.fz), own ? own[i] + e : e,
                       kEnergy ? kShare * reduce_lanes(s.w) : 0.0};
  double* out[5] = {a.fx, a.fy, a.fz, a.pe, a.virial};
  for (int c = 0; c < 5; ++c) out[c][i] = a.accumulate ? out[c][i] + f[c] : f[c];
  if constexpr (kTensor)
    for (int c = 0; c < 6; ++c) {
      const double t = kShare * reduce_lanes(vt.t[c]);
      a.tensor[c][i] = a.accumulate ? a.tensor[c][i] + t : t;
    }
}

// A row's last, partial block from entry k of its n: read in place when
// the row is padded (valid atoms up to the next block), else copied into
// `copy` with `self`, the row's own atom's entry (its index or its record
// offset, as the row holds), in the lanes past the end.
template <int L>
inline const int* row_tail(const int* list, int k, int n, bool padded, int self, int* copy) {
  if (padded) return list + k;
  for (int l = 0; l < L; ++l) copy[l] = k + l < n ? list[k + l] : self;
  return copy;
}

// The list streams through once a step, rows a stride apart and part
// filled, which the hardware prefetchers follow poorly: full rows ask for
// row i + 4's list when they start row i (3-4 % off the mixed kernel, 32k
// melt, 1 and 2 threads, 2026-11-30).
template <class Args>
inline void prefetch_row_ahead(const Args& a, int i, int end) {
  constexpr int kAhead = 4;
  if (i + kAhead >= end) return;
  const char* next = reinterpret_cast<const char*>(a.nbr + static_cast<long>(i + kAhead) * a.stride);
  for (long b = 0; b < 4L * a.stride; b += 64) __builtin_prefetch(next + b, 0, 0);
}

// The n neighbours `list` of atom i, W at a time: block(idx, nvalid) with
// idx[0, nvalid) the neighbours and idx[nvalid, W) atoms that may be read
// but add nothing (the row's padding, else i itself).
template <class Block>
inline void for_lane_blocks(const int* list, int n, bool padded, int i, const Block& block) {
  int k = 0;
  for (; k + W <= n; k += W) block(list + k, W);
  if (k < n) {
    alignas(64) int copy[W];
    block(row_tail<W>(list, k, n, padded, i, copy), n - k);
  }
}

// Half rows' partner forces, a few blocks at a time: each block stores its
// lanes' forces here, and they are taken off the partners in one scalar pass
// once kBlocks blocks are in (across rows: the order of the additions is
// still fixed by the slab's rows alone) and at the slab's end. Taken off in
// the block itself, the AVX-512 gather and scatter cost more than the pairs
// saved, and a scalar loop reading the block's fresh vector stores lane by
// lane waited on store forwarding.
struct HalfRowBuffer {
  static constexpr int kBlocks = 8;
  alignas(64) double f[kBlocks][3][W];
  const int* idx[kBlocks];
  int nvalid[kBlocks];
  int n = 0;
  // Takes the buffered forces off the local partners (index < nlocal).
  void flush(double* fx, double* fy, double* fz, int nlocal) {
    for (int b = 0; b < n; ++b)
      for (int l = 0; l < nvalid[b]; ++l) {
        const int j = idx[b][l];
        if (j < nlocal) {
          fx[j] -= f[b][0][l];
          fy[j] -= f[b][1][l];
          fz[j] -= f[b][2][l];
        }
      }
    n = 0;
  }
};

// Rows of local atoms [begin, end), or of a half list (kHalf): atoms
// a.order[begin, end), each adding its row's sums to its outputs (which
// hold its partners' opposite forces so far; PairKernelArgs::half).
template <class Pot, bool kOneType, bool kTensor, bool kHalf, bool kEnergy>
__attribute__((flatten)) void pair_rows(const PairKernelArgs<typename Pot::Params>& a, int begin, int end) {
  HalfRowBuffer buf;  // a half list's only
  for (int k = begin; k < end; ++k) {
    const int i = kHalf ? a.order[k] : k;
    const double* pi = a.pos + 4L * i;
    const typename Pot::Params* row = a.params + static_cast<long>(static_cast<int>(pi[3])) * a.type_stride;
    LaneSums s;  // zeroed by a lane loop, as mixed_rows's (`= {}` can become a `rep stos`)
#pragma omp simd
    for (int l = 0; l < W; ++l) s.fx[l] = s.fy[l] = s.fz[l] = s.e[l] = s.w[l] = 0.0;
    LaneTensor vt;
    if constexpr (kTensor) vt = {};
    if constexpr (!kHalf) {
      // for_lane_blocks's blocks, in a plain loop: through its lambda Pair
      // took 2-9 % longer (benchmarks/NOTES.md, "What the mixed row kernel
      // waits on"). Same blocks, same sums. Full rows hold record offsets
      // (PairKernelArgs::nbr).
      const int* list = a.nbr + i * a.stride;
      const int n = a.nbr_count[i];
      prefetch_row_ahead(a, i, end);
      int m = 0;
      for (; m + 2 * W <= n; m += 2 * W)
        pair_two_blocks<Pot, kOneType, kTensor, kEnergy, true>(a, row, list + m, pi[0], pi[1], pi[2], s, vt);
      for (; m + W <= n; m += W)
        pair_block<Pot, kOneType, kTensor, kEnergy, W, true>(a, row, list + m, W, pi[0], pi[1], pi[2], s, vt);
      if (const int rest = n - m; rest > 0) {
        alignas(64) int copy[W];
        const int* idx = row_tail<W>(list, m, n, a.padded, i << kRecordShift, copy);
        // A row's short last block (or a short row): half the lanes' work.
        // WCA melts have 10-14 neighbours a row, so most rows end in one.
        if (rest <= 4)
          pair_block<Pot, kOneType, kTensor, kEnergy, 4, true>(a, row, idx, rest, pi[0], pi[1], pi[2], s, vt);
        else
          pair_block<Pot, kOneType, kTensor, kEnergy, W, true>(a, row, idx, rest, pi[0], pi[1], pi[2], s, vt);
      }
    } else {
      for_lane_blocks(a.nbr + i * a.stride, a.nbr_count[i], a.padded, i, [&](const int* idx, int nvalid) {
        if (buf.n == HalfRowBuffer::kBlocks) buf.flush(a.fx, a.fy, a.fz, a.nlocal);
        // A padded row's blocks are read in place; a copied tail block
        // (for_lane_blocks) lives no longer than this call.
        buf.idx[buf.n] = idx;
        buf.nvalid[buf.n] = nvalid;
        pair_block_half<Pot, kOneType, kTensor, kEnergy>(a, row, idx, nvalid, pi[0], pi[1], pi[2], s, vt, buf.f[buf.n]);
        ++buf.n;
        if (!a.padded) buf.flush(a.fx, a.fy, a.fz, a.nlocal);
      });
    }
    store_lane_sums<kTensor, PairKernelArgs<typename Pot::Params>, kHalf, kEnergy>(a, i, s, vt, nullptr);
  }
  if constexpr (kHalf) buf.flush(a.fx, a.fy, a.fz, a.nlocal);
}

// kTensor: the energy too. (Without the tensor, energy or not: 3 forms,
// not 4.)
template <class Pot, bool kHalf, bool kTensor, bool kEnergy>
void pair_kernel_in(const PairKernelArgs<typename Pot::Params>& a, int begin, int end) {
  if (a.one_type)
    pair_rows<Pot, true, kTensor, kHalf, kEnergy>(a, begin, end);
  else
    pair_rows<Pot, false, kTensor, kHalf, kEnergy>(a, begin, end);
}

template <class Pot, bool kHalf>
void pair_kernel_as(const PairKernelArgs<typename Pot::Params>& a, int begin, int end) {
  if (a.tensor[0])
    pair_kernel_in<Pot, kHalf, true, true>(a, begin, end);
  else if (a.energy)
    pair_kernel_in<Pot, kHalf, false, true>(a, begin, end);
  else
    pair_kernel_in<Pot, kHalf, false, false>(a, begin, end);
}

// Mixed precision's rows (cpu_pair_kernel_mixed_impl.hpp, included below).
template <class Pot>
void mixed_kernel_of(const PairKernelArgs<typename Pot::Params>& a, int begin, int end);

template <class Pot>
void pair_kernel_of(const PairKernelArgs<typename Pot::Params>& a, int begin, int end) {
  if (a.mixed)
    mixed_kernel_of<Pot>(a, begin, end);
  else if (a.half)
    pair_kernel_as<Pot, true>(a, begin, end);
  else
    pair_kernel_as<Pot, false>(a, begin, end);
}

#if defined(__AVX2__) && !defined(__AVX512F__)
// For each 4-bit mask, the byte shuffle that moves the selected 32-bit lanes
// to the front in order (the rest: don't care, lane 0 here).
struct Compress4 {
  alignas(16) unsigned char bytes[16][16];
};
constexpr Compress4 make_compress4() {
  Compress4 t{};
  for (int mask = 0; mask < 16; ++mask) {
    int out = 0;
    for (int l = 0; l < 4; ++l)
      if (mask >> l & 1) {
        for (int b = 0; b < 4; ++b) t.bytes[mask][4 * out + b] = static_cast<unsigned char>(4 * l + b);
        ++out;
      }
  }
  return t;
}
inline constexpr Compress4 kCompress4 = make_compress4();
#endif

// kExclude: with ex.n > 0 ids to leave out, compared in the same vector
// pass as the distances, so that a molecule's excluded pairs cost a few
// integer compares per 8 candidates instead of a second pass over the list
// that loads id[j] one neighbour at a time (10 % of a 1-thread in.chain run).
template <bool kExclude>
inline int neighbor_scan_impl(const double* x, const double* y, const double* z, const int* atoms, int n, double xi,
                              double yi, double zi, double reach_sq, int self, const ScanExclusions& ex, int* out) {
  int k = 0, m = 0;
  const int ne = kExclude ? ex.n : 0;
#if defined(__AVX512F__)
  const __m512d vx = _mm512_set1_pd(xi), vy = _mm512_set1_pd(yi), vz = _mm512_set1_pd(zi);
  const __m512d vr = _mm512_set1_pd(reach_sq);
  const __m256i vself = _mm256_set1_epi32(self);
  for (; m < n; m += 8) {
    const __mmask8 valid = n - m >= 8 ? 0xff : static_cast<__mmask8>((1u << (n - m)) - 1);
    const __m512d dx = _mm512_sub_pd(vx, _mm512_maskz_loadu_pd(valid, x + m));
    const __m512d dy = _mm512_sub_pd(vy, _mm512_maskz_loadu_pd(valid, y + m));
    const __m512d dz = _mm512_sub_pd(vz, _mm512_maskz_loadu_pd(valid, z + m));
    const __m512d r2 =
        _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(dx, dx), _mm512_mul_pd(dy, dy)), _mm512_mul_pd(dz, dz));
    const __m256i j = _mm256_maskz_loadu_epi32(valid, atoms + m);
    __mmask8 hit = _mm512_mask_cmp_pd_mask(valid, r2, vr, _CMP_LT_OQ) & _mm256_cmpneq_epi32_mask(j, vself);
    if (kExclude) {
      const __m512i id = _mm512_maskz_loadu_epi64(valid, ex.ids + m);
      for (int e = 0; e < ne; ++e) hit &= _mm512_cmpneq_epi64_mask(id, _mm512_set1_epi64(ex.excluded[e]));
    }
    // Compress in a register and store all 8: the memory form of vpcompressd
    // is slow on some CPUs. out has room for the spill.
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + k), _mm256_maskz_compress_epi32(hit, j));
    k += __builtin_popcount(hit);
  }
#elif defined(__AVX2__)
  const __m256d vx = _mm256_set1_pd(xi), vy = _mm256_set1_pd(yi), vz = _mm256_set1_pd(zi);
  const __m256d vr = _mm256_set1_pd(reach_sq);
  const __m128i vself = _mm_set1_epi32(self);
  for (; m + 4 <= n; m += 4) {
    const __m256d dx = _mm256_sub_pd(vx, _mm256_loadu_pd(x + m));
    const __m256d dy = _mm256_sub_pd(vy, _mm256_loadu_pd(y + m));
    const __m256d dz = _mm256_sub_pd(vz, _mm256_loadu_pd(z + m));
    const __m256d r2 =
        _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(dx, dx), _mm256_mul_pd(dy, dy)), _mm256_mul_pd(dz, dz));
    const __m128i j = _mm_loadu_si128(reinterpret_cast<const __m128i*>(atoms + m));
    const int is_self = _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(j, vself)));
    int hit = _mm256_movemask_pd(_mm256_cmp_pd(r2, vr, _CMP_LT_OQ)) & ~is_self;
    if (kExclude) {
      const __m256i id = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ex.ids + m));
      __m256i drop = _mm256_setzero_si256();
      for (int e = 0; e < ne; ++e)
        drop = _mm256_or_si256(drop, _mm256_cmpeq_epi64(id, _mm256_set1_epi64x(ex.excluded[e])));
      hit &= ~_mm256_movemask_pd(_mm256_castsi256_pd(drop));
    }
    // Compress the hits to the front with one byte shuffle and store all
    // four (out has room for the spill): the per-lane stores of the scalar
    // form cost a third of the list build of a WCA melt.
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + k),
                     _mm_shuffle_epi8(j, _mm_load_si128(reinterpret_cast<const __m128i*>(kCompress4.bytes[hit]))));
    k += __builtin_popcount(static_cast<unsigned>(hit));
  }
#endif
  for (; m < n; ++m) {
    const double dx = xi - x[m], dy = yi - y[m], dz = zi - z[m];
    const int j = atoms[m];
    bool keep = (dx * dx + dy * dy + dz * dz < reach_sq) & (j != self);
    for (int e = 0; e < ne; ++e) keep &= ex.ids[m] != ex.excluded[e];
    out[k] = j;
    k += keep;
  }
  return k;
}

#if defined(__AVX512F__)
// G atoms of a group; a template so that their registers stay registers.
template <int G, bool kExclude>
inline void scan_group_of(const double* x, const double* y, const double* z, const int* atoms, int n,
                          double reach_sq, ScanGroup& g) {
  __m512d vx[G], vy[G], vz[G];
  __m256i vself[G];
  int k[G];
  for (int a = 0; a < G; ++a) {
    vx[a] = _mm512_set1_pd(g.x[a]);
    vy[a] = _mm512_set1_pd(g.y[a]);
    vz[a] = _mm512_set1_pd(g.z[a]);
    vself[a] = _mm256_set1_epi32(g.self[a]);
    k[a] = 0;
  }
  const __m512d vr = _mm512_set1_pd(reach_sq);
  for (int m = 0; m < n; m += 8) {
    const __m512d cx = _mm512_loadu_pd(x + m), cy = _mm512_loadu_pd(y + m), cz = _mm512_loadu_pd(z + m);
    const __m256i j = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(atoms + m));
    const __m512i id = kExclude ? _mm512_loadu_si512(g.ids + m) : _mm512_setzero_si512();
    for (int a = 0; a < G; ++a) {
      const __m512d dx = _mm512_sub_pd(vx[a], cx), dy = _mm512_sub_pd(vy[a], cy), dz = _mm512_sub_pd(vz[a], cz);
      const __m512d r2 =
          _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(dx, dx), _mm512_mul_pd(dy, dy)), _mm512_mul_pd(dz, dz));
      __mmask8 hit = _mm512_cmp_pd_mask(r2, vr, _CMP_LT_OQ) & _mm256_cmpneq_epi32_mask(j, vself[a]);
      if (kExclude)
        for (int e = 0; e < g.excluded_n[a]; ++e)
          hit &= _mm512_cmpneq_epi64_mask(id, _mm512_set1_epi64(g.excluded[a][e]));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(g.out[a] + k[a]), _mm256_maskz_compress_epi32(hit, j));
      k[a] += __builtin_popcount(hit);
    }
  }
  for (int a = 0; a < G; ++a) g.count[a] = k[a];
}
#endif

#if defined(__AVX512F__)
// The lanes `edge` of candidates j decided by the double test, on the
// coordinates the double scan would read: as rare as pairs within about
// 1e-4 of the reach, and out of line, so that the scan's sums and counts
// stay in registers.
__attribute__((noinline)) inline __mmask16 edge_hits(__mmask16 edge, __m512i j, double xi, double yi, double zi,
                                                     const ScanGroupFloat& f, double reach_sq) {
  alignas(64) int jl[16];
  _mm512_store_si512(jl, j);
  unsigned hit = 0;
  for (unsigned e = edge; e != 0; e &= e - 1) {
    const int l = __builtin_ctz(e);
    const double dx = xi - f.x[jl[l]], dy = yi - f.y[jl[l]], dz = zi - f.z[jl[l]];
    if (dx * dx + dy * dy + dz * dz < reach_sq) hit |= 1u << l;
  }
  return static_cast<__mmask16>(hit);
}

// scan_group_of from float offsets, 16 candidates a vector
// (ScanGroupFloat): lanes within the band of reach_sq get the double test.
template <int G>
inline void scan_group_float_of(const float* x, const float* y, const float* z, const int* atoms, int n,
                                double reach_sq, const ScanGroupFloat& f, ScanGroup& g) {
  __m512 vx[G], vy[G], vz[G];
  __m512i vself[G];
  int k[G];
  double xd[G], yd[G], zd[G];
  int* out[G];
  for (int a = 0; a < G; ++a) {
    xd[a] = g.x[a];
    yd[a] = g.y[a];
    zd[a] = g.z[a];
    out[a] = g.out[a];
    vx[a] = _mm512_set1_ps(f.fx[a]);
    vy[a] = _mm512_set1_ps(f.fy[a]);
    vz[a] = _mm512_set1_ps(f.fz[a]);
    vself[a] = _mm512_set1_epi32(g.self[a]);
    k[a] = 0;
  }
  const __m512 lo = _mm512_set1_ps(static_cast<float>(reach_sq - f.band));
  const __m512 hi = _mm512_set1_ps(static_cast<float>(reach_sq + f.band));
  for (int m = 0; m < n; m += 16) {
    const __m512 cx = _mm512_loadu_ps(x + m), cy = _mm512_loadu_ps(y + m), cz = _mm512_loadu_ps(z + m);
    const __m512i j = _mm512_loadu_si512(atoms + m);
#pragma GCC unroll 4
    for (int a = 0; a < G; ++a) {
      const __m512 dx = _mm512_sub_ps(vx[a], cx), dy = _mm512_sub_ps(vy[a], cy), dz = _mm512_sub_ps(vz[a], cz);
      const __m512 r2 =
          _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(dx, dx), _mm512_mul_ps(dy, dy)), _mm512_mul_ps(dz, dz));
      const __mmask16 other = _mm512_cmpneq_epi32_mask(j, vself[a]);
      __mmask16 hit = _mm512_mask_cmp_ps_mask(other, r2, lo, _CMP_LT_OQ);
      // Strictly below hi: the run's padding (+inf, atom -1) and a candidate
      // at infinity stay out of the double test even when the band is
      // infinite, and neither is a neighbour.
      const __mmask16 edge =
          _mm512_mask_cmp_ps_mask(_mm512_mask_cmp_ps_mask(other, r2, lo, _CMP_GE_OQ), r2, hi, _CMP_LT_OQ);
      if (__builtin_expect(edge != 0, 0)) hit = static_cast<__mmask16>(hit | edge_hits(edge, j, xd[a], yd[a], zd[a], f, reach_sq));
      _mm512_storeu_si512(out[a] + k[a], _mm512_maskz_compress_epi32(hit, j));
      k[a] += __builtin_popcount(hit);
    }
  }
  for (int a = 0; a < G; ++a) g.count[a] = k[a];
}

inline void neighbor_scan_group_float_impl(const float* x, const float* y, const float* z, const int* atoms, int n,
                                           double reach_sq, const ScanGroupFloat& f, ScanGroup& g) {
  switch (g.n) {
    case 1: return scan_group_float_of<1>(x, y, z, atoms, n, reach_sq, f, g);
    case 2: return scan_group_float_of<2>(x, y, z, atoms, n, reach_sq, f, g);
    case 3: return scan_group_float_of<3>(x, y, z, atoms, n, reach_sq, f, g);
    default: return scan_group_float_of<kScanGroup>(x, y, z, atoms, n, reach_sq, f, g);
  }
}

inline double copy_candidates_float_impl(const CandidatesIn& from, int m0, int n, const double* origin,
                                         const FloatCandidatesOut& to, int at) {
  const __m512d ox = _mm512_set1_pd(origin[0]), oy = _mm512_set1_pd(origin[1]), oz = _mm512_set1_pd(origin[2]);
  __m512d big = _mm512_setzero_pd();
  __mmask8 nan = 0;  // max_pd drops NaNs, so they are counted apart
  for (int m = 0; m < n; m += 8) {
    const __mmask8 valid = n - m >= 8 ? 0xff : static_cast<__mmask8>((1u << (n - m)) - 1);
    const long s = m0 + m, d = at + m;
    const __m512d px = _mm512_sub_pd(_mm512_maskz_loadu_pd(valid, from.x + s), ox);
    const __m512d py = _mm512_sub_pd(_mm512_maskz_loadu_pd(valid, from.y + s), oy);
    const __m512d pz = _mm512_sub_pd(_mm512_maskz_loadu_pd(valid, from.z + s), oz);
    big = _mm512_mask_max_pd(big, valid, big, _mm512_abs_pd(px));
    big = _mm512_mask_max_pd(big, valid, big, _mm512_abs_pd(py));
    big = _mm512_mask_max_pd(big, valid, big, _mm512_abs_pd(pz));
    nan |= _mm512_mask_cmp_pd_mask(valid, _mm512_add_pd(_mm512_add_pd(px, py), pz), px, _CMP_UNORD_Q);
    _mm256_storeu_ps(to.x + d, _mm512_cvtpd_ps(px));
    _mm256_storeu_ps(to.y + d, _mm512_cvtpd_ps(py));
    _mm256_storeu_ps(to.z + d, _mm512_cvtpd_ps(pz));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(to.atoms + d), _mm256_maskz_loadu_epi32(valid, from.atoms + s));
  }
  // A coordinate that is not a number makes the band infinite: the whole
  // block then goes to the double test, which lists such an atom nowhere.
  return nan ? std::numeric_limits<double>::infinity() : _mm512_reduce_max_pd(big);
}
#endif

static_assert(kScanGroup == 4, "neighbor_scan_group_impl dispatches groups of 1 to 4");
inline void neighbor_scan_group_impl(const double* x, const double* y, const double* z, const int* atoms, int n,
                                     double reach_sq, ScanGroup& g) {
#if defined(__AVX512F__)
  if (g.ids) {
    switch (g.n) {
      case 1: return scan_group_of<1, true>(x, y, z, atoms, n, reach_sq, g);
      case 2: return scan_group_of<2, true>(x, y, z, atoms, n, reach_sq, g);
      case 3: return scan_group_of<3, true>(x, y, z, atoms, n, reach_sq, g);
      default: return scan_group_of<kScanGroup, true>(x, y, z, atoms, n, reach_sq, g);
    }
  }
  switch (g.n) {
    case 1: return scan_group_of<1, false>(x, y, z, atoms, n, reach_sq, g);
    case 2: return scan_group_of<2, false>(x, y, z, atoms, n, reach_sq, g);
    case 3: return scan_group_of<3, false>(x, y, z, atoms, n, reach_sq, g);
    default: return scan_group_of<kScanGroup, false>(x, y, z, atoms, n, reach_sq, g);
  }
#else
  for (int a = 0; a < g.n; ++a) {
    const ScanExclusions ex{g.ids, g.excluded[a], g.ids ? g.excluded_n[a] : 0};
    g.count[a] = ex.n > 0 ? neighbor_scan_impl<true>(x, y, z, atoms, n, g.x[a], g.y[a], g.z[a], reach_sq, g.self[a],
                                                    ex, g.out[a])
                          : neighbor_scan_impl<false>(x, y, z, atoms, n, g.x[a], g.y[a], g.z[a], reach_sq,
                                                     g.self[a], ex, g.out[a]);
  }
#endif
}

inline void copy_candidates_impl(const CandidatesIn& from, int m0, int n, const CandidatesOut& to, int at) {
  int m = 0;
#if defined(__AVX512F__)
  // Masked loads (nothing read past the run), whole stores (to has room).
  for (; m < n; m += 8) {
    const __mmask8 valid = n - m >= 8 ? 0xff : static_cast<__mmask8>((1u << (n - m)) - 1);
    const long s = m0 + m, d = at + m;
    _mm512_storeu_pd(to.x + d, _mm512_maskz_loadu_pd(valid, from.x + s));
    _mm512_storeu_pd(to.y + d, _mm512_maskz_loadu_pd(valid, from.y + s));
    _mm512_storeu_pd(to.z + d, _mm512_maskz_loadu_pd(valid, from.z + s));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(to.atoms + d), _mm256_maskz_loadu_epi32(valid, from.atoms + s));
    if (from.id) _mm512_storeu_si512(to.id + d, _mm512_maskz_loadu_epi64(valid, from.id + s));
  }
#elif defined(__AVX2__)
  for (; m + 4 <= n; m += 4) {
    const long s = m0 + m, d = at + m;
    _mm256_storeu_pd(to.x + d, _mm256_loadu_pd(from.x + s));
    _mm256_storeu_pd(to.y + d, _mm256_loadu_pd(from.y + s));
    _mm256_storeu_pd(to.z + d, _mm256_loadu_pd(from.z + s));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(to.atoms + d),
                     _mm_loadu_si128(reinterpret_cast<const __m128i*>(from.atoms + s)));
    if (from.id)
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(to.id + d),
                          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(from.id + s)));
  }
#endif
  for (; m < n; ++m) {
    const long s = m0 + m, d = at + m;
    to.x[d] = from.x[s];
    to.y[d] = from.y[s];
    to.z[d] = from.z[s];
    to.atoms[d] = from.atoms[s];
    if (from.id) to.id[d] = from.id[s];
  }
}

}  // namespace TESSERA_SIMD_NS
}  // namespace tessera

#include "backend/cpu_pair_kernel_mixed_impl.hpp"
