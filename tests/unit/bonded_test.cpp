// Bond and angle functors (src/bonded, issue 29 work in progress): energies
// and forces against closed forms and against central differences of the
// energy. Every style in bonded/bonded_list.hpp is put under the
// finite-difference tests by the list itself.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "bonded/bonded_force.hpp"
#include "bonded/bonded_host.hpp"
#include "bonded/bonded_list.hpp"
#include "bonded/bonded_registry.hpp"

using namespace tessera;

namespace {

// Sensible coefficients for each style (LAMMPS's bench/in.chain FENE
// values; a water-like angle for the angle styles).
template <class Style>
BondedCoeffs sample_coeffs() {
  BondedCoeffs bc;
  if constexpr (std::is_same_v<Style, BondHarmonic>) bc.c = {2.5, 1.1, 0, 0};
  if constexpr (std::is_same_v<Style, BondFENE>) bc.c = {30.0, 1.5, 1.0, 1.0};
  if constexpr (std::is_same_v<Style, AngleHarmonic>) bc.c = {3.0, 109.47, 0, 0};
  if constexpr (std::is_same_v<Style, AngleCosine>) bc.c = {1.7, 0, 0, 0};
  if constexpr (std::is_same_v<Style, AngleCosineSquared>) bc.c = {2.2, 120.0, 0, 0};
  return bc;
}

template <class Style>
double bond_energy(double r) {
  double f, e;
  Style::eval(r * r, Style::params(sample_coeffs<Style>()), f, e);
  return e;
}

template <class Style>
void check_bond_finite_differences() {
  INFO("bond style " << Style::name);
  const auto p = Style::params(sample_coeffs<Style>());
  REQUIRE(Style::check(sample_coeffs<Style>()) == nullptr);
  // 0.85 .. 1.41: for FENE both sides of the WCA cutoff 2^(1/6) (not on it)
  // and up to just short of the clamp at sqrt(0.9) R0 = 1.423 (R0 = 1.5).
  // Beyond it LAMMPS clamps the log's argument to 0.1: the energy is flat
  // there but the force is not, so no derivative check.
  for (double r = 0.85; r < 1.42; r += 0.0371) {
    double fbond, e;
    REQUIRE(Style::eval(r * r, p, fbond, e) == BondStatus::kOk);
    const double h = 1e-6;
    const double dedr = (bond_energy<Style>(r + h) - bond_energy<Style>(r - h)) / (2 * h);
    INFO("r = " << r);
    CHECK(fbond * r == Approx(-dedr).epsilon(1e-6).margin(1e-6));
    CHECK(std::isfinite(e));
  }
}

template <class... Styles>
void check_all_bonds(BondedStyleList<Styles...>) {
  (check_bond_finite_differences<Styles>(), ...);
}

using V = Vec3<double>;

template <class Style>
double angle_energy(const V& x1, const V& x2, const V& x3) {
  const auto p = Style::params(sample_coeffs<Style>());
  V f1, f2, f3;
  double e, w;
  angle_forces<Style>(V{x1.x - x2.x, x1.y - x2.y, x1.z - x2.z}, V{x3.x - x2.x, x3.y - x2.y, x3.z - x2.z}, p, f1, f2, f3,
                      e, w);
  return e;
}

double& comp(V& v, int k) { return k == 0 ? v.x : (k == 1 ? v.y : v.z); }

template <class Style>
void check_angle_finite_differences() {
  INFO("angle style " << Style::name);
  REQUIRE(Style::check(sample_coeffs<Style>()) == nullptr);
  const auto p = Style::params(sample_coeffs<Style>());
  // Vertex at the origin-ish, arms of unequal length, angles 35..160 degrees
  // out of any coordinate plane.
  for (double deg = 35; deg <= 160; deg += 12.5) {
    const double th = deg * M_PI / 180;
    V x[3] = {{0.9 + 0.1, 0.05, -0.02},
              {0.1, 0.0, 0.03},
              {0.1 + 1.2 * std::cos(th), 1.2 * std::sin(th) * 0.8, 1.2 * std::sin(th) * 0.6 + 0.03}};
    V d1{x[0].x - x[1].x, x[0].y - x[1].y, x[0].z - x[1].z}, d2{x[2].x - x[1].x, x[2].y - x[1].y, x[2].z - x[1].z};
    V f[3];
    double e, w;
    angle_forces<Style>(d1, d2, p, f[0], f[1], f[2], e, w);
    INFO("theta = " << deg << " degrees");
    CHECK(f[0].x + f[1].x + f[2].x == Approx(0).margin(1e-12));
    CHECK(f[0].y + f[1].y + f[2].y == Approx(0).margin(1e-12));
    CHECK(f[0].z + f[1].z + f[2].z == Approx(0).margin(1e-12));
    const double h = 1e-6;
    for (int a = 0; a < 3; ++a)
      for (int k = 0; k < 3; ++k) {
        V xp[3] = {x[0], x[1], x[2]}, xm[3] = {x[0], x[1], x[2]};
        comp(xp[a], k) += h;
        comp(xm[a], k) -= h;
        const double dedx =
            (angle_energy<Style>(xp[0], xp[1], xp[2]) - angle_energy<Style>(xm[0], xm[1], xm[2])) / (2 * h);
        INFO("atom " << a << " component " << k);
        CHECK(comp(f[a], k) == Approx(-dedx).epsilon(1e-6).margin(1e-6));
      }
    // Each atom alone gets its own force and a third of energy and virial.
    for (int role = 0; role < 3; ++role) {
      V fs;
      double e3, w3;
      angle_force_on_self<Style>(role, d1, d2, p, fs, e3, w3);
      CHECK(fs.x == f[role].x);
      CHECK(fs.y == f[role].y);
      CHECK(fs.z == f[role].z);
      CHECK(e3 == Approx(e / 3).epsilon(1e-15));
      CHECK(w3 == Approx(w / 3).epsilon(1e-15));
    }
  }
}

template <class... Styles>
void check_all_angles(BondedStyleList<Styles...>) {
  (check_angle_finite_differences<Styles>(), ...);
}

}  // namespace

