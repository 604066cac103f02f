#pragma once
// From a global atom id to where that atom sits on this rank: among the
// locals and the ghosts, every image of it, and of those the one nearest a
// given point (LAMMPS's closest image). The bonded forces find their
// partners here; it is rebuilt whenever the ghosts change (each list build).
#include <unordered_map>
#include <vector>

#include "atoms/atom_store.hpp"
#include "core/types.hpp"

namespace tessera {

class IdMap {
 public:
  // Every local and ghost of `a`, locals first.
  void build(const AtomStore& a);
  // The index of the image of `id` nearest (x, y, z) (the first met among
  // equals: a local before its ghosts), or -1 when this rank has none.
  int nearest(AtomId id, double x, double y, double z, const AtomStore& a) const {
    int best = first(id);
    if (best < 0 || next_[best] < 0) return best;
    double best2 = dist2(a, best, x, y, z);
    for (int k = next_[best]; k >= 0; k = next_[k]) {
      const double d2 = dist2(a, k, x, y, z);
      if (d2 < best2) best = k, best2 = d2;
    }
    return best;
  }

 private:
  int first(AtomId id) const {
    if (!dense_.empty()) return id >= 0 && id < static_cast<AtomId>(dense_.size()) ? dense_[id] : -1;
    const auto it = first_.find(id);
    return it == first_.end() ? -1 : it->second;
  }
  static double dist2(const AtomStore& a, int k, double x, double y, double z) {
    const double dx = a.x[k] - x, dy = a.y[k] - y, dz = a.z[k] - z;
    return dx * dx + dy * dy + dz * dz;
  }
  // The first image of each id: a table indexed by id while the ids are
  // compact (at most 16 per atom held here, as LAMMPS's `atom_modify map
  // array`), else a hash map.
  std::vector<int> dense_;
  std::unordered_map<AtomId, int> first_;
  std::vector<int> next_, last_;  // the images of one id, chained in index order
};

}  // namespace tessera
