// The device force pipeline (kernels/device/force_pipeline.hpp), built for
// Thrust's OpenMP device system, against the CPU backend: forces per atom to
// 1e-12 (OpenMM's metric), energy, virial and kinetic sums to 1e-12, through
// ghost refreshes and rebuilds.
// Its force list (device_force.hpp): members accumulate, a force's passes
// run in order with what it declares forwarded to the ghosts in between, on
// the plain and the overlapped path; the ghosts' forward of a quantity no
// image shifts matches the CPU's.
#include <omp.h>

#include <catch2/catch.hpp>

#include <thrust/fill.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "device/device_ghosts.hpp"
#include "device/device_system.hpp"
#include "device/pair_forces.hpp"
#include "device_compare.hpp"
#include "device_twin.hpp"

using namespace tessera;
using namespace tessera::test;

namespace {

constexpr double kForceTol = 1e-12;

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

// Two passes: the first spoils every ghost's position, the second is the
// pair force. Right only if the pipeline forwards positions in between.
class SpoilThenPair final : public device::DeviceForce {
 public:
  explicit SpoilThenPair(std::unique_ptr<device::DeviceForce> pair) : pair_(std::move(pair)) {}
  int passes() const override { return 2; }
  std::vector<std::string> forwarded_after(int pass) const override {
    return pass == 0 ? std::vector<std::string>{"position"} : std::vector<std::string>{};
  }
  void compute(int pass, device::DeviceAtoms& a, const device::DeviceNeighborList& nl,
               const device::dvec<int>* some, bool mixed, const PassOptions& opt) const override {
    if (pass == 1) return pair_->compute(0, a, nl, some, mixed, opt);
    // On the pipeline's stream, after the work queued before this pass.
    for (auto* v : {&a.x, &a.y, &a.z}) thrust::fill(device::policy(compute_stream()), v->begin() + a.nlocal, v->end(), 1e6);
  }

