// Every registered potential is checked here: adding one to the registry
// puts it under these tests without further work.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>

#include "potentials/lj_cut.hpp"
#include "potentials/lj_smooth_linear.hpp"
#include "potentials/morse.hpp"
#include "potentials/narrow_params.hpp"
#include "potentials/pair_style.hpp"
#include "run/simulation.hpp"
#include "test_support.hpp"

using namespace tessera;

namespace {
// Sensible coefficients for each registered potential, by coefficient name.
double sample_coeff(const std::string& name, int type) {
  if (name == "epsilon" || name == "d0") return type == 1 ? 1.0 : 0.7;
  if (name == "sigma") return type == 1 ? 1.0 : 1.15;
  if (name == "alpha") return type == 1 ? 3.0 : 2.5;
  if (name == "r0") return type == 1 ? 1.2 : 1.3;
  FAIL("no sample value for coefficient " << name);
  return 0;
}

std::unique_ptr<PairStyle> make_style(const PairStyleEntry& e, bool shift, double cutoff) {
  PairCoeffs c1, c2;
  for (std::size_t k = 0; k < e.coeff_names.size(); ++k) {
    c1.c[k] = sample_coeff(e.coeff_names[k], 1);
    c2.c[k] = sample_coeff(e.coeff_names[k], 2);
  }
  c1.cutoff = c2.cutoff = cutoff;
  std::vector<PairCoeffs> table(9);
  table[4] = c1;
  table[8] = c2;
  table[5] = table[7] = e.mix(c1, c2, Mixing::kLorentzBerthelot);
  return e.make(2, table, shift);
}
}  // namespace

TEST_CASE("pair force is minus the derivative of the pair energy (finite differences)", "[potentials]") {
  for (const auto& entry : pair_styles()) {
    for (bool shift : {false, true}) {
      INFO(entry.name << (shift ? " shifted" : ""));
      const auto style = make_style(entry, shift, 2.5);
      for (int ti = 1; ti <= 2; ++ti)
        for (int tj = 1; tj <= 2; ++tj)
          for (double r = 0.9; r < 2.45; r += 0.0137) {
            const double h = 1e-6;
            double fp, e, fm, em, f0, e0;
            style->eval_pair(ti, tj, (r + h) * (r + h), fp, e);
            style->eval_pair(ti, tj, (r - h) * (r - h), fm, em);
            style->eval_pair(ti, tj, r * r, f0, e0);
            const double dedr = (e - em) / (2 * h);
            // fpair is |F|/r: F = -dE/dr.
            CHECK(f0 * r == Approx(-dedr).epsilon(1e-6).margin(1e-7));
          }
    }
  }
}

TEST_CASE("lj/cut matches the analytic 12-6 form and its shift", "[potentials]") {
  PairCoeffs c;
  c.c = {0.8, 1.1, 0, 0};
  c.cutoff = 2.7;
  const auto p = LJCut::params(c, false);
  const auto ps = LJCut::params(c, true);
  const double r = 1.3, sr6 = std::pow(1.1 / r, 6);
  double f, e;
  LJCut::eval(r * r, p, f, e);
  CHECK(e == Approx(4 * 0.8 * (sr6 * sr6 - sr6)).epsilon(1e-14));
  CHECK(f * r == Approx(24 * 0.8 * (2 * sr6 * sr6 - sr6) / r).epsilon(1e-14));
  double fs, es, fc, ec;
  LJCut::eval(r * r, ps, fs, es);
  LJCut::eval(2.7 * 2.7 * (1 - 1e-15), ps, fc, ec);
  CHECK(fs == f);
  CHECK(std::abs(ec) < 1e-12);  // shifted energy vanishes at the cutoff
}

