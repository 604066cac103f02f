#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>

#include "core/det_exp.hpp"

using namespace tessera;

namespace {
// Distance in units in the last place between two finite doubles of one sign.
long long ulps(double a, double b) {
  std::int64_t ia, ib;
  std::memcpy(&ia, &a, sizeof ia);
  std::memcpy(&ib, &b, sizeof ib);
  return ia > ib ? ia - ib : ib - ia;
}
}  // namespace

TEST_CASE("det_exp is within 2 ulp of the C library's exp over the whole range", "[det_exp]") {
  std::mt19937_64 rng(20261121);
  std::uniform_real_distribution<double> wide(-745.0, 709.7), morse(-40.0, 15.0);
  long long worst = 0;
  double at = 0;
  for (int i = 0; i < 2000000; ++i) {
    const double x = (i % 2) ? wide(rng) : morse(rng);
    const long long e = ulps(det_exp(x), std::exp(x));
    if (e > worst) worst = e, at = x;
  }
  INFO("worst at x = " << at);
  CHECK(worst <= 2);
}

TEST_CASE("det_exp at its edges: exact points, overflow, underflow, subnormals, NaN", "[det_exp]") {
  CHECK(det_exp(0.0) == 1.0);
  CHECK(det_exp(-0.0) == 1.0);
  CHECK(ulps(det_exp(1.0), std::exp(1.0)) <= 1);
  CHECK(det_exp(std::log(2.0) * 10) == Approx(1024.0).epsilon(1e-15));
  CHECK(std::isinf(det_exp(709.79)));
  CHECK(std::isinf(det_exp(1e300)));
  CHECK(std::isinf(det_exp(std::numeric_limits<double>::infinity())));
  CHECK(det_exp(709.78) == Approx(std::exp(709.78)).epsilon(1e-15));
  // Gradual underflow: the subnormal results of the C library, to 1 ulp.
  for (double x : {-708.4, -720.0, -740.0, -745.1}) CHECK(ulps(det_exp(x), std::exp(x)) <= 1);
  CHECK(det_exp(-745.2) == 0.0);
  CHECK(det_exp(-1e300) == 0.0);
  CHECK(det_exp(-std::numeric_limits<double>::infinity()) == 0.0);
  CHECK(std::isnan(det_exp(std::numeric_limits<double>::quiet_NaN())));
}

TEST_CASE("det_exp is monotonic across the rounding points of its range reduction", "[det_exp]") {
  // k = round(x / ln2) switches at odd multiples of ln2 / 2: the two
  // branches must meet without a step backwards.
  for (int k = -1000; k <= 1000; k += 7) {
    const double edge = (k + 0.5) * std::log(2.0);
    double prev = det_exp(std::nextafter(edge, -1e9));
    double x = edge;
    for (int s = 0; s < 4; ++s, x = std::nextafter(x, 1e9)) {
      const double v = det_exp(x);
      CHECK(v >= prev);
      prev = v;
    }
  }
}

TEST_CASE("det_expf is within 2 ulp of the exact exp over its range, with float's edges", "[det_exp]") {
  // Every 97th float of [-103, 88.7] (about 3.6e7 values spread over all
  // exponents), against exp in double rounded once (exact to far below a
  // float ulp).
  auto fulps = [](float a, float b) {
    std::int32_t ia, ib;
    std::memcpy(&ia, &a, sizeof ia);
    std::memcpy(&ib, &b, sizeof ib);
    return ia > ib ? ia - ib : ib - ia;
  };
  int worst = 0;
  float worst_x = 0;
  long n = 0;
  for (int sign = -1; sign <= 1; sign += 2) {
    const float lim = sign < 0 ? 87.3f : 88.7f;  // below e^-87.3 the results are subnormal
    std::uint32_t bits;
    std::memcpy(&bits, &lim, sizeof bits);
    for (std::uint32_t b = 0; b <= bits; b += 97) {
      float a;
      std::memcpy(&a, &b, sizeof a);
      const float x = sign * a;
      const float want = static_cast<float>(std::exp(static_cast<double>(x)));
      const int u = fulps(det_expf(x), want);
      if (u > worst) {
        worst = u;
        worst_x = x;
      }
      ++n;
    }
  }
  INFO("worst " << worst << " ulp at x = " << worst_x << " over " << n << " values");
  CHECK(worst <= 2);
  CHECK(det_expf(0.0f) == 1.0f);
  CHECK(det_expf(1.0f) == static_cast<float>(std::exp(1.0)));
  CHECK(std::isinf(det_expf(89.0f)));
  CHECK(det_expf(-110.0f) == 0.0f);
  // Subnormal results: within 1 unit of the smallest subnormal.
  for (float x : {-88.0f, -95.0f, -100.0f, -103.0f}) {
    const double want = std::exp(static_cast<double>(x));
    CHECK(std::abs(static_cast<double>(det_expf(x)) - want) <= 1.5 * std::numeric_limits<float>::denorm_min());
  }
  CHECK(std::isnan(det_expf(std::numeric_limits<float>::quiet_NaN())));
}
