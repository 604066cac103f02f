// Device memory per atom, measured by the device arrays' allocator over a
// whole run of the 32,000-atom LJ melt in mixed precision: the cluster list
// keeps it within issue 7's 250 bytes per atom, and `tessera plan`'s
// estimate (src/plan/plan.cpp) is within 15 % of the measurement for both
// neighbour layouts; and the same estimate for a polymer melt, whose
// molecular fields the plan must count.
#include <catch2/catch.hpp>
#include <cmath>

#include "device_twin.hpp"
#include "domain/rank_grid.hpp"
#include "neighbor/row_stride.hpp"
#include "plan/plan.hpp"

using namespace tessera;
using namespace tessera::test;

namespace {

std::string melt_32k(const std::string& layout) {
  return R"(
system: {lattice: {style: fcc, density: 0.8442, cells: [20, 20, 20]}, masses: [1.0]}
velocity: {temperature: 1.44, seed: 87287}
potential:
  style: lj/cut
  cutoff: 2.5
  coeffs:
    - {types: [1, 1], epsilon: 1.0, sigma: 1.0}
neighbor: {skin: 0.3, layout: )" +
         layout + R"(}
precision: mixed
integrator: {style: nve, dt: 0.005}
run: {steps: 40}
)";
}

// A Kremer-Grest melt of 10,000 beads: the molecular fields (topology
// slots, 272 bytes per atom) are most of its device memory.
std::string kg_melt(const std::string& layout) {
  return R"(
system: {polymer_melt: {chains: 200, beads: 50, density: 0.85, bond_length: 0.97, seed: 2024}}
velocity: {temperature: 1.0, seed: 77}
potential:
  style: lj/cut
  cutoff: 1.122462048309373
  shift: true
  coeffs:
    - {types: [1, 1], epsilon: 1.0, sigma: 1.0}
bonds: {style: fene, coeffs: [{type: 1, K: 30.0, R0: 1.5, epsilon: 1.0, sigma: 1.0}]}
special_bonds: fene
neighbor: {skin: 0.4, layout: )" +
         layout + R"(}
integrator: {style: nve, dt: 0.005}
run: {steps: 40}
)";
}

// LAMMPS's bench in.eam system, smaller: copper at 1600 K, Cu_u3.eam (rows,
// the device's one layout for many-body forces).
std::string cu_block(const std::string&) {
  return R"(
units: metal
system:
  lattice: {style: fcc, constant: 3.615, cells: [14, 14, 14]}
velocity: {temperature: 1600, seed: 376847}
potential: {style: eam, file: /usr/share/lammps/potentials/Cu_u3.eam}
neighbor: {skin: 1.0, every: 1, delay: 5, check: true}
integrator: {style: nve, dt: 0.005}
run: {steps: 40}
)";
}

struct Measured {
  double per_atom;  // most device bytes over the run, per atom
  double planned;   // the plan's estimate, per atom
};

Measured measure(const std::string& layout, const std::string& deck) {
  // The test streams outlive the runs of this process: their stage scratch
  // is still the last run's. A run's own streams start without one.
  for (const device::DeviceStream* s : {&compute_stream(), &halo_stream()}) device::release(*s, *s->stage);
  device::device_memory().reset_peak();
  auto sim = device_simulation(deck);
  // The plan's inputs, as `tessera plan --gpus 1` takes them.
  const Box& box = sim->box();
  const auto counts = count_per_rank(sim->atoms(), box, choose_rank_grid(1, box, sim->reach()), sim->reach());
  const double neighbours = mean_neighbours(static_cast<double>(sim->natoms()), box.volume(), sim->reach());
  const double planned = estimated_device_bytes(layout, counts[0].local, counts[0].ghost, neighbours).total;
  sim->setup();
  sim->run(40, nullptr);
  REQUIRE(sim->neighbor_builds() >= 2);
  const double n = static_cast<double>(sim->natoms());
  return {static_cast<double>(sim->device_bytes_peak()) / n, planned / n};
}

}  // namespace

TEST_CASE("The 32,000-atom melt in mixed precision: clusters within 250 bytes per atom, and the plan's estimate "
          "within 15 %",
          "[device][clusters][plan]") {
  const Measured clusters = measure("clusters", melt_32k("clusters"));
  const Measured rows = measure("rows", melt_32k("rows"));
  fmt::print("device bytes per atom, 32,000-atom melt, mixed: clusters {:.0f} (plan {:.0f}), rows {:.0f} (plan {:.0f})\n",
             clusters.per_atom, clusters.planned, rows.per_atom, rows.planned);
  CHECK(clusters.per_atom <= 250);
  CHECK(clusters.per_atom < 0.5 * rows.per_atom);
  CHECK(std::abs(clusters.planned / clusters.per_atom - 1) <= 0.15);
  CHECK(std::abs(rows.planned / rows.per_atom - 1) <= 0.15);
}

TEST_CASE("EAM copper: the plan's estimate counts the many-body force's arrays, within 15 %", "[device][plan][eam]") {
  const Measured rows = measure("rows", cu_block("rows"));
  fmt::print("device bytes per atom, 10,976-atom EAM copper: rows {:.0f} (plan {:.0f})\n", rows.per_atom, rows.planned);
  CHECK(std::abs(rows.planned / rows.per_atom - 1) <= 0.15);
  // The arrays it counts for the force (small beside the list, so not
  // seen in the 15 % above): F' of every atom and ghost, F of the locals.
  // For a rank of 2^20 atoms, where a pair style's rows take one thread an
  // atom and no lanes' scratch either.
  bool& on = manybody_fields_switch();
  const bool was = on;
  on = false;
  const DeviceBytes pair_only = estimated_device_bytes("rows", 1 << 20, 1, 75);
  on = true;
  const DeviceBytes manybody = estimated_device_bytes("rows", 1 << 20, 1, 75);
  on = was;
  CHECK(manybody.per_local - pair_only.per_local == 16);
  CHECK(manybody.per_ghost - pair_only.per_ghost == 8);
}

TEST_CASE("A Kremer-Grest melt: the plan's estimate counts the molecular fields, within 15 %", "[device][plan][molecular]") {
  const Measured rows = measure("rows", kg_melt("rows"));
  fmt::print("device bytes per atom, 10,000-bead KG melt: rows {:.0f} (plan {:.0f})\n", rows.per_atom, rows.planned);
  CHECK(std::abs(rows.planned / rows.per_atom - 1) <= 0.15);
}