TEST_CASE("every bond style's force is minus the derivative of its energy", "[bonded]") {
  check_all_bonds(BondStyles{});
}

TEST_CASE("every angle style's forces are minus the gradient of its energy and sum to zero", "[bonded]") {
  check_all_angles(AngleStyles{});
}

TEST_CASE("harmonic bond: K (r - r0)^2 and its force", "[bonded]") {
  const auto p = BondHarmonic::params(BondedCoeffs{{2.5, 1.1, 0, 0}});
  double f, e;
  CHECK(BondHarmonic::eval(1.3 * 1.3, p, f, e) == BondStatus::kOk);
  CHECK(e == Approx(2.5 * 0.2 * 0.2).epsilon(1e-13));
  CHECK(f == Approx(-2 * 2.5 * 0.2 / 1.3).epsilon(1e-13));
  CHECK(BondHarmonic::eval(0.9 * 0.9, p, f, e) == BondStatus::kOk);
  CHECK(f > 0);  // compressed: pushes apart
  CHECK(BondHarmonic::check(BondedCoeffs{{-1, 1, 0, 0}}) != nullptr);
}

TEST_CASE("FENE bond: LAMMPS's log term plus WCA below 2^(1/6) sigma", "[bonded]") {
  const double K = 30, R0 = 1.5, eps = 1.2, sigma = 0.95;
  const auto p = BondFENE::params(BondedCoeffs{{K, R0, eps, sigma}});
  double f, e;
  // Inside the WCA range.
  const double r = 0.97;
  CHECK(BondFENE::eval(r * r, p, f, e) == BondStatus::kOk);
  const double sr6 = std::pow(sigma / r, 6);
  const double x = 1 - r * r / (R0 * R0);
  CHECK(e == Approx(-0.5 * K * R0 * R0 * std::log(x) + 4 * eps * (sr6 * sr6 - sr6) + eps).epsilon(1e-13));
  CHECK(f * r == Approx(-K * r / x + 24 * eps * (2 * sr6 * sr6 - sr6) / r).epsilon(1e-13));
  // Beyond 2^(1/6) sigma: the log term alone.
  const double r2 = 1.2, x2 = 1 - r2 * r2 / (R0 * R0);
  CHECK(BondFENE::eval(r2 * r2, p, f, e) == BondStatus::kOk);
  CHECK(e == Approx(-0.5 * K * R0 * R0 * std::log(x2)).epsilon(1e-13));
  CHECK(f == Approx(-K / x2).epsilon(1e-13));
  // The WCA part is continuous at its cutoff (it is shifted by eps).
  const double rc = std::pow(2.0, 1.0 / 6) * sigma;
  double fa, ea, fb, eb;
  BondFENE::eval(rc * rc * (1 - 1e-12), p, fa, ea);
  BondFENE::eval(rc * rc * (1 + 1e-12), p, fb, eb);
  CHECK(ea == Approx(eb).epsilon(1e-9));
}

