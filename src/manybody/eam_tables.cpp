#include "manybody/eam_tables.hpp"

#include <algorithm>

namespace tessera {

namespace {

// Four-point Lagrange interpolation of the file's table v (v[0] at x = 0,
// spacing `spacing`) at x, as LAMMPS moves funcfl tables onto the common
// grid: the stencil is kept inside the table, so the ends extrapolate.
double lagrange(const std::vector<double>& v, double spacing, double x) {
  const double sixth = 1.0 / 6.0;
  const int n = static_cast<int>(v.size());
  double p = x / spacing + 1.0;
  int k = static_cast<int>(p);
  k = std::min(k, n - 2);
  k = std::max(k, 2);
  p -= k;
  p = std::min(p, 2.0);
  const double c1 = -sixth * p * (p - 1.0) * (p - 2.0);
  const double c2 = 0.5 * (p * p - 1.0) * (p - 2.0);
  const double c3 = -0.5 * p * (p + 1.0) * (p - 2.0);
  const double c4 = sixth * p * (p * p - 1.0);
  // v is 0-based; the stencil's points k-1 .. k+2 are 1-based.
  return c1 * v[k - 2] + c2 * v[k - 1] + c3 * v[k] + c4 * v[k + 1];
}

// Lower-triangle index of an unordered pair of tables.
int pair_index(int a, int b) {
  if (a < b) std::swap(a, b);
  return a * (a + 1) / 2 + b;
}

// Splines of `tables` (each 1-based: slot 0 unused, knots 1..n).
std::vector<double> splines(const std::vector<std::vector<double>>& tables, int n, double delta) {
  const std::size_t per = static_cast<std::size_t>(n + 1) * kEamCoeffs;
  std::vector<double> out(per * tables.size(), 0.0);
  for (std::size_t t = 0; t < tables.size(); ++t) eam_spline(n, delta, tables[t], out.data() + t * per);
  return out;
}

// A 1-based table from a 0-based one.
std::vector<double> one_based(const std::vector<double>& v) {
  std::vector<double> out(v.size() + 1, 0.0);
  std::copy(v.begin(), v.end(), out.begin() + 1);
  return out;
}

void finish(EamTables& t, double dr, double drho, const std::vector<std::vector<double>>& frho,
            const std::vector<std::vector<double>>& rhor, const std::vector<std::vector<double>>& z2r) {
  t.rdr = 1.0 / dr;
  t.rdrho = 1.0 / drho;
  t.frho = splines(frho, t.nrho, drho);
  t.rhor = splines(rhor, t.nr, dr);
  t.z2r = splines(z2r, t.nr, dr);
}

}  // namespace

void eam_spline(int n, double delta, const std::vector<double>& f, double* out) {
  auto s = [out](int m, int c) -> double& { return out[static_cast<std::size_t>(m) * kEamCoeffs + c]; };
  for (int m = 1; m <= n; ++m) s(m, 6) = f[m];
  // Derivative estimates (per grid step): one-sided and three-point at the
  // two ends, five-point inside.
  s(1, 5) = s(2, 6) - s(1, 6);
  s(2, 5) = 0.5 * (s(3, 6) - s(1, 6));
  s(n - 1, 5) = 0.5 * (s(n, 6) - s(n - 2, 6));
  s(n, 5) = s(n, 6) - s(n - 1, 6);
  for (int m = 3; m <= n - 2; ++m) s(m, 5) = ((s(m - 2, 6) - s(m + 2, 6)) + 8.0 * (s(m + 1, 6) - s(m - 1, 6))) / 12.0;
  // The cubic through knots m and m + 1 with those slopes.
  for (int m = 1; m <= n - 1; ++m) {
    s(m, 4) = 3.0 * (s(m + 1, 6) - s(m, 6)) - 2.0 * s(m, 5) - s(m + 1, 5);
    s(m, 3) = s(m, 5) + s(m + 1, 5) - 2.0 * (s(m + 1, 6) - s(m, 6));
  }
  s(n, 4) = 0.0;
  s(n, 3) = 0.0;
  for (int m = 1; m <= n; ++m) {
    s(m, 2) = s(m, 5) / delta;
    s(m, 1) = 2.0 * s(m, 4) / delta;
    s(m, 0) = 3.0 * s(m, 3) / delta;
  }
}

EamTables eam_tables_funcfl(const std::vector<EamFile>& files, const std::vector<int>& file_of_type) {
  EamTables t;
  t.ntypes = static_cast<int>(file_of_type.size()) - 1;
  // The common grid: the coarsest spacings and the longest reach of the
  // files in use, as LAMMPS takes them.
  double dr = 0, drho = 0, rmax = 0;
  for (const EamFile& f : files) {
    dr = std::max(dr, f.dr);
    drho = std::max(drho, f.drho);
    rmax = std::max(rmax, (f.nr - 1) * f.dr);
    t.rhomax = std::max(t.rhomax, (f.nrho - 1) * f.drho);
    t.cut = std::max(t.cut, f.cut);
  }
  t.nr = static_cast<int>(rmax / dr + 0.5);
  t.nrho = static_cast<int>(t.rhomax / drho + 0.5);

  std::vector<std::vector<double>> frho, rhor, z2r;
  for (const EamFile& f : files) {
    std::vector<double> fr(t.nrho + 1, 0.0), rr(t.nr + 1, 0.0);
    for (int m = 1; m <= t.nrho; ++m) fr[m] = lagrange(f.frho[0], f.drho, (m - 1) * drho);
    for (int m = 1; m <= t.nr; ++m) rr[m] = lagrange(f.rhor[0], f.dr, (m - 1) * dr);
    frho.push_back(std::move(fr));
    rhor.push_back(std::move(rr));
  }
  for (std::size_t i = 0; i < files.size(); ++i)
    for (std::size_t j = 0; j <= i; ++j) {
      std::vector<double> z(t.nr + 1, 0.0);
      for (int m = 1; m <= t.nr; ++m) {
        const double r = (m - 1) * dr;
        const double zi = lagrange(files[i].zr, files[i].dr, r), zj = lagrange(files[j].zr, files[j].dr, r);
        // Z_i Z_j e^2 / r with e^2 = 27.2 eV x 0.529 A (Hartree x Bohr).
        z[m] = 27.2 * 0.529 * zi * zj;
      }
      z2r.push_back(std::move(z));
    }

  const int ntp = t.ntypes + 1;
  t.type2frho.assign(ntp, 0);
  t.type2rhor.assign(ntp * ntp, 0);
  t.type2z2r.assign(ntp * ntp, 0);
  for (int i = 1; i < ntp; ++i) {
    t.type2frho[i] = file_of_type[i];
    for (int j = 1; j < ntp; ++j) {
      t.type2rhor[i * ntp + j] = file_of_type[i];
      t.type2z2r[i * ntp + j] = pair_index(file_of_type[i], file_of_type[j]);
    }
  }
  finish(t, dr, drho, frho, rhor, z2r);
  return t;
}

EamTables eam_tables_setfl(const EamFile& file, const std::vector<int>& element_of_type) {
  EamTables t;
  t.ntypes = static_cast<int>(element_of_type.size()) - 1;
  t.nrho = file.nrho;
  t.nr = file.nr;
  t.rhomax = (file.nrho - 1) * file.drho;
  t.cut = file.cut;
  std::vector<std::vector<double>> frho, rhor, z2r;
  for (const auto& v : file.frho) frho.push_back(one_based(v));
  for (const auto& v : file.rhor) rhor.push_back(one_based(v));
  for (const auto& v : file.z2r) z2r.push_back(one_based(v));
  const bool fs = file.format == EamFormat::kFinnisSinclair;
  const int ne = static_cast<int>(file.elements.size());
  const int ntp = t.ntypes + 1;
  t.type2frho.assign(ntp, 0);
  t.type2rhor.assign(ntp * ntp, 0);
  t.type2z2r.assign(ntp * ntp, 0);
  for (int i = 1; i < ntp; ++i) {
    const int ei = element_of_type[i];
    t.type2frho[i] = ei;
    for (int j = 1; j < ntp; ++j) {
      const int ej = element_of_type[j];
      t.type2rhor[i * ntp + j] = fs ? ei * ne + ej : ei;
      t.type2z2r[i * ntp + j] = pair_index(ei, ej);
    }
  }
  finish(t, file.dr, file.drho, frho, rhor, z2r);
  return t;
}

}  // namespace tessera
