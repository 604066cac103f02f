#pragma once
// Mixed precision's positions and type of every atom (locals, then ghosts)
// in one 16-byte float record, so the pair loop reads a neighbour in one
// load of half a sector instead of four gathers (x, y, z, type) of double
// positions. Packed each step just before the pair force reads them
// (pair_forces.hpp), so nothing else has to keep them up to date. Double
// keeps the four gathers: a 32-byte double record, tried on an H200, made
// the pair kernel 5-7 % slower (benchmarks/NOTES.md).
#include <cmath>

#include "core/host_device.hpp"
#include "device/device_atoms.hpp"

namespace tessera::device {
inline namespace TESSERA_DEVICE_SYSTEM_NS {

// Float, relative to a tile: the rank's region is cut into cubic tiles of
// width w, a power of two between a twelfth and a sixth of the list's reach,
// and a coordinate is stored as its offset from the middle of its tile, at
// most w/2, so float keeps it to a few 1e-9 whatever the box's size (from a
// corner of a 270-sigma box it would be 1.5e-5). The tile's coordinates
// modulo 64 (6 bits per axis) and the type share the fourth word: two atoms
// in tiles dc apart are (o_i - o_j) + dc w apart, dc w exact in float, so
// the separation carries little more than its own rounding. dc is known
// modulo 64, which is exact for |dc| < 32: every pair a list holds until its
// atoms have moved more than 19 w (1.5 reaches) further apart; a pair
// misread beyond that is at least 64 - |dc| - 1 tiles away, so none is read
// as within the cutoff (under 12 w) before its atoms are 51 w apart.
struct alignas(16) PackedFloat {
  float x, y, z;
  int tag;  // tile x, y, z modulo 64 in bits 0-5, 6-11, 12-17; the type above
  TESSERA_HD int type() const { return tag >> kTypeShift; }
  static constexpr int kTileBits = 6, kTypeShift = 3 * kTileBits;
  static constexpr int kMaxType = (1 << (31 - kTypeShift)) - 1;
};

// Where the float tiles lie: the corner of tile (0, 0, 0) and the width,
// the same on every axis (a float, so that o_i - o_j + dc w is exact in
// real numbers).
struct TileFrame {
  double lo[3] = {0, 0, 0};
  float w = 1;
};

// The separation i - j of two packed atoms, in float.
TESSERA_HD inline int tile_step(int ti, int tj) {
  constexpr int m = 1 << PackedFloat::kTileBits;
  const int d = (ti - tj) & (m - 1);
  return d < m / 2 ? d : d - m;
}
TESSERA_HD inline void separation(const PackedFloat& i, const PackedFloat& j, float w, float& dx, float& dy,
                                  float& dz) {
  dx = (i.x - j.x) + static_cast<float>(tile_step(i.tag, j.tag)) * w;
  constexpr int b = PackedFloat::kTileBits;
  dy = (i.y - j.y) + static_cast<float>(tile_step(i.tag >> b, j.tag >> b)) * w;
  dz = (i.z - j.z) + static_cast<float>(tile_step(i.tag >> 2 * b, j.tag >> 2 * b)) * w;
}

// One record, in one vector load through the read-only cache on the GPU
// (nvcc does not always merge the fields of a struct into one load by itself).
TESSERA_HD inline PackedFloat load_packed(const PackedFloat* p, int j) {
#if defined(__CUDA_ARCH__)
  const float4 v = __ldg(reinterpret_cast<const float4*>(p + j));
  return {v.x, v.y, v.z, __float_as_int(v.w)};
#else
  return p[j];
#endif
}

namespace detail {

struct PackFloat {
  const double* x;
  const double* y;
  const double* z;
  const int* type;
  TileFrame frame;
  PackedFloat* out;
  TESSERA_HD void operator()(int i) const {
    const double c[3] = {x[i], y[i], z[i]};
    const double w = frame.w;
    float o[3];
    constexpr int b = PackedFloat::kTileBits;
    int tag = type[i] << PackedFloat::kTypeShift;
    for (int d = 0; d < 3; ++d) {
      const double t = std::floor((c[d] - frame.lo[d]) / w);
      o[d] = static_cast<float>(c[d] - (frame.lo[d] + (t + 0.5) * w));
      tag |= static_cast<int>(static_cast<long long>(t) & ((1 << b) - 1)) << (b * d);
    }
    out[i] = {o[0], o[1], o[2], tag};
  }
};

template <class F>
struct Offset {
  int first;
  F f;
  TESSERA_HD void operator()(int k) const { f(first + k); }
};

}  // namespace detail

// Packs atoms [first, last) of `a` into `out`, which must hold a.nall()
// records.
inline void pack_positions(const DeviceStream& s, const DeviceAtoms& a, int first, int last, const TileFrame& frame,
                           PackedFloat* out) {
  if (last > first)
    for_each_index(s, last - first,
                   detail::Offset<detail::PackFloat>{first, {raw(a.x), raw(a.y), raw(a.z), raw(a.type), frame, out}});
}

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