TEST_CASE("FENE bond near and beyond R0: clamped as LAMMPS, then broken, never NaN", "[bonded]") {
  const double K = 30, R0 = 1.5;
  const auto p = BondFENE::params(BondedCoeffs{{K, R0, 1.0, 1.0}});
  double f, e;
  // 1 - (r/R0)^2 below SMALL = 0.1: LAMMPS (29 Sep 2021) uses SMALL in the
  // log and the force; measured E = 77.712246888549 for K 30, R0 1.5.
  for (double x : {0.095, 0.05, 0.0005}) {
    INFO("1 - (r/R0)^2 = " << x);
    CHECK(BondFENE::eval((1 - x) * R0 * R0, p, f, e) == BondStatus::kStretched);
    CHECK(e == Approx(-0.5 * K * R0 * R0 * std::log(0.1)).epsilon(1e-13));
    CHECK(e == Approx(77.712246888549).epsilon(1e-12));
    CHECK(f == Approx(-K / 0.1).epsilon(1e-13));
  }
  // Just above SMALL: not clamped (LAMMPS: no warning, the plain log).
  CHECK(BondFENE::eval((1 - 0.105) * R0 * R0, p, f, e) == BondStatus::kOk);
  CHECK(e == Approx(-0.5 * K * R0 * R0 * std::log(0.105)).epsilon(1e-13));
  for (double r : {1.5, 1.5000001, 2.0, 4.0}) {
    INFO("r = " << r);
    CHECK(BondFENE::eval(r * r, p, f, e) == BondStatus::kBroken);
    CHECK(std::isfinite(f));
    CHECK(std::isfinite(e));
  }
  CHECK(BondFENE::check(BondedCoeffs{{30, 0, 1, 1}}) != nullptr);
}

