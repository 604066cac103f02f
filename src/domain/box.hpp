#pragma once
#include "core/host_device.hpp"

namespace tessera {

// Orthorhombic periodic simulation box. lo is inclusive, hi exclusive.
struct Box {
  double lo[3] = {0, 0, 0};
  double hi[3] = {0, 0, 0};

  TESSERA_HD double length(int d) const { return hi[d] - lo[d]; }
  TESSERA_HD double volume() const { return length(0) * length(1) * length(2); }
  double min_length() const {
    double m = length(0);
    for (int d = 1; d < 3; ++d) m = length(d) < m ? length(d) : m;
    return m;
  }
};

// The part of the box one rank owns. With one rank it is the whole box; the
// decomposition issue splits the box into a grid of these.
struct SubDomain {
  Box global;
  double lo[3] = {0, 0, 0};
  double hi[3] = {0, 0, 0};
  int periodic[3] = {1, 1, 1};

  static SubDomain whole(const Box& b) {
    SubDomain s;
    s.global = b;
    for (int d = 0; d < 3; ++d) {
      s.lo[d] = b.lo[d];
      s.hi[d] = b.hi[d];
    }
    return s;
  }
};

}  // namespace tessera
