// det_log (core/det_log.hpp) against the C library's log.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>

#include "core/det_log.hpp"

using namespace tessera;

namespace {
long long log_ulps(double a, double b) {
  std::int64_t ia, ib;
  std::memcpy(&ia, &a, sizeof ia);
  std::memcpy(&ib, &b, sizeof ib);
  // Results of opposite sign (around x = 1) compare through zero.
  if ((ia < 0) != (ib < 0)) return (ia < 0 ? ia - std::numeric_limits<std::int64_t>::min() : ia) +
                                    (ib < 0 ? ib - std::numeric_limits<std::int64_t>::min() : ib);
  return ia > ib ? ia - ib : ib - ia;
}
}  // namespace

TEST_CASE("det_log is within 1 ulp of the C library's log over the whole range", "[det_log]") {
  std::mt19937_64 rng(20261128);
  std::uniform_real_distribution<double> unit(0.0, 1.0), exponent(-1074.0, 1023.99), near1(-1e-3, 1e-3);
  long long worst = 0;
  double at = 0;
  for (int i = 0; i < 3000000; ++i) {
    // FENE's range (0.1, 1], every binade, and the neighbourhood of 1.
    const double x = i % 3 == 0 ? unit(rng) : (i % 3 == 1 ? std::exp2(exponent(rng)) : 1.0 + near1(rng));
    if (!(x > 0) || std::isinf(x)) continue;
    const long long e = log_ulps(det_log(x), std::log(x));
    if (e > worst) worst = e, at = x;
  }
  INFO("worst at x = " << at);
  CHECK(worst <= 1);
}

TEST_CASE("det_log at its edges: exact points, subnormals, zero, negatives, inf, NaN", "[det_log]") {
  CHECK(det_log(1.0) == 0.0);
  for (int k = -1074; k <= 1023; k += 13) CHECK(log_ulps(det_log(std::ldexp(1.0, k)), std::log(std::ldexp(1.0, k))) <= 1);
  CHECK(log_ulps(det_log(std::numeric_limits<double>::denorm_min()),
                 std::log(std::numeric_limits<double>::denorm_min())) <= 1);
  CHECK(log_ulps(det_log(std::numeric_limits<double>::max()), std::log(std::numeric_limits<double>::max())) <= 1);
  CHECK(log_ulps(det_log(0.1), std::log(0.1)) <= 1);
  CHECK(std::isinf(det_log(0.0)));
  CHECK(det_log(0.0) < 0);
  CHECK(det_log(-0.0) < 0);
  CHECK(std::isinf(det_log(-0.0)));
  CHECK(std::isnan(det_log(-1.0)));
  CHECK(std::isnan(det_log(-std::numeric_limits<double>::infinity())));
  CHECK(std::isnan(det_log(std::numeric_limits<double>::quiet_NaN())));
  CHECK(det_log(std::numeric_limits<double>::infinity()) == std::numeric_limits<double>::infinity());
}

TEST_CASE("det_log is monotonic across its reduction's switch points", "[det_log]") {
  // m = sqrt(2) switches between the two halves of the reduction, and
  // every power of two between binades.
  for (int k = -1020; k <= 1020; k += 5) {
    for (double edge : {std::ldexp(std::sqrt(2.0), k), std::ldexp(1.0, k)}) {
      double x = edge;
      for (int s = 0; s < 3; ++s) x = std::nextafter(x, 0.0);
      double prev = det_log(x);
      for (int s = 0; s < 6; ++s) {
        x = std::nextafter(x, 1e308);
        const double v = det_log(x);
        CHECK(v >= prev);
        prev = v;
      }
    }
  }
}