TEST_CASE("angle styles: closed forms at known angles", "[bonded]") {
  // Right angle in the xy plane, arms 1 and 2.
  const V d1{1, 0, 0}, d2{0, 2, 0};
  V f1, f2, f3;
  double e, w;
  SECTION("harmonic: K (theta - theta0)^2, theta0 in degrees") {
    const auto p = AngleHarmonic::params(BondedCoeffs{{3.0, 120.0, 0, 0}});
    angle_forces<AngleHarmonic>(d1, d2, p, f1, f2, f3, e, w);
    const double dth = M_PI / 2 - 2 * M_PI / 3;
    CHECK(e == Approx(3.0 * dth * dth).epsilon(1e-13));
    // dE/dtheta = 2 K dth < 0: the angle opens, atom 1 is pushed to -y
    // with |F1| = |dE/dtheta| / r1.
    CHECK(f1.y == Approx(2 * 3.0 * dth / 1.0).epsilon(1e-12));
    CHECK(f1.x == Approx(0).margin(1e-14));
    CHECK(f3.x == Approx(2 * 3.0 * dth / 2.0).epsilon(1e-12));
  }
  SECTION("cosine: K (1 + cos theta)") {
    const auto p = AngleCosine::params(BondedCoeffs{{1.7, 0, 0, 0}});
    angle_forces<AngleCosine>(d1, d2, p, f1, f2, f3, e, w);
    CHECK(e == Approx(1.7).epsilon(1e-14));
    // dE/dtheta = -K sin theta = -K: opens the angle.
    CHECK(f1.y == Approx(-1.7).epsilon(1e-13));
    CHECK(f3.x == Approx(-1.7 / 2).epsilon(1e-13));
    // Straight: minimum, no force.
    angle_forces<AngleCosine>(V{1, 0, 0}, V{-1.5, 0, 0}, p, f1, f2, f3, e, w);
    CHECK(e == Approx(0).margin(1e-14));
    CHECK(f1.y == Approx(0).margin(1e-14));
  }
  SECTION("cosine/squared: K (cos theta - cos theta0)^2") {
    const auto p = AngleCosineSquared::params(BondedCoeffs{{2.2, 120.0, 0, 0}});
    angle_forces<AngleCosineSquared>(d1, d2, p, f1, f2, f3, e, w);
    CHECK(e == Approx(2.2 * 0.25).epsilon(1e-12));
    // dE/dtheta = -2 K (cos - cos0) sin = -2.2: opens the angle.
    CHECK(f1.y == Approx(-2.2).epsilon(1e-12));
  }
  SECTION("harmonic at 180 degrees stays finite (sin floored as in LAMMPS)") {
    const auto p = AngleHarmonic::params(BondedCoeffs{{3.0, 109.47, 0, 0}});
    angle_forces<AngleHarmonic>(V{1, 0, 0}, V{-1, 0, 0}, p, f1, f2, f3, e, w);
    CHECK(std::isfinite(e));
    CHECK(std::isfinite(f1.x));
    CHECK(std::isfinite(f2.x));
  }
}

TEST_CASE("a bond's force on each of its atoms is equal and opposite, half the energy each", "[bonded]") {
  const auto p = BondFENE::params(sample_coeffs<BondFENE>());
  const V d{0.6, -0.5, 0.4};
  V fi, fj;
  double ei, ej, wi, wj;
  bond_force_on_self<BondFENE>(d, p, fi, ei, wi);
  bond_force_on_self<BondFENE>(V{-d.x, -d.y, -d.z}, p, fj, ej, wj);
  CHECK(fi.x == -fj.x);
  CHECK(fi.y == -fj.y);
  CHECK(fi.z == -fj.z);
  CHECK(ei + ej == Approx(bond_energy<BondFENE>(std::sqrt(dot3(d, d)))).epsilon(1e-14));
  CHECK(wi == wj);
}

TEST_CASE("the bonded registries list every style with LAMMPS's names and coefficient order", "[bonded]") {
  REQUIRE(find_bonded_style(bond_styles(), "harmonic") != nullptr);
  const BondedStyleEntry* fene = find_bonded_style(bond_styles(), "fene");
  REQUIRE(fene != nullptr);
  CHECK(fene->coeff_names == std::vector<std::string>{"K", "R0", "epsilon", "sigma"});
  CHECK(fene->check(BondedCoeffs{{30, 1.5, 1, 1}}) == nullptr);
  CHECK(fene->check(BondedCoeffs{{30, -1.5, 1, 1}}) != nullptr);
  CHECK(find_bonded_style(bond_styles(), "morse") == nullptr);
  for (const char* name : {"harmonic", "cosine", "cosine/squared"}) {
    INFO(name);
    CHECK(find_bonded_style(angle_styles(), name) != nullptr);
  }
  CHECK(find_bonded_style(angle_styles(), "cosine/squared")->coeff_names == std::vector<std::string>{"K", "theta0"});
  CHECK(bond_styles().size() == 2);
  CHECK(angle_styles().size() == 3);
}

