#include <catch2/catch.hpp>
#include <cmath>

#include "random/philox.hpp"

using namespace tessera;

TEST_CASE("Philox4x32-10 reproduces the Random123 known-answer vectors", "[random]") {
  struct Kat {
    Philox4x32 ctr;
    std::uint32_t k0, k1;
    Philox4x32 out;
  };
  const Kat kats[] = {
      {{{0, 0, 0, 0}}, 0, 0, {{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}}},
      {{{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}},
       0xffffffff,
       0xffffffff,
       {{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}}},
      {{{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}},
       0xa4093822,
       0x299f31d0,
       {{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}}},
  };
  for (const auto& k : kats) {
    const Philox4x32 r = philox4x32_10(k.ctr, k.k0, k.k1);
    for (int w = 0; w < 4; ++w) CHECK(r.v[w] == k.out.v[w]);
  }
}

TEST_CASE("random draws depend on seed, stream, step and id, nothing else", "[random]") {
  const auto a = random_words(42, RandomStream::kLangevin, 7, 1001);
  const auto b = random_words(42, RandomStream::kLangevin, 7, 1001);
  for (int w = 0; w < 4; ++w) CHECK(a.v[w] == b.v[w]);
  auto differs = [&](const Philox4x32& c) { return c.v[0] != a.v[0] || c.v[1] != a.v[1]; };
  CHECK(differs(random_words(43, RandomStream::kLangevin, 7, 1001)));
  CHECK(differs(random_words(42, RandomStream::kVelocity, 7, 1001)));
  CHECK(differs(random_words(42, RandomStream::kLangevin, 8, 1001)));
  CHECK(differs(random_words(42, RandomStream::kLangevin, 7, 1002)));
  CHECK(differs(random_words(42, RandomStream::kLangevin, 7 + (1ULL << 32), 1001)));
}

TEST_CASE("uniform and normal draws have the right moments", "[random]") {
  const int n = 200000;
  double su = 0, su2 = 0, sn = 0, sn2 = 0, sn4 = 0;
  double umin = 1, umax = 0;
  for (int i = 0; i < n; ++i) {
    const auto r = random_words(12345, RandomStream::kVelocity, 0, i);
    const double u = uniform_open01(r.v[0]);
    umin = std::min(umin, u);
    umax = std::max(umax, u);
    su += u;
    su2 += u * u;
    double g0, g1;
    normal_pair(r.v[2], r.v[3], g0, g1);
    for (double g : {g0, g1}) {
      sn += g;
      sn2 += g * g;
      sn4 += g * g * g * g;
    }
  }
  CHECK(umin > 0.0);
  CHECK(umax < 1.0);
  CHECK(su / n == Approx(0.5).margin(0.005));
  CHECK(su2 / n - (su / n) * (su / n) == Approx(1.0 / 12).margin(0.002));
  CHECK(sn / (2 * n) == Approx(0.0).margin(0.01));
  CHECK(sn2 / (2 * n) == Approx(1.0).margin(0.01));
  CHECK(sn4 / (2 * n) == Approx(3.0).margin(0.05));  // Gaussian kurtosis
}
