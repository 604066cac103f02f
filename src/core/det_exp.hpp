#pragma once
// exp(x) from basic IEEE operations only (+, -, *, integer shifts), so that
// it gives the same bits wherever it runs: scalar or vectorised by the
// compiler (AVX2, AVX-512), and on the GPU once built without fused
// multiply-adds. The C library's exp may differ in the last bit between
// versions and has no vector form here without -ffast-math; this one
// vectorises inside the pair kernel's lane loops.
//
// Method: x = k ln2 + r with k = round(x / ln2) and |r| <= ln2 / 2 (ln2
// split in two so that k * ln2_hi is exact, Cody & Waite 1980); exp(r) by
// its Taylor series to r^13 (truncation below 1e-17 relative on that range);
// then 2^k applied in two halves so that no intermediate scale overflows and
// results near the subnormal range are rounded once. Error: within 2 ulp of
// the exact value (tests/unit/det_exp_test.cpp). exp(x) = +inf for
// x > 709.78, 0 for x < -745.2, NaN for NaN.
//
// Gives the same bits on every backend only without contraction of a * b + c
// into fma (-ffp-contract=off for the CPU kernels). The CUDA force kernels
// are built with contraction (kernels/CMakeLists.txt, TESSERA_CUDA_FMA), so
// there it is within a few ulp of the CPU's, not equal.
#include <cstdint>
#include <cstring>

#include "core/host_device.hpp"

namespace tessera {

// p * 2^k, k from the low bits of t = shift + k (shift = 1.5 * 2^kMant, so
// t holds k exactly), for Real with kMant mantissa bits and exponent bias
// kBias. 2^k as 2^k1 * 2^k2, each within the normal exponent range; shifts
// on non-negative values only (AVX2 has no 64-bit arithmetic shift).
template <class Real, class Int, class UInt, int kMant, int kBias>
TESSERA_HD inline Real times_pow2_of(Real p, Real t, Real shift) {
  UInt tb, sb;
  std::memcpy(&tb, &t, sizeof tb);
  std::memcpy(&sb, &shift, sizeof sb);
  const Int k = static_cast<Int>(tb - sb);
  const Int k1 = static_cast<Int>(static_cast<UInt>(k + 2 * (kBias + 1)) >> 1) - (kBias + 1);
  const Int k2 = k - k1;
  const UInt b1 = static_cast<UInt>(k1 + kBias) << kMant;
  const UInt b2 = static_cast<UInt>(k2 + kBias) << kMant;
  Real s1, s2;
  std::memcpy(&s1, &b1, sizeof s1);
  std::memcpy(&s2, &b2, sizeof s2);
  return p * s1 * s2;
}

TESSERA_HD inline double det_exp(double x) {
  // Keeps k inside what the two-step scaling can represent; beyond these
  // bounds the result is already inf or 0.
  x = x > 710.0 ? 710.0 : x;
  x = x < -746.0 ? -746.0 : x;
  constexpr double kLog2e = 1.4426950408889634074;
  constexpr double kShift = 6755399441055744.0;          // 1.5 * 2^52: adding it rounds to an integer
  constexpr double kLn2Hi = 6.93147180369123816490e-01;  // 32 significant bits
  constexpr double kLn2Lo = 1.90821492927058770002e-10;
  const double t = x * kLog2e + kShift;
  const double kd = t - kShift;
  const double r = (x - kd * kLn2Hi) - kd * kLn2Lo;
  // Horner, highest power first: 1/13!, 1/12!, ..., 1/2!, 1, 1.
  double p = 1.6059043836821614599e-10;
  p = p * r + 2.0876756987868098979e-09;
  p = p * r + 2.5052108385441718775e-08;
  p = p * r + 2.7557319223985890653e-07;
  p = p * r + 2.7557319223985890653e-06;
  p = p * r + 2.4801587301587301587e-05;
  p = p * r + 1.9841269841269841270e-04;
  p = p * r + 1.3888888888888888889e-03;
  p = p * r + 8.3333333333333333333e-03;
  p = p * r + 4.1666666666666666667e-02;
  p = p * r + 1.6666666666666666667e-01;
  p = p * r + 0.5;
  p = p * r + 1.0;
  p = p * r + 1.0;
  return times_pow2_of<double, std::int64_t, std::uint64_t, 52, 1023>(p, t, kShift);
}

// The same method in float, for the pair math of `precision: mixed`: ln2
// split as Cephes does (0.693359375, whose trailing zero bits keep k * hi
// exact, and the remainder), Taylor to r^7 (truncation below 6e-9 relative
// for |r| <= ln2 / 2), 2^k in two halves. Within 2 ulp of the exact value
// (tests/unit/det_exp_test.cpp); +inf above 88.73, 0 below -103.98. The C
// library's expf has no vector form here: the CPU's 16-lane float kernel
// called it once a lane and ran Morse 0.66x as fast as double
// (benchmarks/NOTES.md, "The two threads' slow phase").
TESSERA_HD inline float det_expf(float x) {
  x = x > 89.0f ? 89.0f : x;
  x = x < -104.0f ? -104.0f : x;
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kShift = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
  constexpr float kLn2Hi = 0.693359375f;
  constexpr float kLn2Lo = -2.12194440e-4f;
  const float t = x * kLog2e + kShift;
  const float kf = t - kShift;
  const float r = (x - kf * kLn2Hi) - kf * kLn2Lo;
  // Horner, highest power first: 1/7!, ..., 1/2!, 1, 1.
  float p = 1.98412698e-4f;
  p = p * r + 1.38888889e-3f;
  p = p * r + 8.33333333e-3f;
  p = p * r + 4.16666667e-2f;
  p = p * r + 1.66666667e-1f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  return times_pow2_of<float, std::int32_t, std::uint32_t, 23, 127>(p, t, kShift);
}

}  // namespace tessera
