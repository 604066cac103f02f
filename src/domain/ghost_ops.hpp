#pragma once
// The per-atom steps of wrapping atoms into the box and making periodic
// ghosts, written once as host-device functors: PeriodicGhosts runs them on
// the CPU (src/domain/periodic_ghosts.cpp) and DeviceGhosts on the device
// pipeline (kernels/device/device_ghosts.hpp), so the two halos are the same
// by construction, slot by slot and bit for bit.
#include <cstddef>
#include <type_traits>

#include "atoms/atom_fields.hpp"
#include "core/host_device.hpp"
#include "core/types.hpp"
#include "domain/box.hpp"

namespace tessera {

// Back into [lo, hi) on each axis, counting the image; one image at most
// (the step guard stops any atom that moves more than the skin, far less
// than a box length).
struct WrapAtom {
  Box box;
  double* pos[3];
  int* img[3];
  TESSERA_HD void operator()(int i) const {
    for (int d = 0; d < 3; ++d) {
      const double lo = box.lo[d], hi = box.hi[d], len = box.length(d);
      double& p = pos[d][i];
      if (p >= hi) {
        p -= len;
        if (p < lo) p = lo;  // rounding of hi - len
        ++img[d][i];
      } else if (p < lo) {
        p += len;
        if (p >= hi) p = lo;  // -tiny + len rounds to len
        --img[d][i];
      }
    }
  }
};

// Candidate k of a stage is atom k / 2 imaged down (k even: it is near the
// upper face) or up (k odd: near the lower face): candidates in index
// order are the ghosts' order on every backend.
struct NearFace {
  const double* v;
  double lo, hi, reach;
  TESSERA_HD bool operator()(int k) const {
    const double p = v[k >> 1];
    return (k & 1) ? p < lo + reach : p >= hi - reach;
  }
};

// Writes the ghosts of one stage: candidate picked[m] becomes atom first + m,
// its position imaged; the quantities no image shifts follow once every
// stage is made (copy_unshifted_from_sources).
struct MakeGhost {
  const int* picked;
  int first;
  int nlocal;
  int d;
  double len;
  double* x;
  double* y;
  double* z;
  int* source;         // per ghost: the local atom it images
  signed char* shift;  // per ghost, 3 entries: box lengths added
  TESSERA_HD void operator()(int m) const {
    const int k = picked[m];
    const int i = k >> 1;
    const int dir = (k & 1) ? 1 : -1;
    const int a = first + m, g = a - nlocal;
    const bool is_ghost = i >= nlocal;
    const int gi = is_ghost ? i - nlocal : 0;
    source[g] = is_ghost ? source[gi] : i;
    for (int e = 0; e < 3; ++e) shift[3 * g + e] = is_ghost ? shift[3 * gi + e] : 0;
    shift[3 * g + d] = static_cast<signed char>(shift[3 * g + d] + dir);
    x[a] = x[i] + (d == 0 ? dir * len : 0.0);
    y[a] = y[i] + (d == 1 ? dir * len : 0.0);
    z[a] = z[i] + (d == 2 ? dir * len : 0.0);
  }
};

// Ghost g follows its source; sources are locals, so one pass does every stage.
struct MoveGhost {
  int nlocal;
  double len[3];
  const int* source;
  const signed char* shift;
  double* x;
  double* y;
  double* z;
  TESSERA_HD void operator()(int g) const {
    const int s = source[g], a = nlocal + g;
    x[a] = x[s] + shift[3 * g] * len[0];
    y[a] = y[s] + shift[3 * g + 1] * len[1];
    z[a] = z[s] + shift[3 * g + 2] * len[2];
  }
};

// Ghost g takes its source's value of a quantity that no image shifts.
template <class T>
struct CopyFromSource {
  int nlocal;
  const int* source;
  T* v;
  TESSERA_HD void operator()(int g) const { v[nlocal + g] = v[source[g]]; }
};

// Every ghost-stored quantity that no image shifts (id, type, whatever a
// later field adds), ghost by ghost from its source: what makes a periodic
// ghost complete once MakeGhost has placed it. `run(n, functor)` is the
// backend's loop and `data(array)` an array's raw pointer.
template <class Store, class Run, class Data>
void copy_unshifted_from_sources(Store& a, int nlocal, int nghost, const int* source, Run run, Data data) {
  for_each_field(a, kFieldGhost, [&](auto& v, const FieldInfo& f) {
    using T = std::remove_pointer_t<decltype(data(v))>;
    if (!moves_with_image(f.name)) run(nghost, CopyFromSource<T>{nlocal, source, data(v)});
  });
}

// Atom from[k] into slot at + k of `dst` as its image `add` away along one
// axis carries it: a position component gains `add` (the shift on the
// swap's axis, + 0.0 on the others, as every halo path adds it, so a ghost
// is the same to the bit however it was made), any other quantity is
// copied. src and dst may be the same array when from[k] < at.
template <class T>
struct CopyImaged {
  const int* from;
  const T* src;
  T* dst;
  std::size_t at;
  bool moves;  // moves_with_image(the field's quantity)
  double add;
  TESSERA_HD void operator()(int k) const {
    if constexpr (std::is_floating_point_v<T>)
      dst[at + k] = moves ? src[from[k]] + add : src[from[k]];
    else
      dst[at + k] = src[from[k]];
  }
};

// CopyImaged for field `f` of a swap along axis d shifted by `shift`.
template <class T>
CopyImaged<T> copy_imaged(const FieldInfo& f, int d, double shift, const int* from, const T* src, T* dst,
                          std::size_t at) {
  return CopyImaged<T>{from, src, dst, at, moves_with_image(f.name), f.component == d ? shift : 0.0};
}

}  // namespace tessera