namespace {
template <class Style>
void check_bond_float() {
  INFO("bond style " << Style::name);
  const auto p = Style::params(sample_coeffs<Style>());
  for (double r : {0.95, 1.2, 1.4}) {
    float ff, ef;
    double fd, ed;
    Style::eval(static_cast<float>(r * r), p, ff, ef);
    Style::eval(r * r, p, fd, ed);
    CHECK(ff == Approx(fd).epsilon(1e-4).margin(1e-5));
    CHECK(ef == Approx(ed).epsilon(1e-4).margin(1e-5));
  }
}
template <class Style>
void check_angle_float() {
  INFO("angle style " << Style::name);
  const auto p = Style::params(sample_coeffs<Style>());
  for (double c : {-0.8, -0.3, 0.2, 0.7}) {
    float gf, ef;
    double gd, ed;
    Style::eval(static_cast<float>(c), p, gf, ef);
    Style::eval(c, p, gd, ed);
    CHECK(gf == Approx(gd).epsilon(1e-4).margin(1e-5));
    CHECK(ef == Approx(ed).epsilon(1e-4).margin(1e-5));
  }
}
template <class... Styles>
void check_bonds_float(BondedStyleList<Styles...>) {
  (check_bond_float<Styles>(), ...);
}
template <class... Styles>
void check_angles_float(BondedStyleList<Styles...>) {
  (check_angle_float<Styles>(), ...);
}
}  // namespace

TEST_CASE("every bonded style also runs in float, as mixed precision would", "[bonded]") {
  check_bonds_float(BondStyles{});
  check_angles_float(AngleStyles{});
}

namespace {
double bond_energy_at(const BondFENE::Params& p, const double* a, const double* b) {
  const double r2 = (a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]);
  double f, e;
  BondFENE::eval(r2, p, f, e);
  return e;
}
// A 5-bead chain across the periodic x face of a 10^3 box: FENE bonds
// 1-2 .. 4-5, cosine/squared angles 1-2-3 .. 3-4-5 (the middle one type 2).
struct Chain {
  Box box;
  std::vector<double> x{9.3, 0.2, 1.0, 1.3, 2.1}, y{5.0, 5.4, 4.8, 5.7, 6.0}, z{5.0, 5.1, 5.6, 6.3, 6.0};
  std::vector<AtomId> id{1, 2, 3, 4, 5};
  MolecularTopology topo;
  std::vector<BondFENE::Params> bp;
  std::vector<AngleCosineSquared::Params> ap;
  Chain() {
    for (int d = 0; d < 3; ++d) box.hi[d] = 10;
    topo.nbond_types = 1;
    topo.nangle_types = 2;
    for (AtomId k = 1; k <= 4; ++k) topo.bonds.push_back(MolecularTopology::Bond{k, 1, {k, k + 1}});
    for (AtomId k = 1; k <= 3; ++k)
      topo.angles.push_back(MolecularTopology::Angle{k, k == 2 ? 2 : 1, {k, k + 1, k + 2}});
    bp = {BondFENE::Params{}, BondFENE::params(BondedCoeffs{{30, 1.5, 1, 1}})};
    ap = {AngleCosineSquared::Params{}, AngleCosineSquared::params(BondedCoeffs{{2.2, 120, 0, 0}}),
          AngleCosineSquared::params(BondedCoeffs{{1.1, 150, 0, 0}})};
  }
  BondedResult forces() const {
    return bonded_forces_host<BondFENE, AngleCosineSquared>(x, y, z, id, box, distribute_topology(topo, id, 2, 3), bp,
                                                            ap);
  }
  double energy() const {
    const BondedResult r = forces();
    double e = 0;
    for (double v : r.pe) e += v;
    return e;
  }
};
}  // namespace

