#pragma once
// The one pair loop. Every potential runs through this per-atom body, on
// every backend: the CPU backend calls it from OpenMP threads, the CUDA
// backend from one GPU thread per atom.
//
// Real is the type of the pair math: double, or float for `precision:
// mixed`. Positions, the separation, the cutoff test and every sum stay in
// double either way: the separation of two nearby atoms loses no digits,
// the neighbour set is the double one, and float products are accumulated in
// double (energy and virial too).
#include "core/host_device.hpp"

namespace tessera {

template <class Pot, class Real = double>
struct PairForce {
  const double* x;
  const double* y;
  const double* z;
  const int* type;
  const int* nbr;
  const int* nbr_count;
  int stride;
  const typename Pot::Params* params;  // (ntypes+1)^2 table, row-major by type
  int type_stride;
  double* fx;
  double* fy;
  double* fz;
  double* pe;
  double* virial;

  TESSERA_HD void operator()(int i) const {
    const double xi = x[i], yi = y[i], zi = z[i];
    const typename Pot::Params* row = params + type[i] * type_stride;
    double fxi = 0, fyi = 0, fzi = 0, ei = 0, wi = 0;
    const int* list = nbr + static_cast<long>(i) * stride;
    const int n = nbr_count[i];
    for (int k = 0; k < n; ++k) {
      const int j = list[k];
      const double dx = xi - x[j], dy = yi - y[j], dz = zi - z[j];
      const double r2 = dx * dx + dy * dy + dz * dz;
      const typename Pot::Params& p = row[type[j]];
      if (r2 < p.cutsq) {
        Real fpair, e;
        const Real r2r = static_cast<Real>(r2);
        Pot::eval(r2r, p, fpair, e);
        fxi += static_cast<double>(static_cast<Real>(dx) * fpair);
        fyi += static_cast<double>(static_cast<Real>(dy) * fpair);
        fzi += static_cast<double>(static_cast<Real>(dz) * fpair);
        ei += static_cast<double>(e);
        wi += static_cast<double>(r2r * fpair);
      }
    }
    fx[i] = fxi;
    fy[i] = fyi;
    fz[i] = fzi;
    // Each pair is visited from both ends: half the energy and virial here.
    pe[i] = 0.5 * ei;
    virial[i] = 0.5 * wi;
  }
};

}  // namespace tessera
