// The force list (forces/force_list.hpp): members accumulate, a force's
// passes run in order with its declared quantities forwarded to the ghosts
// between them, and a force that forwards something the field registry
// cannot carry is refused.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "domain/periodic_ghosts.hpp"
#include "forces/force_list.hpp"
#include "neighbor/verlet_builder.hpp"
#include "potentials/pair_style.hpp"
#include "run/simulation.hpp"
#include "test_support.hpp"

using namespace tessera;
using namespace tessera::test;

namespace {

// Wraps a pair style in two passes: the first spoils every ghost's
// position, the second is the pair style. Correct only if the list
// forwards positions in between; `declared` says whether it asks.
class SpoilThenPair final : public Force {
 public:
  SpoilThenPair(const PairStyle& pair, bool declared) : pair_(pair), declared_(declared) {}
  const char* name() const override { return "spoil-then-pair"; }
  double max_cutoff() const override { return pair_.max_cutoff(); }
  int passes() const override { return 2; }
  std::vector<std::string> forwarded_after(int pass) const override {
    return pass == 0 && declared_ ? std::vector<std::string>{"position"} : std::vector<std::string>{};
  }
  void compute_pass(int pass, AtomStore& a, const NeighborList& nl, const PassOptions& opt) const override {
    ++calls;
    if (pass == 0) {
      for (std::size_t g = a.nlocal; g < a.nall(); ++g) a.x[g] = a.y[g] = a.z[g] = 1e6;
      return;
    }
    pair_.compute_pass(0, a, nl, opt);
  }
  mutable int calls = 0;

 private:
  const PairStyle& pair_;
  bool declared_;
};

// Forwards a quantity the registry does not have, or one not stored for
// ghosts.
class ForwardsNonsense final : public Force {
 public:
  explicit ForwardsNonsense(std::string q) : q_(std::move(q)) {}
  const char* name() const override { return "nonsense"; }
  double max_cutoff() const override { return 1; }
  int passes() const override { return 2; }
  std::vector<std::string> forwarded_after(int) const override { return {q_}; }
  void compute_pass(int, AtomStore&, const NeighborList&, const PassOptions&) const override {}

 private:
  std::string q_;
};

// A wrapper owning nothing: the list takes a Force by unique_ptr.
class Borrowed final : public Force {
 public:
  explicit Borrowed(const Force& f) : f_(f) {}
  const char* name() const override { return f_.name(); }
  double max_cutoff() const override { return f_.max_cutoff(); }
  int passes() const override { return f_.passes(); }
  std::vector<std::string> forwarded_after(int p) const override { return f_.forwarded_after(p); }
  void compute_pass(int p, AtomStore& a, const NeighborList& nl, const PassOptions& opt) const override {
    f_.compute_pass(p, a, nl, opt);
  }

 private:
  const Force& f_;
};

struct Melt {
  explicit Melt(int cells) : sim(deck_from(lj_lattice_yaml(cells, 1.5, 10, "{style: nve, dt: 0.005}"))) {
    sim.run(10, nullptr);  // a disordered liquid: no symmetric cancellations
    a = sim.atoms();
    sd = sim.sub_domain();
    PeriodicGhosts::wrap(a, sd.global);
    ghosts.build(a, sd, sim.reach());
    builder.build(a, sd, sim.reach(), list);
  }
  // Forwards on `to` (a copy of `a`, same ghosts) and records what.
  ForceList::Forward forward(AtomStore& to) {
    return [this, &to](const std::string& q) {
      forwarded.push_back(q);
      ghosts.forward(to, forwardable_arrays(to, q.c_str(), [](std::vector<double>& v) { return v.data(); }),
                     moves_with_image(q.c_str()), sd.global);
    };
  }
  Simulation sim;
  AtomStore a;
  SubDomain sd;
  PeriodicGhosts ghosts;
  VerletBuilder builder;
  NeighborList list;
  std::vector<std::string> forwarded;
};

}  // namespace

