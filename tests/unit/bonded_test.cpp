// Bond and angle functors (src/bonded): energies
// and forces against closed forms and against central differences of the
// energy. Every style in bonded/bonded_list.hpp is put under the
// finite-difference tests by the list itself.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "bonded/bonded_force.hpp"
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