 private:
  std::unique_ptr<device::DeviceForce> pair_;
};

device::DeviceForces pair_then_spoilt(const Simulation& sim) {
  device::DeviceForces f = device_forces_of(sim);
  f.push_back(std::make_unique<SpoilThenPair>(std::move(device_forces_of(sim).front())));
  return f;
}

AtomStore download(const device::DeviceForcePipeline& p) {
  AtomStore a;
  p.download(a);
  return a;
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
    const device::DeviceSums sums = t.dev.sums();
    const AtomStore& c = t.cpu.atoms;
    fmt::print(
        "device_omp {}: {} atoms, {} ghosts, after a build: max relative force error {:.3g}, pe {:.3g}, "
        "virial {:.3g}\n",
        name, d.nlocal, d.nghost, err, rel_diff(sums.pe, cpu_sum(c, c.pe)),
        rel_diff(sums.virial, cpu_sum(c, c.virial)));
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

TEST_CASE("the device pipeline refuses inputs it cannot use", "[device]") {
  // Two types need a 3 x 3 table (row and column 0 unused).
  CHECK_THROWS_AS(device::check_pair_table(2, 4), std::invalid_argument);
  CHECK_THROWS_AS(device::check_pair_table(0, 1), std::invalid_argument);
  CHECK_NOTHROW(device::check_pair_table(2, 9));
  // An AtomStore whose arrays are shorter than its counts say.
  AtomStore a;
  a.resize_local(10);
  a.mass_of_type = {0.0, 1.0};
  device::DeviceAtoms d;
  CHECK_NOTHROW(device::upload_atoms(compute_stream(), a, d));
  a.vz.resize(9);
  CHECK_THROWS_WITH(device::upload_atoms(compute_stream(), a, d), Catch::Contains("AtomStore::vz"));
}

namespace {

// The melt's device forces with TESSERA_PAIR_LANES set to `lanes` ("" for
// the rule) while the pipeline is made (DevicePairForce reads it then).
AtomStore forces_with_lanes(const char* lanes) {
  setenv("TESSERA_PAIR_LANES", lanes, 1);
  Twin<LJCut> t(melt_deck("lj", kLJPotential));
  unsetenv("TESSERA_PAIR_LANES");
  t.rebuild();
  t.dev.compute_forces();
  return t.device_atoms();
}

}  // namespace

TEST_CASE("Rows split over several threads an atom give the one-thread sums, to rounding", "[device][lanes]") {
  // The melt's 4,000 atoms take 8 lanes by the rule (device_pair_lanes).
  CHECK(device_pair_lanes(4000) == 8);
  CHECK(device_pair_lanes(1L << 17) == 2);
  CHECK(device_pair_lanes(1L << 18) == 1);
  const AtomStore one = forces_with_lanes("1");
  for (const char* lanes : {"", "2", "8", "32"}) {
    INFO("TESSERA_PAIR_LANES=" << lanes);
    const AtomStore split = forces_with_lanes(lanes);
    CHECK(max_force_error(split, one) <= 1e-13);
    CHECK(!same_sums(split, one));  // the sums ran in another order: the lanes did run
  }
  CHECK(same_sums(forces_with_lanes(""), forces_with_lanes("8")));
  setenv("TESSERA_PAIR_LANES", "3", 1);
  CHECK_THROWS_AS(Twin<LJCut>(melt_deck("lj", kLJPotential)), std::invalid_argument);
  unsetenv("TESSERA_PAIR_LANES");
}

namespace {

// The melt's device forces, double or mixed, with TESSERA_PAIR_GROUP and
// TESSERA_PAIR_LANES set ("" for unset) while the pipeline is made.
AtomStore forces_with_group(const char* group, const char* lanes, bool mixed) {
  setenv("TESSERA_PAIR_GROUP", group, 1);
  setenv("TESSERA_PAIR_LANES", lanes, 1);
  Twin<LJCut> t(melt_deck("lj", kLJPotential));
  t.rebuild();
  device::DeviceForcePipeline p(t.sim.sub_domain(), t.sim.reach(), device_forces_of(t.sim), {true, 64, mixed},
                                compute_stream(), halo_stream());
  unsetenv("TESSERA_PAIR_GROUP");
  unsetenv("TESSERA_PAIR_LANES");
  p.upload(t.cpu.atoms);
  p.rebuild();
  p.compute_forces();
  AtomStore out;
  p.download(out);
  return out;
}

}  // namespace

TEST_CASE("Neighbours read a group at a time give the bits of one at a time", "[device][lanes]") {
  // The default reads 4 at a time (detail::kPairGroup); the melt's rows
  // (about 75 neighbours) take whole groups and a remainder, with 1 lane and
  // with 8 (every 8th neighbour a lane).
  CHECK(device::detail::kPairGroup == 4);
  for (const bool mixed : {false, true})
    for (const char* lanes : {"1", "8"}) {
      INFO((mixed ? "mixed" : "double") << ", TESSERA_PAIR_LANES=" << lanes);
      const AtomStore one = forces_with_group("1", lanes, mixed), grouped = forces_with_group("", lanes, mixed);
      CHECK(same_sums(grouped, one));
      CHECK(max_force_error(grouped, one) == 0.0);
      // The forces are there: a pipeline that computed nothing would pass too.
      double f2 = 0;
      for (std::size_t i = 0; i < one.nlocal; ++i) f2 += one.fx[i] * one.fx[i];
      CHECK(f2 > 1.0);
    }
  setenv("TESSERA_PAIR_GROUP", "3", 1);
  CHECK_THROWS_AS(Twin<LJCut>(melt_deck("lj", kLJPotential)), std::invalid_argument);
  unsetenv("TESSERA_PAIR_GROUP");
}

TEST_CASE("device lists and forces do not depend on the thread count", "[device]") {
  // One thread per atom and no atomics: on a GPU, as on OpenMP threads here,
  // the list and each atom's force are functions of the positions alone.
  auto run_with = [](int threads) {
    const int before = omp_get_max_threads();
    omp_set_num_threads(threads);
    Twin<LJCut> t(melt_deck("mix", kMixPotential));
    t.rebuild();
    t.dev.compute_forces();
    omp_set_num_threads(before);
    return std::make_pair(t.device_atoms(), host_list(t.dev.list()));
  };
  const auto [one, list_one] = run_with(1);
  const auto [three, list_three] = run_with(3);
  // Only the used entries: what lies past a row's count is never read.
  auto used = [](const HostList& h) {
    std::vector<int> v;
    for (std::size_t i = 0; i < h.count.size(); ++i)
      v.insert(v.end(), h.index.begin() + i * h.stride, h.index.begin() + i * h.stride + h.count[i]);
    return v;
  };
  CHECK(list_one.count == list_three.count);
  CHECK(used(list_one) == used(list_three));
  CHECK(one.fx == three.fx);
  CHECK(one.fy == three.fy);
  CHECK(one.fz == three.fz);
  CHECK(one.pe == three.pe);
  CHECK(one.virial == three.virial);
}

TEST_CASE("The device force list accumulates, and forwards between a force's passes", "[device][forces]") {
  for (const char* layout : {"rows", "clusters"}) {
    INFO(layout);
    const Simulation sim(deck_from(melt_deck("mix", kMixPotential, layout)));
    const device::DeviceForcePipeline::Options opt{true, 64, false, std::string(layout) == "clusters"};
    device::DeviceForcePipeline one(sim.sub_domain(), sim.reach(), device_forces_of(sim), opt, compute_stream(),
                                    halo_stream());
    device::DeviceForcePipeline two(sim.sub_domain(), sim.reach(), pair_then_spoilt(sim), opt, compute_stream(),
                                    halo_stream());
    for (auto* p : {&one, &two}) {
      p->upload(sim.atoms());
      p->rebuild();
      p->compute_forces();
    }
    const AtomStore a = download(one);
    AtomStore b = download(two);
    auto doubled = [&](const AtomStore& b) {
      for (std::size_t i = 0; i < a.nlocal; ++i) {
        // The spoilt ghosts were put back before the second pair pass, which
        // added exactly the first's sums: 2f, bit for bit.
        REQUIRE(b.fx[i] == 2 * a.fx[i]);
        REQUIRE(b.fz[i] == 2 * a.fz[i]);
        REQUIRE(b.pe[i] == 2 * a.pe[i]);
        REQUIRE(b.virial[i] == 2 * a.virial[i]);
      }
    };
    doubled(b);
    CHECK(b.x == a.x);  // the ghosts restored
    // The overlapped step runs a list with a multi-pass force unsplit, and
    // the same sums come out.
    two.refresh_ghosts_and_compute();
    one.refresh_ghosts_and_compute();
    doubled(download(two));
  }
}

TEST_CASE("A quantity no image shifts reaches each ghost from its source, as on the CPU", "[device][forces][fields]") {
  Twin<LJCut> t(melt_deck("lj", kLJPotential, "rows"));
  t.rebuild();
  device::DeviceAtoms& d = t.dev.atoms();
  // y as if it were such a quantity: each ghost takes its source's y, unshifted.
  t.dev.ghosts().forward(d, {device::raw(d.y)}, false, t.sim.box(), t.dev.stream());
  t.cpu.ghosts.forward(t.cpu.atoms, {t.cpu.atoms.y.data()}, false, t.sim.box());
  const AtomStore dev = t.device_atoms();
  REQUIRE(dev.nghost == t.cpu.atoms.nghost);
  CHECK(dev.y == t.cpu.atoms.y);
  // And positions, spoilt, come back shifted as the refresh makes them.
  thrust::fill(device::policy(t.dev.stream()), d.z.begin() + d.nlocal, d.z.end(), -5.0);
  t.dev.ghosts().forward(d, "position", t.sim.box(), t.dev.stream());
  t.cpu.refresh_ghosts();
  CHECK(t.device_atoms().z == t.cpu.atoms.z);
}
