// The device force pipeline (kernels/device/force_pipeline.hpp), built for
// Thrust's OpenMP device system, against the CPU backend: forces per atom to
// 1e-12 (OpenMM's metric), energy, virial and kinetic sums to 1e-12, through
// ghost refreshes and rebuilds.
#include <catch2/catch.hpp>

#include "device_compare.hpp"
#include "device_twin.hpp"

using namespace tessera;
using namespace tessera::test;

namespace {

constexpr double kForceTol = 1e-12;

double cpu_sum(const AtomStore& a, const std::vector<double>& v) {
  double s = 0;
  for (std::size_t i = 0; i < a.nlocal; ++i) s += v[i];
  return s;
}

double cpu_mv2(const AtomStore& a) {
  double s = 0;
  for (std::size_t i = 0; i < a.nlocal; ++i)
    s += a.mass_of_type[a.type[i]] * (a.vx[i] * a.vx[i] + a.vy[i] * a.vy[i] + a.vz[i] * a.vz[i]);
  return s;
}

// Forces and sums of both sides agree; returns the force error.
template <class Pot>
double check_forces(Twin<Pot>& t) {
  t.compute_forces();
  const AtomStore d = t.device_atoms();
  const AtomStore& c = t.cpu.atoms;
  const double err = max_force_error(d, c);
  CHECK(err <= kForceTol);
  const device::DeviceSums s = t.dev.sums();
  CHECK(rel_diff(s.pe, cpu_sum(c, c.pe)) <= 1e-12);
  CHECK(rel_diff(s.virial, cpu_sum(c, c.virial)) <= 1e-12);
  CHECK(rel_diff(s.mv2, cpu_mv2(c)) <= 1e-12);
  return err;
}

}  // namespace

TEST_CASE("the CPU reference is the engine's own force path", "[device]") {
  Twin<LJCut> t(melt_deck("lj", kLJPotential));
  t.sim.setup();
  t.cpu.rebuild();
  t.cpu.compute_forces();
  const AtomStore& s = t.sim.atoms();
  const AtomStore& c = t.cpu.atoms;
  REQUIRE(s.nlocal == c.nlocal);
  REQUIRE(s.nghost == c.nghost);
  CHECK(s.id == c.id);
  CHECK(s.fx == c.fx);
  CHECK(s.fy == c.fy);
  CHECK(s.fz == c.fz);
}

TEST_CASE("device forces, energy and virial match the CPU on disordered systems", "[device]") {
  for_each_case([](auto& t, const char* name) {
    t.rebuild();
    const double err = check_forces(t);
    // A real disordered system: forces far from zero, and a list to check.
    const AtomStore d = t.device_atoms();
    double fmax = 0;
    for (std::size_t i = 0; i < d.nlocal; ++i) fmax = std::max(fmax, std::hypot(d.fx[i], d.fy[i], d.fz[i]));
    CHECK(fmax > 10.0);
    fmt::print("device_omp {}: {} atoms, {} ghosts, max relative force error {:.3g} after a build\n", name, d.nlocal,
               d.nghost, err);
  });
}

TEST_CASE("device forces follow the CPU through ghost refreshes and a rebuild", "[device]") {
  for_each_case([](auto& t, const char* name) {
    t.rebuild();
    // Up to 0.05: under half the skin, so no rebuild is due and the ghosts
    // must follow their sources.
    t.drift(0.02);
    CHECK_FALSE(t.dev.moved_too_far(0.3));
    t.refresh_ghosts();
    const double after_refresh = check_forces(t);
    // Far enough that a rebuild is due, atoms crossing the faces.
    t.drift(0.1);
    CHECK(t.dev.moved_too_far(0.3));
    t.rebuild();
    const double after_rebuild = check_forces(t);
    fmt::print("device_omp {}: max relative force error {:.3g} after a refresh, {:.3g} after a rebuild\n", name,
               after_refresh, after_rebuild);
  });
}