TEST_CASE("lj/smooth/linear is the force-shifted 12-6 form, zero force and energy at the cutoff", "[potentials]") {
  PairCoeffs c;
  c.c = {0.8, 1.1, 0, 0};
  c.cutoff = 2.7;
  const auto p = LJSmoothLinear::params(c, false);
  // E_LJ and F_LJ = -dE_LJ/dr written out, at r and at the cutoff.
  auto e_lj = [](double r) { return 4 * 0.8 * (std::pow(1.1 / r, 12) - std::pow(1.1 / r, 6)); };
  auto f_lj = [](double r) { return 24 * 0.8 * (2 * std::pow(1.1 / r, 12) - std::pow(1.1 / r, 6)) / r; };
  for (double r : {0.95, 1.3, 2.0, 2.6}) {
    INFO("r = " << r);
    double f, e;
    LJSmoothLinear::eval(r * r, p, f, e);
    CHECK(e == Approx(e_lj(r) - e_lj(2.7) + (r - 2.7) * f_lj(2.7)).epsilon(1e-13).margin(1e-15));
    CHECK(f * r == Approx(f_lj(r) - f_lj(2.7)).epsilon(1e-13).margin(1e-15));
  }
  // Unlike lj/cut, whose force jumps by F_LJ(r_c) there.
  double f, e;
  LJSmoothLinear::eval(2.7 * 2.7 * (1 - 1e-15), p, f, e);
  CHECK(std::abs(e) < 1e-14);
  CHECK(std::abs(f) < 1e-13);
  CHECK(std::abs(f_lj(2.7)) > 1e-2);
  // `shift` changes nothing: the energy is zero at the cutoff already.
  double fs, es;
  LJSmoothLinear::eval(1.3 * 1.3, LJSmoothLinear::params(c, true), fs, es);
  LJSmoothLinear::eval(1.3 * 1.3, p, f, e);
  CHECK(fs == f);
  CHECK(es == e);
}

TEST_CASE("morse has its minimum -D0 at r0", "[potentials]") {
  PairCoeffs c;
  c.c = {1.3, 2.0, 1.25, 0};
  c.cutoff = 3.0;
  const auto p = Morse::params(c, false);
  double f, e;
  Morse::eval(1.25 * 1.25, p, f, e);
  CHECK(e == Approx(-1.3).epsilon(1e-14));
  CHECK(std::abs(f) < 1e-14);
}

namespace {

// For floats r2 around cutsq (and cutsq itself, rounded both ways): the
// float cutoff decides as the double one does.
void check_same_cutoff_decisions(double cutsq) {
  const float c = float_at_least(cutsq);
  CHECK(static_cast<double>(c) >= cutsq);
  CHECK(static_cast<double>(std::nextafter(c, 0.0f)) < cutsq);
  float r2 = c;
  for (int k = 0; k < 8; ++k) r2 = std::nextafter(r2, 0.0f);
  for (int k = 0; k < 16; ++k, r2 = std::nextafter(r2, 1e30f))
    CHECK((r2 < c) == (static_cast<double>(r2) < cutsq));
}

// The float rows a mixed-precision kernel reads: each field is the float
// the kernel would have converted it to, except cutsq (above).
template <class Pot>
void check_narrowed(const typename Pot::Params& p) {
  const auto f = narrow_params<Pot>(p);
  constexpr int n = sizeof(p) / sizeof(double);
  double d[n];
  float g[n];
  std::memcpy(d, &p, sizeof(p));
  std::memcpy(g, &f, sizeof(f));
  int rounded_up = 0;
  for (int k = 0; k < n; ++k) {
    if (g[k] == static_cast<float>(d[k])) continue;
    ++rounded_up;  // only cutsq may differ, by rounding up
    CHECK(g[k] == float_at_least(d[k]));
  }
  CHECK(rounded_up <= 1);
  CHECK(f.cutsq == float_at_least(p.cutsq));
}

}  // namespace

