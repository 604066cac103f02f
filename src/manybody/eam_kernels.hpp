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
//
// Real is the type of the per-pair math, as in PairForce: double, or float
// for `precision: mixed` on the device: the spline pieces, phi, 1/r and the
// pair force. Positions, the separation, the cutoff test, r and its place
// on the grid, every sum and the embedding function of the summed density
// stay in double either way: a float r loses about 9 bits of the fraction p
// at the far end of a grid of ~600 knots (forces of the CuNi melt 1.2e-5
// from double with it, 2.0e-6 without), and F' of a dense metal turns the
// last digits of rho into force.
#include <cmath>

#include "core/host_device.hpp"
#include "forces/kernel_outputs.hpp"
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
  // F'(rho) into fp and F(rho) into embed for an atom of type t, in double
  // (see the head of this file).
  TESSERA_HD void embedding(int t, double rho, double& fp, double& embed) const {
    double p = rho * rdrho + 1.0;
    int m = static_cast<int>(p);
    m = m < nrho - 1 ? m : nrho - 1;
    m = m > 1 ? m : 1;
    p -= m;
    p = p < 1.0 ? p : 1.0;
    const double* c = frho + (static_cast<long>(type2frho[t]) * (nrho + 1) + m) * kEamCoeffs;
    const double d = slope(c, p);
    double e = value(c, p);
    // Past the table F continues along its last tangent, so that a close
    // approach still conserves energy.
    if (rho > rhomax) e += d * (rho - rhomax);
    fp = d;
    embed = e;
  }
  template <class Real>
  TESSERA_HD static Real value(const double* c, Real p) {
    return ((static_cast<Real>(c[3]) * p + static_cast<Real>(c[4])) * p + static_cast<Real>(c[5])) * p +
           static_cast<Real>(c[6]);
  }
  template <class Real>
  TESSERA_HD static Real slope(const double* c, Real p) {
    return (static_cast<Real>(c[0]) * p + static_cast<Real>(c[1])) * p + static_cast<Real>(c[2]);
  }
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
  int stride;     // neighbour k of atom i is nbr[i * stride + k * step]:
  long step = 1;  // the CPU's rows, or the device's transposed list (stride 1)
};

template <class Real = double>
struct EamDensity {
  EamAtoms in;
  double* fp;     // F'(rho_i), locals
  double* embed;  // F(rho_i), locals

  TESSERA_HD void operator()(int i) const {
    const auto& [v, x, y, z, type, nbr, nbr_count, stride, step] = in;
    const double xi = x[i], yi = y[i], zi = z[i];
    const int ti = type[i];
    const int* list = nbr + static_cast<long>(i) * stride;
    double rho = 0;
    for (int k = 0; k < nbr_count[i]; ++k) {
      const int j = list[k * step];
      const double dx = xi - x[j], dy = yi - y[j], dz = zi - z[j];
      const double r2 = dx * dx + dy * dy + dz * dz;
      if (r2 < v.cutsq) {
        double pd;
        const int m = v.r_knot(std::sqrt(r2), pd);
        const Real p = static_cast<Real>(pd);
        rho += static_cast<double>(EamView::value(v.r_piece(v.rhor, v.type2rhor[type[j] * v.ntp + ti], m), p));
      }
    }
    v.embedding(ti, rho, fp[i], embed[i]);
  }
};

// kTensor: the virial tensor too (xx yy zz xy xz yz), as PairSums.
template <bool kTensor, class Real = double>
struct EamForces {
  EamAtoms in;
  const double* fp;     // F', locals and ghosts
  const double* embed;  // F, locals
  KernelOutputs out;    // the tensor's arrays: kTensor only

  TESSERA_HD void operator()(int i) const {
    const auto& [v, x, y, z, type, nbr, nbr_count, stride, step] = in;
    const double xi = x[i], yi = y[i], zi = z[i];
    const int ti = type[i];
    const int* list = nbr + static_cast<long>(i) * stride;
    double sx = 0, sy = 0, sz = 0, e = 0, w = 0;
    double t[kTensor ? 6 : 1] = {};
    for (int k = 0; k < nbr_count[i]; ++k) {
      const int j = list[k * step];
      const double dx = xi - x[j], dy = yi - y[j], dz = zi - z[j];
      const double r2 = dx * dx + dy * dy + dz * dz;
      if (!(r2 < v.cutsq)) continue;
      const int tj = type[j];
      const Real r2r = static_cast<Real>(r2);
      const double rd = std::sqrt(r2);
      const Real r = static_cast<Real>(rd);
      double pd;
      const int m = v.r_knot(rd, pd);
      const Real p = static_cast<Real>(pd);
      // d rho_j(r)/dr, the density i puts at j, and d rho_i(r)/dr: one
      // table when both ends' densities are the same function (every pair
      // of a one-element metal), evaluated once.
      const int ti_to_j = v.type2rhor[ti * v.ntp + tj], tj_to_i = v.type2rhor[tj * v.ntp + ti];
      const Real rhoip = EamView::slope(v.r_piece(v.rhor, ti_to_j, m), p);
      const Real rhojp = ti_to_j == tj_to_i ? rhoip : EamView::slope(v.r_piece(v.rhor, tj_to_i, m), p);
      const double* c = v.r_piece(v.z2r, v.type2z2r[ti * v.ntp + tj], m);
      const Real z2p = EamView::slope(c, p), z2 = EamView::value(c, p);
      const Real recip = Real(1) / r;
      const Real phi = z2 * recip;
      const Real phip = z2p * recip - phi * recip;
      const Real psip = static_cast<Real>(fp[i]) * rhojp + static_cast<Real>(fp[j]) * rhoip + phip;
      const Real fpair = -psip * recip;
      const Real dxr = static_cast<Real>(dx), dyr = static_cast<Real>(dy), dzr = static_cast<Real>(dz);
      const Real fxp = dxr * fpair, fyp = dyr * fpair, fzp = dzr * fpair;
      sx += static_cast<double>(fxp);
      sy += static_cast<double>(fyp);
      sz += static_cast<double>(fzp);
      e += static_cast<double>(phi);
      w += static_cast<double>(r2r * fpair);
      if constexpr (kTensor) {
        t[0] += static_cast<double>(dxr * fxp);
        t[1] += static_cast<double>(dyr * fyp);
        t[2] += static_cast<double>(dzr * fzp);
        t[3] += static_cast<double>(dxr * fyp);
        t[4] += static_cast<double>(dxr * fzp);
        t[5] += static_cast<double>(dyr * fzp);
      }
    }
    // Each pair is met from both ends: half its energy and virial here.
    if constexpr (kTensor) {
      const double th[6] = {0.5 * t[0], 0.5 * t[1], 0.5 * t[2], 0.5 * t[3], 0.5 * t[4], 0.5 * t[5]};
      out.write_tensor(i, th);
    }
    out.write(i, sx, sy, sz, embed[i] + 0.5 * e, 0.5 * w);
  }
};

}  // namespace tessera
