#pragma once
// EAM functions as the force evaluates them: cubic pieces on one uniform r
// grid and one uniform rho grid, with the atom types mapped to tables.
//
// The arithmetic is LAMMPS's (pair_style eam, 29 Sep 2021), operation for
// operation, so that forces agree to rounding: funcfl files are first
// carried onto a common grid by four-point Lagrange interpolation (and the
// pair term built as 27.2 * 0.529 * Z_i Z_j); then each table gets, per
// knot m, seven coefficients: [6] the value, [5] a five-point derivative
// estimate (in grid units), [4] and [3] the quadratic and cubic terms of
// the Hermite piece to knot m + 1, and [2] [1] [0] the derivative's
// polynomial in physical units. A value at x is, with p = x / delta + 1,
// m = int(p) clamped to the table and p -= m clamped to 1,
// ((c[3] p + c[4]) p + c[5]) p + c[6]; its derivative (c[0] p + c[1]) p + c[2].
#include <vector>

#include "manybody/eam_file.hpp"

namespace tessera {

inline constexpr int kEamCoeffs = 7;

struct EamTables {
  int nrho = 0, nr = 0;  // knots 1..n of each table (slot 0 unused)
  double rdr = 0, rdrho = 0;
  double rhomax = 0;  // beyond it F is extended linearly (energy only)
  double cut = 0;
  // Spline tables, each (n + 1) * kEamCoeffs doubles, one after the other.
  std::vector<double> frho, rhor, z2r;
  // Per atom type (1-based; pairs row-major over (ntypes + 1)^2): the
  // table of F for type i; the density table of pair (i, j), where an
  // atom of type i gains rhor[type2rhor[j][i]] from a neighbour of type j
  // (LAMMPS's indexing; funcfl and setfl depend on j only); and the r phi
  // table of the pair.
  int ntypes = 0;
  std::vector<int> type2frho, type2rhor, type2z2r;
};

// Funcfl: `file_of_type[t]` (t = 1..ntypes; [0] unused) indexes `files`.
EamTables eam_tables_funcfl(const std::vector<EamFile>& files, const std::vector<int>& file_of_type);
// Setfl or Finnis-Sinclair: `element_of_type[t]` indexes file.elements.
EamTables eam_tables_setfl(const EamFile& file, const std::vector<int>& element_of_type);

// The seven coefficients per knot of f[1..n] (f[0] unused) on a grid of
// spacing `delta`, into out[(m) * kEamCoeffs + c].
void eam_spline(int n, double delta, const std::vector<double>& f, double* out);

}  // namespace tessera
