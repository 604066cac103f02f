#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "core/error.hpp"
#include "core/units.hpp"
#include "integrate/integrator.hpp"
#include "test_support.hpp"
#include "thermo/thermo.hpp"

using namespace tessera;

namespace {
// Factors far from 1 and from each other, so a factor left out or put in
// the wrong place changes the result.
const Units kOdd{"odd", 2.0, 4.0, 0.5, 5.0, 0.01, 1.0, 0.3, 0.0, false, false, {}, {}};

// Records what Integrator asks of the atoms.
struct RecordingOps final : AtomOps {
  double mv2 = 0;  // what sum_mv2 answers
  double dtf = 0, dt = 0, scale = 0;
  LangevinKeys keys{};
  void half_kick(double d) override { dtf = d; }
  void drift(double d) override { dt = d; }
  void langevin(const LangevinKeys& k) override { keys = k; }
  double langevin_heat(const LangevinKeys&, double, bool) const override { return 0; }
  void scale_velocities(double s) override { scale = s; }
  void scale_velocities_twice(const double*) override {}
  void remap(const Box&, const Box&) override {}
  double sum_mv2() const override { return mv2; }
  void sum_mv2_axes(double out[3]) const override { out[0] = out[1] = out[2] = mv2 / 3; }
};

IntegratorSpec spec(IntegratorStyle style) {
  IntegratorSpec s;
  s.style = style;
  s.dt = 0.002;
  s.temperature = 1.5;
  s.damping = 0.25;
  s.seed = 7;
  return s;
}
}  // namespace

TEST_CASE("the lj table: every factor 1, LAMMPS's lj defaults", "[units]") {
  const Units& lj = units_for("lj");
  CHECK(&lj == find_units("lj"));
  CHECK(lj.name == "lj");
  CHECK(lj.boltz == 1.0);
  CHECK(lj.mvv2e == 1.0);
  CHECK(lj.ftm2v == 1.0);
  CHECK(lj.nktv2p == 1.0);
  CHECK(lj.dt_default == 0.005);
  CHECK(lj.skin_default == 0.3);
  CHECK(lj.normalize_thermo);
  CHECK(lj.symbols.length == "sigma");
  CHECK(lj.symbols.energy == "epsilon");
  // H5MD has no symbol for sigma or tau: no `unit` attributes in lj.
  CHECK(lj.h5md.length.empty());
  CHECK(lj.h5md.time.empty());
}

TEST_CASE("an unknown unit system is named in the error", "[units]") {
  CHECK(find_units("si") == nullptr);
  CHECK(find_units("LJ") == nullptr);  // names are case-sensitive, as in LAMMPS
  CHECK(find_units("") == nullptr);
  CHECK_THROWS_AS(units_for("si"), InputError);
  CHECK_THROWS_WITH(units_for("si"), "unknown units 'si' (known: lj, metal, real)");
  // The deck names the file, line, column and key.
  const std::string deck = test::lj_lattice_yaml(4, 1.0, 10, "{style: nve}");
  CHECK_THROWS_WITH(test::deck_from("units: Metal\n" + deck, "u.yaml"),
                    "u.yaml:1:8: units: unknown units 'Metal' (known: lj, metal, real)");
}

TEST_CASE("a deck without dt or skin gets the table's defaults", "[units]") {
  const Deck d =
      test::deck_from(test::replace(test::lj_lattice_yaml(4, 1.0, 10, "{style: nve}"), "neighbor: {skin: 0.3}\n", ""));
  REQUIRE(d.units == "lj");
  CHECK(d.integrator.dt == units_for("lj").dt_default);
  CHECK(d.neighbor.skin == units_for("lj").skin_default);
}

TEST_CASE("thermo converts with the table's factors, as LAMMPS does", "[units][thermo]") {
  const ThermoSums s{30.0, -50.0, 12.0};
  const double dof = 3 * 4 - 3, volume = 8.0;
  const ThermoValues v = thermo_values(7, s, 4, volume, 6.0, kOdd);
  CHECK(v.temp == Approx(30.0 * 4.0 / (dof * 2.0)));
  CHECK(kinetic_temperature(30.0, dof, kOdd) == v.temp);
  // Not normalised: totals, not per atom.
  CHECK(v.ke == Approx(0.5 * 30.0 * 4.0));
  CHECK(v.pe == -50.0);
  CHECK(v.etotal == Approx(60.0 - 50.0));
  CHECK(v.econserve == Approx(60.0 - 50.0 + 6.0));
  CHECK(v.press == Approx((dof * 2.0 * v.temp + 12.0) / (3 * volume) * 5.0));
  // The lj table divides the energies by the atom count.
  const ThermoValues lj = thermo_values(7, s, 4, volume, 6.0, units_for("lj"));
  CHECK(lj.ke == Approx(15.0 / 4));
  CHECK(lj.econserve == Approx(15.0 / 4 - 12.5 + 1.5));
}

TEST_CASE("the integrator folds the table's factors into the per-atom steps", "[units][integrator]") {
  RecordingOps ops;
  Integrator nve(spec(IntegratorStyle::kNve), kOdd, 10);
  nve.initial(ops);
  CHECK(ops.dtf == 0.5 * 0.002 * 0.5);  // (dt/2) ftm2v
  CHECK(ops.dt == 0.002);               // x += dt v needs no factor

  Integrator langevin(spec(IntegratorStyle::kLangevin), kOdd, 10);
  langevin.post_force(ops, 3);
  CHECK(ops.keys.inv_damp == Approx(1.0 / (0.25 * 0.5)));
  CHECK(ops.keys.noise_scale == Approx(std::sqrt(24.0 * 2.0 * 1.5 / (0.25 * 0.002 * 4.0)) / 0.5));
  CHECK(ops.keys.step == 3);

  // At the target temperature, mv2 mvv2e = dof k_B T, the chain's first
  // element feels no force and the velocities are scaled by exactly 1.
  // Without mvv2e or boltz the chain would act.
  const double dof = 3 * 10 - 3;
  ops.mv2 = dof * 2.0 * 1.5 / 4.0;
  Integrator nh(spec(IntegratorStyle::kNoseHoover), kOdd, 10);
  nh.initial(ops);
  CHECK(ops.scale == 1.0);
  CHECK(nh.chain_velocities()[0] == 0.0);
  CHECK(nh.chain_velocities()[1] != 0.0);
  ops.mv2 *= 2;  // hotter: the chain slows the atoms
  Integrator hot(spec(IntegratorStyle::kNoseHoover), kOdd, 10);
  hot.initial(ops);
  CHECK(ops.scale < 1.0);
}
