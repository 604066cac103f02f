#pragma once
// The two per-atom bodies of the embedded-atom method over a full
// neighbour list, written as host-device functors (like PairForce) so that
// a device twin can run the same physics:
//
//   E = sum_i F_i(rho_i) + 1/2 sum_i sum_j phi_ij(r_ij),  rho_i = sum_j rho_j(r_ij)
//
// EamDensity (pass 0) sums rho_i over i's neighbours and writes F'(rho_i)
// for the locals, and F(rho_i) beside it for the energy; the step then sends
// F' to the ghosts; EamForces (pass 1) gives each atom its own force from
// both ends' F', so no atom writes another's sums. Daw & Baskes, PRB 29,
// 6443 (1984); evaluation as LAMMPS's pair_style eam (eam_tables.hpp).
#include <cmath>

#include "core/host_device.hpp"
#include "manybody/eam_tables.hpp"

namespace tessera {

// Raw views of EamTables for a kernel.
struct EamView {
  const double* frho;
  const double* rhor;
  const double* z2r;
  const int* type2frho;
  const int* type2rhor;
  const int* type2z2r;
  int ntp;  // ntypes + 1
  int nrho, nr;
  double rdr, rdrho, rhomax, cutsq;

  // Knot and fraction of r on the r grid, clamped to the last piece.
  TESSERA_HD int r_knot(double r, double& p) const {
    p = r * rdr + 1.0;
    int m = static_cast<int>(p);
    m = m < nr - 1 ? m : nr - 1;
    p -= m;
    p = p < 1.0 ? p : 1.0;
    return m;
  }
  // The coefficients of table t (of an r table) at knot m.
  TESSERA_HD const double* r_piece(const double* table, int t, int m) const {
    return table + (static_cast<long>(t) * (nr + 1) + m) * kEamCoeffs;
  }
  TESSERA_HD static double value(const double* c, double p) { return ((c[3] * p + c[4]) * p + c[5]) * p + c[6]; }
  TESSERA_HD static double slope(const double* c, double p) { return (c[0] * p + c[1]) * p + c[2]; }
};

inline EamView eam_view(const EamTables& t) {
  return EamView{t.frho.data(),
                 t.rhor.data(),
                 t.z2r.data(),
                 t.type2frho.data(),
                 t.type2rhor.data(),
                 t.type2z2r.data(),
                 t.ntypes + 1,
                 t.nrho,
                 t.nr,
                 t.rdr,
                 t.rdrho,
                 t.rhomax,
                 t.cut * t.cut};
}

// What both passes read: the tables, the atoms (locals, then ghosts) and
// the full neighbour list.
struct EamAtoms {
  EamView v;
  const double* x;
  const double* y;
  const double* z;
  const int* type;
  const int* nbr;
  const int* nbr_count;
  int stride;
};

struct EamDensity {
  EamAtoms in;
  double* fp;     // F'(rho_i), locals
  double* embed;  // F(rho_i), locals

  TESSERA_HD void operator()(int i) const {
    const auto& [v, x, y, z, type, nbr, nbr_count, stride] = in;
    const double xi = x[i], yi = y[i], zi = z[i];
    const int ti = type[i];
    const int* list = nbr + static_cast<long>(i) * stride;
    double rho = 0;
    for (int k = 0; k < nbr_count[i]; ++k) {
      const int j = list[k];
      const double dx = xi - x[j], dy = yi - y[j], dz = zi - z[j];
      const double r2 = dx * dx + dy * dy + dz * dz;
      if (r2 < v.cutsq) {
        double p;
        const int m = v.r_knot(std::sqrt(r2), p);
        rho += EamView::value(v.r_piece(v.rhor, v.type2rhor[type[j] * v.ntp + ti], m), p);
      }
    }
    double p = rho * v.rdrho + 1.0;
    int m = static_cast<int>(p);
    m = m < v.nrho - 1 ? m : v.nrho - 1;
    m = m > 1 ? m : 1;
    p -= m;
    p = p < 1.0 ? p : 1.0;
    const double* c = v.frho + (static_cast<long>(v.type2frho[ti]) * (v.nrho + 1) + m) * kEamCoeffs;
    const double d = EamView::slope(c, p);
    double e = EamView::value(c, p);
    // Past the table F continues along its last tangent, so that a close
    // approach still conserves energy.
    if (rho > v.rhomax) e += d * (rho - v.rhomax);
    fp[i] = d;
    embed[i] = e;
  }
};

// kTensor: the virial tensor too (xx yy zz xy xz yz), as PairSums.
template <bool kTensor>
struct EamForces {
  EamAtoms in;
  const double* fp;     // F', locals and ghosts
  const double* embed;  // F, locals
  double* fx;
  double* fy;
  double* fz;
  double* pe;
  double* virial;
  bool accumulate;
  double* tensor[6];

  TESSERA_HD void operator()(int i) const {
    const auto& [v, x, y, z, type, nbr, nbr_count, stride] = in;
    const double xi = x[i], yi = y[i], zi = z[i];
    const int ti = type[i];
    const int* list = nbr + static_cast<long>(i) * stride;
    double sx = 0, sy = 0, sz = 0, e = 0, w = 0;
    double t[kTensor ? 6 : 1] = {};
    for (int k = 0; k < nbr_count[i]; ++k) {
      const int j = list[k];
      const double dx = xi - x[j], dy = yi - y[j], dz = zi - z[j];
      const double r2 = dx * dx + dy * dy + dz * dz;
      if (!(r2 < v.cutsq)) continue;
      const int tj = type[j];
      const double r = std::sqrt(r2);
      double p;
      const int m = v.r_knot(r, p);
      // d rho_j(r)/dr, the density i puts at j, and d rho_i(r)/dr.
      const double rhoip = EamView::slope(v.r_piece(v.rhor, v.type2rhor[ti * v.ntp + tj], m), p);
      const double rhojp = EamView::slope(v.r_piece(v.rhor, v.type2rhor[tj * v.ntp + ti], m), p);
      const double* c = v.r_piece(v.z2r, v.type2z2r[ti * v.ntp + tj], m);
      const double z2p = EamView::slope(c, p), z2 = EamView::value(c, p);
      const double recip = 1.0 / r;
      const double phi = z2 * recip;
      const double phip = z2p * recip - phi * recip;
      const double psip = fp[i] * rhojp + fp[j] * rhoip + phip;
      const double fpair = -psip * recip;
      const double fxp = dx * fpair, fyp = dy * fpair, fzp = dz * fpair;
      sx += fxp;
      sy += fyp;
      sz += fzp;
      e += phi;
      w += r2 * fpair;
      if constexpr (kTensor) {
        t[0] += dx * fxp;
        t[1] += dy * fyp;
        t[2] += dz * fzp;
        t[3] += dx * fyp;
        t[4] += dx * fzp;
        t[5] += dy * fzp;
      }
    }
    // Each pair is met from both ends: half its energy and virial here.
    const double pei = embed[i] + 0.5 * e, wi = 0.5 * w;
    if constexpr (kTensor)
      for (int c = 0; c < 6; ++c) tensor[c][i] = (accumulate ? tensor[c][i] : 0.0) + 0.5 * t[c];
    if (accumulate) {
      fx[i] += sx;
      fy[i] += sy;
      fz[i] += sz;
      pe[i] += pei;
      virial[i] += wi;
    } else {
      fx[i] = sx;
      fy[i] = sy;
      fz[i] = sz;
      pe[i] = pei;
      virial[i] = wi;
    }
  }
};

}  // namespace tessera
