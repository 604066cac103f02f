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
