// The device pipeline's force list (device_force.hpp): members accumulate,
// a force's passes run in order with what it declares forwarded to the
// ghosts in between, on the plain and the overlapped path; the ghosts'
// forward of a quantity no image shifts matches the CPU's.
#include <catch2/catch.hpp>

#include <thrust/fill.h>

#include <memory>
#include <string>
#include <vector>

#include "device/device_forces_of.hpp"
#include "device_twin.hpp"

using namespace tessera;
using namespace tessera::test;

namespace {

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
