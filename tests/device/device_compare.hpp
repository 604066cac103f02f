#pragma once
// Comparing a device state with the CPU's. The device sorts atoms its own
// way in general, so everything is matched by global id; a ghost is named by
// its id and its periodic shift (in box lengths) from the local it images.
#include <thrust/copy.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <vector>

#include "atoms/atom_store.hpp"
#include "device/neighbor_lists.hpp"
#include "domain/box.hpp"
#include "neighbor/neighbor_list.hpp"

namespace tessera::test {

// An atom or one of its periodic images.
struct Image {
  AtomId id;
  std::array<long, 3> shift;
  bool operator<(const Image& o) const { return id != o.id ? id < o.id : shift < o.shift; }
  bool operator==(const Image& o) const { return id == o.id && shift == o.shift; }
};

// A neighbour list in host memory (either backend's), rows of `count` used entries.
struct HostList {
  int stride = 0;
  std::vector<int> count, index;
};

// The device's transposed list (neighbor_lists.hpp) as the CPU's rows.
inline HostList host_list(const device::DeviceNeighborList& nl) {
  HostList h;
  h.stride = nl.stride;
  h.count.resize(nl.count.size());
  std::vector<int> columns(nl.index.size());
  thrust::copy(nl.count.begin(), nl.count.end(), h.count.begin());  // device -> host
  thrust::copy(nl.index.begin(), nl.index.end(), columns.begin());
  h.index.assign(h.count.size() * static_cast<std::size_t>(nl.stride), 0);
  for (std::size_t i = 0; i < h.count.size(); ++i)
    for (int k = 0; k < h.count[i] && k < nl.stride; ++k)
      h.index[i * nl.stride + k] = columns[static_cast<std::size_t>(k) * nl.pitch + i];
  return h;
}

inline HostList host_list(const NeighborList& nl) {
  return {nl.stride, nl.count, std::vector<int>(nl.index.begin(), nl.index.end())};
}

inline std::map<AtomId, std::size_t> local_slots(const AtomStore& a) {
  std::map<AtomId, std::size_t> slot;
  for (std::size_t i = 0; i < a.nlocal; ++i) slot[a.id[i]] = i;
  return slot;
}

// Atom j (local or ghost) as an image of the local atom with its id.
inline Image image_of(const AtomStore& a, const Box& box, const std::map<AtomId, std::size_t>& slot, std::size_t j) {
  const std::size_t s = slot.at(a.id[j]);
  const double d[3] = {a.x[j] - a.x[s], a.y[j] - a.y[s], a.z[j] - a.z[s]};
  Image im{a.id[j], {0, 0, 0}};
  for (int e = 0; e < 3; ++e) im.shift[e] = std::lround(d[e] / box.length(e));
  return im;
}

// Per local atom id: its neighbours as sorted images.
inline std::map<AtomId, std::vector<Image>> neighbor_sets(const AtomStore& a, const Box& box, const HostList& nl) {
  const auto slot = local_slots(a);
  std::map<AtomId, std::vector<Image>> sets;
  for (std::size_t i = 0; i < a.nlocal; ++i) {
    std::vector<Image>& row = sets[a.id[i]];
    for (int k = 0; k < nl.count[i]; ++k) row.push_back(image_of(a, box, slot, nl.index[i * nl.stride + k]));
    std::sort(row.begin(), row.end());
  }
  return sets;
}

// The ghosts as sorted images.
inline std::vector<Image> ghost_images(const AtomStore& a, const Box& box) {
  const auto slot = local_slots(a);
  std::vector<Image> g;
  for (std::size_t j = a.nlocal; j < a.nall(); ++j) g.push_back(image_of(a, box, slot, j));
  std::sort(g.begin(), g.end());
  return g;
}

// max over atoms of 2|F_a - F_b| / (|F_a| + |F_b|), matched by id.
// The sum of a per-atom array over the locals, in index order.
inline double cpu_sum(const AtomStore& a, const std::vector<double>& v) {
  double s = 0;
  for (std::size_t i = 0; i < a.nlocal; ++i) s += v[i];
  return s;
}

// |F_a - F_b| over |F_b|, each the root mean square over the local atoms:
// the error of the force field as a whole, which atoms whose forces nearly
// cancel (where max_force_error is largest) do not dominate.
inline double rms_force_error(const AtomStore& a, const AtomStore& b) {
  const auto slot = local_slots(b);
  double d2 = 0, f2 = 0;
  for (std::size_t i = 0; i < a.nlocal; ++i) {
    const std::size_t j = slot.at(a.id[i]);
    const double dx = a.fx[i] - b.fx[j], dy = a.fy[i] - b.fy[j], dz = a.fz[i] - b.fz[j];
    d2 += dx * dx + dy * dy + dz * dz;
    f2 += b.fx[j] * b.fx[j] + b.fy[j] * b.fy[j] + b.fz[j] * b.fz[j];
  }
  return f2 > 0 ? std::sqrt(d2 / f2) : std::sqrt(d2);
}

// Whether two runs' per-atom sums (forces, energies, virials) are the same
// bits.
inline bool same_sums(const AtomStore& a, const AtomStore& b) {
  return a.fx == b.fx && a.fy == b.fy && a.fz == b.fz && a.pe == b.pe && a.virial == b.virial;
}

inline double max_force_error(const AtomStore& a, const AtomStore& b) {
  const auto slot = local_slots(b);
  double worst = 0;
  for (std::size_t i = 0; i < a.nlocal; ++i) {
    const std::size_t j = slot.at(a.id[i]);
    const double d = std::hypot(a.fx[i] - b.fx[j], a.fy[i] - b.fy[j], a.fz[i] - b.fz[j]);
    const double m = std::hypot(a.fx[i], a.fy[i], a.fz[i]) + std::hypot(b.fx[j], b.fy[j], b.fz[j]);
    worst = std::max(worst, m > 0 ? 2 * d / m : d);
  }
  return worst;
}

}  // namespace tessera::test