TEST_CASE("per-atom bonded forces across a periodic face: the gradient of the total energy, summing to zero",
          "[bonded]") {
  Chain c;
  const BondedResult r = c.forces();
  double sx = 0, sy = 0, sz = 0;
  for (std::size_t k = 0; k < 5; ++k) {
    sx += r.fx[k];
    sy += r.fy[k];
    sz += r.fz[k];
  }
  CHECK(sx == Approx(0).margin(1e-10));
  CHECK(sy == Approx(0).margin(1e-10));
  CHECK(sz == Approx(0).margin(1e-10));
  CHECK(r.stretched == 0);
  // The total, from per-atom shares, equals the sum over bonds and angles.
  double direct = 0;
  const double pos[5][3] = {{-0.7, 5.0, 5.0}, {0.2, 5.4, 5.1}, {1.0, 4.8, 5.6}, {1.3, 5.7, 6.3}, {2.1, 6.0, 6.0}};
  for (int k = 0; k < 4; ++k) direct += bond_energy_at(c.bp[1], pos[k], pos[k + 1]);
  for (int k = 0; k < 3; ++k) {
    const V d1{pos[k][0] - pos[k + 1][0], pos[k][1] - pos[k + 1][1], pos[k][2] - pos[k + 1][2]};
    const V d2{pos[k + 2][0] - pos[k + 1][0], pos[k + 2][1] - pos[k + 1][1], pos[k + 2][2] - pos[k + 1][2]};
    V f1, f2, f3;
    double e, w;
    angle_forces<AngleCosineSquared>(d1, d2, c.ap[k == 1 ? 2 : 1], f1, f2, f3, e, w);
    direct += e;
  }
  CHECK(c.energy() == Approx(direct).epsilon(1e-13));
  // Force = minus the gradient of the total energy, per atom and component.
  const double h = 1e-6;
  for (std::size_t k = 0; k < 5; ++k)
    for (int d = 0; d < 3; ++d) {
      std::vector<double>& coord = d == 0 ? c.x : (d == 1 ? c.y : c.z);
      const double keep = coord[k];
      coord[k] = keep + h;
      const double ep = c.energy();
      coord[k] = keep - h;
      const double em = c.energy();
      coord[k] = keep;
      const double f = d == 0 ? r.fx[k] : (d == 1 ? r.fy[k] : r.fz[k]);
      INFO("atom " << c.id[k] << " component " << d);
      CHECK(f == Approx(-(ep - em) / (2 * h)).epsilon(1e-6).margin(1e-6));
    }
}

TEST_CASE("per-atom topology: capacity, missing partners and broken FENE bonds are errors naming atoms", "[bonded]") {
  Chain c;
  CHECK_THROWS_WITH(distribute_topology(c.topo, c.id, 1, 3),
                    Catch::Contains("atom 2 is in more than 1 bonds (bond 2 is one too many)"));
  CHECK_THROWS_WITH(distribute_topology(c.topo, c.id, 2, 2),
                    Catch::Contains("atom 3 is in more than 2 angles (angle 3 is one too many)"));
  // Atoms 1-4 here, 5 elsewhere: atom 4's bond partner is missing.
  const std::vector<AtomId> four{1, 2, 3, 4};
  const auto t = distribute_topology(c.topo, four, 2, 3);
  CHECK_THROWS_WITH(
      (bonded_forces_host<BondFENE, AngleCosineSquared>(
          std::vector<double>(c.x.begin(), c.x.begin() + 4), std::vector<double>(c.y.begin(), c.y.begin() + 4),
          std::vector<double>(c.z.begin(), c.z.begin() + 4), four, c.box, t, c.bp, c.ap)),
      Catch::Contains("has a bonded partner 5 that is not here"));
  c.x[4] = 3.0;  // bond 4-5 stretched to about 1.8 > R0 = 1.5
  CHECK_THROWS_WITH(c.forces(), Catch::Contains("bond of atoms 4 and 5 is stretched to"));
}
