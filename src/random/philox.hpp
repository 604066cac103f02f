#pragma once
// Counter-based random numbers (Philox4x32-10, Salmon et al., SC'11).
// A draw is a pure function of (key, counter), so every backend and every
// rank layout gets the same number for the same (seed, step, atom id):
// nothing depends on which thread or rank happens to draw first.
#include <cmath>
#include <cstdint>

#include "core/host_device.hpp"

namespace tessera {

struct Philox4x32 {
  std::uint32_t v[4];
};

TESSERA_HD inline void philox_mulhilo(std::uint32_t a, std::uint32_t b, std::uint32_t& hi, std::uint32_t& lo) {
  const std::uint64_t p = static_cast<std::uint64_t>(a) * b;
  hi = static_cast<std::uint32_t>(p >> 32);
  lo = static_cast<std::uint32_t>(p);
}

TESSERA_HD inline Philox4x32 philox4x32_10(Philox4x32 ctr, std::uint32_t k0, std::uint32_t k1) {
  for (int round = 0; round < 10; ++round) {
    std::uint32_t hi0, lo0, hi1, lo1;
    philox_mulhilo(0xD2511F53u, ctr.v[0], hi0, lo0);
    philox_mulhilo(0xCD9E8D57u, ctr.v[2], hi1, lo1);
    ctr = Philox4x32{{hi1 ^ ctr.v[1] ^ k0, lo1, hi0 ^ ctr.v[3] ^ k1, lo0}};
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return ctr;
}

// Separate streams for separate purposes, so that e.g. initial velocities
// and Langevin noise never reuse a counter even with the same seed.
// kBarostat: the stochastic cell rescaling barostat's draws, one counter per
// step (id 0), the same on every rank.
// kPolymer: the polymer-melt builder's random walks, counter (draw number,
// chain index), drawn identically on every rank.
enum class RandomStream : std::uint32_t { kVelocity = 1, kLangevin = 2, kBarostat = 3, kPolymer = 4 };

// Four 32-bit words for (seed, stream, step, id).
TESSERA_HD inline Philox4x32 random_words(std::uint64_t seed, RandomStream stream, std::uint64_t step,
                                          std::int64_t id) {
  const auto uid = static_cast<std::uint64_t>(id);
  Philox4x32 ctr{{static_cast<std::uint32_t>(uid), static_cast<std::uint32_t>(uid >> 32),
                  static_cast<std::uint32_t>(step),
                  static_cast<std::uint32_t>(step >> 32) ^ (static_cast<std::uint32_t>(stream) << 24)}};
  return philox4x32_10(ctr, static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32));
}

// Uniform in the open interval (0, 1): never 0, so log() is safe.
TESSERA_HD inline double uniform_open01(std::uint32_t w) {
  return (static_cast<double>(w) + 0.5) * 2.3283064365386963e-10;
}

// Two standard normal numbers from two words (Box-Muller).
TESSERA_HD inline void normal_pair(std::uint32_t a, std::uint32_t b, double& n0, double& n1) {
  const double r = sqrt(-2.0 * log(uniform_open01(a)));
  const double t = 6.283185307179586 * uniform_open01(b);
  n0 = r * cos(t);
  n1 = r * sin(t);
}

}  // namespace tessera
