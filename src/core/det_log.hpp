#pragma once
// log(x) from basic IEEE operations only (+, -, *, /, integer masks), so
// that it gives the same bits wherever it runs: scalar or vectorised by the
// compiler (the CPU bond kernels' lane loops), and on the GPU once built
// without fused multiply-adds, as det_exp.hpp for exp. It is branch-free
// (selects only), which lets a lane loop that calls it vectorise. The C
// library's log has no vector form here and may differ in the last bit
// between versions.
//
// Method (the classic reduction of fdlibm's e_log.c, with Taylor rather than
// minimax coefficients): x = 2^k m with m in [sqrt(1/2), sqrt(2)); with
// f = m - 1 and s = f / (2 + f), log(m) = 2 atanh(s) = 2s + 2s^3/3 + ...,
// written as f - (f^2/2 - s (f^2/2 + R)) with R = sum 2 s^(2n) / (2n + 1),
// n = 1..10, summed by Estrin's scheme (|s| <= 0.1716, so the first term
// left out is below 3e-19 relative); then k ln2 added in two parts so that k * ln2_hi is exact.
// Error: within 1 ulp of the exact value (tests/unit/det_log_test.cpp).
// log(+0) = -inf, log(x < 0) = NaN, log(inf) = inf, log(NaN) = NaN;
// subnormals are scaled into the normal range first.
//
// The same bits on every backend only without contraction into fma (the
// CPU kernels' -ffp-contract=off); see det_exp.hpp for the CUDA side.
#include <cstdint>
#include <cstring>

#include "core/host_device.hpp"

namespace tessera {

namespace det_log_detail {
TESSERA_HD inline std::uint64_t bits_of(double v) {
  std::uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}
TESSERA_HD inline double double_of(std::uint64_t b) {
  double v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}
// All ones where `c`, else zero.
TESSERA_HD inline std::uint64_t mask_of(bool c) { return std::uint64_t(0) - static_cast<std::uint64_t>(c); }
}  // namespace det_log_detail

TESSERA_HD inline double det_log(double x) {
  using namespace det_log_detail;
  constexpr double kTwo54 = 18014398509481984.0;  // 2^54: lifts a subnormal into the normal range
  constexpr double kSqrt2 = 1.4142135623730951;
  constexpr double kLn2Hi = 6.93147180369123816490e-01;  // 32 significant bits: k * kLn2Hi is exact
  constexpr double kLn2Lo = 1.90821492927058770002e-10;
  constexpr std::uint64_t kInfBits = 0x7ff0000000000000ULL;
  // The cases are told apart by x's bits and combined by integer masks, not
  // by selects on comparisons: GCC leaves a lane loop calling this scalar
  // when a floating-point compare (which may trap on NaN) or a select on
  // mixed-width conditions sits in it.
  const std::uint64_t xbits = bits_of(x);
  const std::uint64_t magnitude = xbits & 0x7fffffffffffffffULL;
  const std::uint64_t subnormal = mask_of(magnitude < 0x0010000000000000ULL);  // or zero
  const std::uint64_t bits = (xbits & ~subnormal) | (bits_of(x * kTwo54) & subnormal);
  // The mantissa as a number in [1, 2), and the biased exponent as a double
  // (2^52 + e, less 2^52: exact, and no integer-to-double conversion, which
  // AVX2 lacks for 64-bit integers).
  double m = double_of((bits & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL);
  const double biased = double_of(0x4330000000000000ULL | (bits >> 52)) - 4503599627370496.0;
  const bool upper = m > kSqrt2;
  m = upper ? m * 0.5 : m;  // exact
  const double kd = (biased - 1023.0) + (upper ? 1.0 : 0.0) - double_of(subnormal & bits_of(54.0));
  const double f = m - 1.0;  // exact: m and 1 are within a factor of 2
  const double s = f / (2.0 + f);
  const double z = s * s;
  // sum over n = 0..9 of 2/(2n+3) z^n by Estrin's scheme: a quarter of
  // Horner's dependent steps, which in a lane loop are the latency.
  const double z2 = z * z, z4 = z2 * z2, z8 = z4 * z4;
  const double q0 = 2.0 / 3.0 + 2.0 / 5.0 * z, q1 = 2.0 / 7.0 + 2.0 / 9.0 * z;
  const double q2 = 2.0 / 11.0 + 2.0 / 13.0 * z, q3 = 2.0 / 15.0 + 2.0 / 17.0 * z;
  const double q4 = 2.0 / 19.0 + 2.0 / 21.0 * z;
  const double p = ((q0 + q1 * z2) + (q2 + q3 * z2) * z4) + q4 * z8;
  const double r = p * z;
  const double hfsq = 0.5 * f * f;
  const double result = kd * kLn2Hi + (f - (hfsq - (s * (hfsq + r) + kd * kLn2Lo)));
  // The special values: log(+-0) = -inf, log(+inf) = inf, NaN for x < 0
  // and for NaN. The three cases are disjoint.
  const std::uint64_t zero = mask_of(magnitude == 0);
  const std::uint64_t plus_inf = mask_of(xbits == kInfBits);
  const std::uint64_t nan = mask_of((xbits >> 63 != 0) & (magnitude != 0)) | mask_of(magnitude > kInfBits);
  return double_of((bits_of(result) & ~(zero | plus_inf | nan)) | ((kInfBits | (std::uint64_t(1) << 63)) & zero) |
                   (kInfBits & plus_inf) | (0x7ff8000000000000ULL & nan));
}

}  // namespace tessera
