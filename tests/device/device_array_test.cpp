// The pipeline's device arrays (kernels/device/device_array.hpp): no
// value-initialisation, capacity kept and grown geometrically, storage given
// back only when asked; the stage scratch the rebuild's stages share; and a
// settled run whose rebuilds allocate nothing, neither in the arrays nor in
// Thrust's scratch cache (issue 25, "fast by design").
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <thrust/copy.h>
#include <thrust/sequence.h>
#include <vector>

#include "device_twin.hpp"

using namespace tessera;
using namespace tessera::test;

namespace {

std::vector<int> array_on_host(const device::dvec<int>& d) {
  std::vector<int> h(d.size());
  thrust::copy(d.begin(), d.end(), h.begin());
  return h;
}

// A melt with a rebuild every few steps, in the layout given.
std::string settling_melt(const std::string& layout, const std::string& precision) {
  return R"(
system: {lattice: {style: fcc, density: 0.8442, cells: [8, 8, 8]}, masses: [1.0]}
velocity: {temperature: 3.0, seed: 4711}
potential:
  style: lj/cut
  cutoff: 2.5
  coeffs:
    - {types: [1, 1], epsilon: 1.0, sigma: 1.0}
neighbor: {skin: 0.2, layout: )" +
         layout + R"(}
precision: )" + precision + R"(
integrator: {style: nve, dt: 0.005}
run: {steps: 10}
)";
}

// A bead-spring melt: the molecular fields and the bonded force's arrays too.
std::string settling_polymer() {
  return R"(
system: {polymer_melt: {chains: 40, beads: 25, density: 0.85, bond_length: 0.97, seed: 99}}
velocity: {temperature: 1.0, seed: 5}
potential:
  style: lj/cut
  cutoff: 1.122462048309373
  shift: true
  coeffs:
    - {types: [1, 1], epsilon: 1.0, sigma: 1.0}
bonds: {style: fene, coeffs: [{type: 1, K: 30.0, R0: 1.5, epsilon: 1.0, sigma: 1.0}]}
special_bonds: fene
neighbor: {skin: 0.2}
integrator: {style: langevin, dt: 0.005, temperature: 1.0, damping: 1.0, seed: 3}
run: {steps: 10}
)";
}

struct Allocations {
  long long arrays;
  long scratch;
};
Allocations allocations_now() {
  return {device::device_memory().allocations.load(),
          compute_stream().scratch->allocations() + halo_stream().scratch->allocations()};
}

}  // namespace

TEST_CASE("A device array grows only past its capacity, keeps what it held, and initialises nothing",
          "[device][memory]") {
  const long long before = device::device_memory().allocations.load();
  device::dvec<int> v(100);
  CHECK(v.size() == 100);
  CHECK(v.capacity() == 100);  // the first storage is exactly what was asked
  thrust::sequence(v.begin(), v.end());
  v.resize(40);
  CHECK(v.capacity() == 100);
  v.resize(100);  // inside the capacity: no allocation, the first 40 kept
  CHECK(device::device_memory().allocations.load() == before + 1);
  std::vector<int> h = array_on_host(v);
  for (int i = 0; i < 40; ++i) CHECK(h[i] == i);
  // The 60 elements the resize added were not initialised: on Thrust's
  // OpenMP system they carry the poison (all bits set), which is how the
  // suite catches a reader that relied on zeros.
#if THRUST_DEVICE_SYSTEM != THRUST_DEVICE_SYSTEM_CUDA
  for (int i = 40; i < 100; ++i) CHECK(h[i] == -1);
#endif
  v.resize(101);  // creeping past it: grows with a sixteenth to spare, contents kept
  CHECK(v.capacity() == 101 + 101 / 16);
  CHECK(device::device_memory().allocations.load() == before + 2);
  h = array_on_host(v);
  for (int i = 0; i < 40; ++i) CHECK(h[i] == i);
  const std::size_t cap = v.capacity();
  v.resize(cap);
  CHECK(device::device_memory().allocations.load() == before + 2);
  v.release();
  CHECK(v.capacity() == 0);
  CHECK(v.size() == 0);

#if THRUST_DEVICE_SYSTEM != THRUST_DEVICE_SYSTEM_CUDA
  device::dvec<double> d;
  d.resize(3);
  CHECK(std::isnan(static_cast<double>(d[2])));
#endif
}

TEST_CASE("resize_for_overwrite grows without copying, and the stage scratch is shared by every take on a stream",
          "[device][memory]") {
  const device::DeviceStream& s = compute_stream();
  device::dvec<int> v;
  device::resize_for_overwrite(s, v, 10);
  const long long held = device::device_memory().now.load();
  device::resize_for_overwrite(s, v, 1000);  // old storage given back before the new is taken
  CHECK(device::device_memory().now.load() == held - 10 * 4 + 1000 * 4);  // a jump: exactly what was asked

  const auto a = device::stage_scratch<std::uint64_t>(s, 100);
  const auto b = device::stage_scratch<int>(s, 150);  // fits in the same storage
  CHECK(static_cast<const void*>(thrust::raw_pointer_cast(a)) == static_cast<const void*>(thrust::raw_pointer_cast(b)));
  CHECK(s.stage->capacity() >= 100);
  const std::size_t words = s.stage->capacity();
  (void)device::stage_scratch<int>(s, 2 * words + 2);  // more than it holds: grows
  CHECK(s.stage->capacity() > words);
}

TEST_CASE("A settled run allocates nothing at its rebuilds: rows, clusters, mixed precision, molecules",
          "[device][memory][simulation]") {
  struct Case {
    const char* name;
    std::string deck;
  };
  const Case cases[] = {{"rows, double", settling_melt("rows", "double")},
                        {"clusters, mixed", settling_melt("clusters", "mixed")},
                        {"bead-spring melt", settling_polymer()}};
  for (const Case& c : cases) {
    INFO(c.name);
    auto sim = device_simulation(c.deck);
    sim->setup();
    sim->run(150, nullptr);  // the capacities settle over the first rebuilds
    const long builds = sim->neighbor_builds();
    const Allocations settled = allocations_now();
    sim->run(150, nullptr);
    const long rebuilds = sim->neighbor_builds() - builds;
    fmt::print("{}: {} rebuilds after settling; allocations: arrays +{}, Thrust scratch +{}\n", c.name, rebuilds,
               device::device_memory().allocations.load() - settled.arrays,
               allocations_now().scratch - settled.scratch);
    REQUIRE(rebuilds >= 5);
    CHECK(device::device_memory().allocations.load() == settled.arrays);
    CHECK(allocations_now().scratch == settled.scratch);
  }
}