TEST_CASE("Mixed precision's float parameter rows keep every cutoff decision and the kernel's own floats", "[potentials][mixed]") {
  for (double rc : {2.5, 1.1224620483093730, 2.0 / 3.0, 3.0000000001, 1e-3}) check_same_cutoff_decisions(rc * rc);
  // A cutsq that float rounds down (to nearest) must still round up here.
  const double down = 1.0 + 1e-9;
  CHECK(static_cast<double>(static_cast<float>(down)) < down);
  CHECK(static_cast<double>(float_at_least(down)) > down);
  check_same_cutoff_decisions(down);
  PairCoeffs pc;
  pc.c[0] = 1.3, pc.c[1] = 0.9, pc.c[2] = 1.1, pc.cutoff = 2.0 / 3.0 * 3.7;
  check_narrowed<LJCut>(LJCut::params(pc, true));
  check_narrowed<LJSmoothLinear>(LJSmoothLinear::params(pc, true));
  check_narrowed<Morse>(Morse::params(pc, true));
  // The float rows give the forces of the double rows converted pair by pair.
  const auto p = LJCut::params(pc, true);
  const auto f = narrow_params<LJCut>(p);
  for (float r2 : {0.7f, 1.0f, 1.9f, 4.4f}) {
    float fd, ed, ff, ef;
    LJCut::eval(r2, p, fd, ed);
    LJCut::eval(r2, f, ff, ef);
    CHECK(fd == ff);
    CHECK(ed == ef);
  }
}

TEST_CASE("Lorentz-Berthelot and geometric mixing", "[potentials]") {
  PairCoeffs a, b;
  a.c = {1.0, 1.0, 0, 0};
  b.c = {0.25, 2.0, 0, 0};
  a.cutoff = b.cutoff = 2.5;
  const PairCoeffs lb = LJCut::mix(a, b, Mixing::kLorentzBerthelot);
  CHECK(lb.c[0] == Approx(0.5));
  CHECK(lb.c[1] == Approx(1.5));
  const PairCoeffs geo = LJCut::mix(a, b, Mixing::kGeometric);
  CHECK(geo.c[1] == Approx(std::sqrt(2.0)));
}

TEST_CASE("system forces are minus the gradient of the total energy", "[potentials]") {
  for (const auto& entry : pair_styles()) {
    INFO(entry.name);
    std::string coeffs;
    for (int t : {1, 2}) {
      coeffs += fmt::format("    - {{types: [{0}, {0}]", t);
      for (const auto& n : entry.coeff_names) coeffs += fmt::format(", {}: {}", n, sample_coeff(n, t));
      coeffs += "}\n";
    }
    const std::string yaml = fmt::format(R"(
system:
  lattice: {{style: fcc, density: 0.8, cells: [4, 4, 4]}}
  types: 2
  masses: [1.0, 2.0]
velocity: {{temperature: 1.0, seed: 5}}
potential:
  style: {}
  cutoff: 2.5
  coeffs:
{}neighbor: {{skin: 0.3}}
integrator: {{style: nve, dt: 0.005}}
run: {{steps: 0}}
)",
                                         entry.name, coeffs);
    Simulation sim(test::deck_from(yaml));
    auto& a = sim.atoms();
    // Make it a mixture and disorder it, so forces are neither zero nor symmetric.
    for (std::size_t i = 0; i < a.nlocal; ++i) {
      a.type[i] = (a.id[i] % 3 == 0) ? 2 : 1;
      a.x[i] += 0.12 * std::sin(1.7 * a.id[i]);
      a.y[i] += 0.12 * std::cos(2.3 * a.id[i]);
      a.z[i] += 0.12 * std::sin(0.9 * a.id[i] + 1);
    }
    sim.setup();
    auto total_energy = [&]() {
      sim.setup();
      double e = 0;
      for (std::size_t i = 0; i < a.nlocal; ++i) e += a.pe[i];
      return e;
    };
    for (std::size_t probe : {std::size_t(0), std::size_t(17), std::size_t(101)}) {
      sim.setup();
      const AtomId id = a.id[probe];
      auto find = [&]() {
        for (std::size_t i = 0; i < a.nlocal; ++i)
          if (a.id[i] == id) return i;
        return std::size_t(0);
      };
      std::size_t i = find();
      const double f[3] = {a.fx[i], a.fy[i], a.fz[i]};
      for (int d = 0; d < 3; ++d) {
        const double h = 1e-5;
        std::vector<double>* pos = d == 0 ? &a.x : (d == 1 ? &a.y : &a.z);
        i = find();
        (*pos)[i] += h;
        const double ep = total_energy();
        i = find();
        (*pos)[i] -= 2 * h;
        const double em = total_energy();
        i = find();
        (*pos)[i] += h;
        CHECK(f[d] == Approx(-(ep - em) / (2 * h)).epsilon(1e-5).margin(1e-6));
      }
    }
  }
}
