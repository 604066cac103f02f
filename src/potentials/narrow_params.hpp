#pragma once
// A pair style's parameter row in float, for the device's mixed precision
// (kernels/device/pair_forces.hpp). The kernel used to convert each double
// parameter to float at every pair; the table holds those same floats, so
// the forces keep their bits and each pair saves its conversions and half
// its parameter loads.
//
// Every field is rounded to nearest, as the kernel's conversions were,
// except cutsq, rounded up to the smallest float not below it: for any
// float r2, r2 < that float exactly when r2 < cutsq in double, so the same
// pairs pass the cutoff test as when a float r2 was compared in double.
//
// A style's ParamsT<T> must hold fields of type T only (each potential's
// header; the static_asserts check what they can).
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

namespace tessera {

// The smallest float >= x.
inline float float_at_least(double x) {
  float f = static_cast<float>(x);
  if (static_cast<double>(f) < x) f = std::nextafter(f, std::numeric_limits<float>::infinity());
  return f;
}

template <class Pot>
typename Pot::template ParamsT<float> narrow_params(const typename Pot::Params& p) {
  using D = typename Pot::Params;
  using F = typename Pot::template ParamsT<float>;
  static_assert(std::is_trivially_copyable_v<D> && std::is_trivially_copyable_v<F>);
  static_assert(sizeof(D) % sizeof(double) == 0 && sizeof(F) * 2 == sizeof(D),
                "ParamsT<T> must hold fields of type T only");
  constexpr std::size_t n = sizeof(D) / sizeof(double);
  double d[n];
  float f[n];
  std::memcpy(d, &p, sizeof(D));
  for (std::size_t k = 0; k < n; ++k) f[k] = static_cast<float>(d[k]);
  F out;
  std::memcpy(&out, f, sizeof(F));
  out.cutsq = float_at_least(p.cutsq);
  return out;
}

}  // namespace tessera