TEST_CASE("Forces of a list accumulate: the first stores, the later ones add", "[forces]") {
  Melt m(4);
  AtomStore once = m.a;
  m.sim.pair().compute(once, m.list);
  AtomStore twice = m.a;
  // Stale values in the arrays must not leak into the sums.
  std::fill(twice.fx.begin(), twice.fx.end(), 123.0);
  std::fill(twice.pe.begin(), twice.pe.end(), -7.0);
  ForceList list;
  list.add(std::make_unique<Borrowed>(m.sim.pair()));
  list.add(std::make_unique<Borrowed>(m.sim.pair()));
  CHECK(list.size() == 2);
  CHECK(list.max_cutoff() == m.sim.pair().max_cutoff());
  list.compute(twice, m.list, m.forward(twice));
  CHECK(m.forwarded.empty());
  for (std::size_t i = 0; i < once.nlocal; ++i) {
    // f + f is exactly 2f: the second member added to what the first stored.
    REQUIRE(twice.fx[i] == 2 * once.fx[i]);
    REQUIRE(twice.fy[i] == 2 * once.fy[i]);
    REQUIRE(twice.fz[i] == 2 * once.fz[i]);
    REQUIRE(twice.pe[i] == 2 * once.pe[i]);
    REQUIRE(twice.virial[i] == 2 * once.virial[i]);
  }
}

TEST_CASE("A force's passes run in order, with what it declares forwarded to the ghosts in between", "[forces]") {
  Melt m(4);
  AtomStore want = m.a;
  m.sim.pair().compute(want, m.list);

  SECTION("declared: the ghosts are restored before the force pass, and the forces are the pair style's") {
    ForceList list;
    auto f = std::make_unique<SpoilThenPair>(m.sim.pair(), true);
    const SpoilThenPair& force = *f;
    list.add(std::move(f));
    AtomStore a = m.a;
    list.compute(a, m.list, m.forward(a));
    CHECK(force.calls == 2);
    CHECK(m.forwarded == std::vector<std::string>{"position"});
    for (std::size_t i = 0; i < a.nlocal; ++i) {
      REQUIRE(a.fx[i] == want.fx[i]);
      REQUIRE(a.pe[i] == want.pe[i]);
    }
  }
  SECTION("not declared: nothing is forwarded, and the spoilt ghosts show in the forces") {
    ForceList list;
    list.add(std::make_unique<SpoilThenPair>(m.sim.pair(), false));
    AtomStore a = m.a;
    list.compute(a, m.list, m.forward(a));
    CHECK(m.forwarded.empty());
    std::size_t differ = 0;
    for (std::size_t i = 0; i < a.nlocal; ++i) differ += a.fx[i] != want.fx[i];
    CHECK(differ > 0);
  }
}

TEST_CASE("Any ghost-stored quantity forwards on one rank: positions shifted by their image, others copied",
          "[forces][fields]") {
  Melt m(4);
  AtomStore& a = m.a;
  REQUIRE(a.nghost > 0);
  const AtomStore fresh = a;
  for (std::size_t g = a.nlocal; g < a.nall(); ++g) a.x[g] = a.y[g] = a.z[g] = -1;
  m.forward(a)("position");
  for (std::size_t g = a.nlocal; g < a.nall(); ++g) {
    REQUIRE(a.x[g] == fresh.x[g]);
    REQUIRE(a.z[g] == fresh.z[g]);
  }
  // As a quantity no image shifts, x arrives as its source's value: every
  // ghost's x is some local's x, unshifted.
  m.ghosts.forward(a, {a.x.data()}, false, m.sd.global);
  std::vector<double> local_x(a.x.begin(), a.x.begin() + static_cast<long>(a.nlocal));
  std::sort(local_x.begin(), local_x.end());
  std::size_t shifted_before = 0;
  for (std::size_t g = a.nlocal; g < a.nall(); ++g) {
    REQUIRE(std::binary_search(local_x.begin(), local_x.end(), a.x[g]));
    shifted_before += !std::binary_search(local_x.begin(), local_x.end(), fresh.x[g]);
  }
  CHECK(shifted_before > 0);  // the images across x did differ from their sources
}

TEST_CASE("A force that forwards what the halo cannot carry is refused when listed", "[forces]") {
  ForceList list;
  CHECK_THROWS_WITH(list.add(std::make_unique<ForwardsNonsense>("charge")),
                    Catch::Contains("\"charge\"") && Catch::Contains("nonsense"));
  // Velocities are per-atom, but not stored for ghosts.
  CHECK_THROWS_WITH(list.add(std::make_unique<ForwardsNonsense>("velocity")), Catch::Contains("ghost-stored"));
  CHECK_NOTHROW(list.add(std::make_unique<ForwardsNonsense>("position")));
  CHECK(list.size() == 1);
}
