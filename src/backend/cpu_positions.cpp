#include "backend/cpu_positions.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "atoms/atom_store.hpp"
#include "backend/cpu_shares.hpp"
#include "forces/force.hpp"

namespace tessera {

namespace {

// Calls pack(begin, end) for thread t's share of the local atoms' chunks
// (the atoms the row kernels then compute first on it) and for its ghosts
// (for_own_ghosts: those whose sources are in that share, where the ghost
// refresh wrote them); returns the sum of what the calls return.
template <class Pack>
int pack_by_shares(const GhostShares& ghost_shares, long nlocal, long nall, const Pack& pack) {
  int sum = 0;
#pragma omp parallel reduction(+ : sum)
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const Share mine = share_of(pos_chunks(nlocal), t, nt);
    sum += pack(mine.begin * kPosChunk, std::min(nlocal, mine.end * kPosChunk));
    for_own_ghosts(ghost_shares, nlocal, nall - nlocal, t, nt,
                   [&](long begin, long end) { sum += pack(nlocal + begin, nlocal + end); });
  }
  return sum;
}

}  // namespace

// A record goes out in whole 16-byte stores, not one store per value: the
// records near the boundary between two threads' shares are read by the
// other thread's rows, so each store must first take its line back from
// that core, and with one store-buffer entry per value only a few lines
// were in flight (the packing was 11 % of a 2-thread in.lj 32k mixed run
// when the two vCPUs were far apart, and the run went from 1.83-1.90e7 to
// 2.02e7 atom-steps/s with these stores; 2026-11-30).
bool pack_positions(const AtomStore& a, LargeVector<double>& pos) {
  const long nall = static_cast<long>(a.nall()), nlocal = static_cast<long>(a.nlocal);
  pos.resize(4 * nall);
  double* const out = pos.data();
  const int other_types = pack_by_shares(a.ghost_shares, nlocal, nall, [&](long begin, long end) {
    // The arrays' addresses in locals of the loop's own: the vector stores
    // may alias anything, so addresses read through `a` and the captured
    // `out` were read again for every atom (half the loop's instructions;
    // 3.6 % of a 1-thread in.lj 32k run, 2026-12-01).
    const double *x = a.x.data(), *y = a.y.data(), *z = a.z.data();
    const int* type = a.type.data();
    double* const p = out;
    int others = 0;
    for (long i = begin; i < end; ++i) {
      const double t = type[i];
#if defined(__SSE2__)
      _mm_storeu_pd(p + 4 * i, _mm_set_pd(y[i], x[i]));
      _mm_storeu_pd(p + 4 * i + 2, _mm_set_pd(t, z[i]));
#else
      p[4 * i] = x[i];
      p[4 * i + 1] = y[i];
      p[4 * i + 2] = z[i];
      p[4 * i + 3] = t;
#endif
      others += type[i] != 1;
    }
    return others;
  });
  return other_types == 0;
}

double fixed_quantum(double cutoff) {
  return std::exp2(std::ceil(std::log2(8 * (cutoff > 0 ? cutoff : 1.0))) - 31);
}

bool pack_fixed_positions(const AtomStore& a, double quantum, LargeVector<int>& rec) {
  const long nall = static_cast<long>(a.nall()), nlocal = static_cast<long>(a.nlocal);
  rec.resize(4 * nall);
  const double inv = 1 / quantum;  // exact: a power of two
  // v / quantum rounded to the nearest integer (ties to even), modulo 2^32:
  // the low 32 bits of v / quantum + 1.5 * 2^52, whose unit in the last
  // place is 1, hold it (for |v / quantum| < 2^51). No conversion to a
  // 64-bit integer, which baseline x86-64 has for scalars only: the packing
  // loop vectorises.
  constexpr double kRound = 0x1.8p52;
  const auto quanta = [&](double v) {
    const double k = v * inv + kRound;
    std::uint64_t bits;
    std::memcpy(&bits, &k, sizeof bits);
    return static_cast<int>(static_cast<std::uint32_t>(bits));
  };
  int* const out = rec.data();
  const int other_types = pack_by_shares(a.ghost_shares, nlocal, nall, [&](long begin, long end) {
    // Addresses in the loop's own locals (pack_positions says why).
    const double *x = a.x.data(), *y = a.y.data(), *z = a.z.data();
    const int* type = a.type.data();
    int* const r = out;
    int others = 0;
    long i = begin;
#if defined(__SSE2__)
    // Two atoms at a time, the same arithmetic in vectors: one atom at a
    // time, each quantum went through a general register and an insert,
    // and the packing was 3.7 % of a 1-thread in.lj 32k mixed run.
    const __m128d vinv = _mm_set1_pd(inv), vround = _mm_set1_pd(kRound);
    // The quanta of v[0] and v[1] in 32-bit lanes 0 and 1.
    const auto quanta2 = [&](const double* v) {
      const __m128i k = _mm_castpd_si128(_mm_add_pd(_mm_mul_pd(_mm_loadu_pd(v), vinv), vround));
      return _mm_shuffle_epi32(k, _MM_SHUFFLE(3, 1, 2, 0));
    };
    for (; i + 2 <= end; i += 2) {
      const __m128i qx = quanta2(x + i), qy = quanta2(y + i), qz = quanta2(z + i);
      const __m128i t = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(type + i));
      const __m128i xy = _mm_unpacklo_epi32(qx, qy), zt = _mm_unpacklo_epi32(qz, t);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(r + 4 * i), _mm_unpacklo_epi64(xy, zt));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(r + 4 * i + 4), _mm_unpackhi_epi64(xy, zt));
      others += (type[i] != 1) + (type[i + 1] != 1);
    }
#endif
    for (; i < end; ++i) {
      // One 16-byte store a record (pack_positions says why).
#if defined(__SSE2__)
      _mm_storeu_si128(reinterpret_cast<__m128i*>(r + 4 * i),
                       _mm_setr_epi32(quanta(x[i]), quanta(y[i]), quanta(z[i]), type[i]));
#else
      r[4 * i] = quanta(x[i]);
      r[4 * i + 1] = quanta(y[i]);
      r[4 * i + 2] = quanta(z[i]);
      r[4 * i + 3] = type[i];
#endif
      others += type[i] != 1;
    }
    return others;
  });
  return other_types == 0;
}

KernelOutputs kernel_outputs(AtomStore& a, const PassOptions& opt) {
  KernelOutputs o;
  o.fx = a.fx.data();
  o.fy = a.fy.data();
  o.fz = a.fz.data();
  o.pe = a.pe.data();
  o.virial = a.virial.data();
  o.accumulate = opt.accumulate;
  o.energy = opt.energy;
  for (int c = 0; c < 6; ++c) o.tensor[c] = opt.tensor[c];
  return o;
}

}  // namespace tessera
