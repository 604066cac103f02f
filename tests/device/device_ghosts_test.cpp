// Device periodic ghosts and wrap (kernels/device/device_ghosts.hpp) and the
// spatial sort against the CPU's PeriodicGhosts and sort_atoms_spatially:
// the same local order, the same ghosts slot by slot, and ghosts that follow
// their sources between rebuilds.
#include <catch2/catch.hpp>

#include "device_compare.hpp"
#include "device_twin.hpp"

using namespace tessera;
using namespace tessera::test;

namespace {

// Same atoms in the same slots, positions to the bit (the operations are the
// CPU's, one rounding each).
void check_same_slots(const AtomStore& d, const AtomStore& c) {
  REQUIRE(d.nlocal == c.nlocal);
  REQUIRE(d.nghost == c.nghost);
  CHECK(d.id == c.id);
  CHECK(d.type == c.type);
  CHECK(d.x == c.x);
  CHECK(d.y == c.y);
  CHECK(d.z == c.z);
}

}  // namespace

TEST_CASE("device ghosts and sort order are the CPU's, slot by slot", "[device]") {
  for_each_case([](auto& t, const char*) {
    t.rebuild();
    const AtomStore d = t.device_atoms();
    const AtomStore& c = t.cpu.atoms;
    check_same_slots(d, c);
    CHECK(d.nghost > d.nlocal / 2);  // a real halo on every face
    CHECK(ghost_images(d, t.cpu.sd.global) == ghost_images(c, t.cpu.sd.global));
  });
}

TEST_CASE("device ghosts follow their sources, and wrap keeps image flags", "[device]") {
  for_each_case([](auto& t, const char*) {
    t.rebuild();
    t.drift(0.02);
    t.refresh_ghosts();
    check_same_slots(t.device_atoms(), t.cpu.atoms);
    // Far enough for some atoms to leave the box: wrap, sort, new ghosts.
    t.drift(0.3);
    t.rebuild();
    const AtomStore d = t.device_atoms();
    const AtomStore& c = t.cpu.atoms;
    check_same_slots(d, c);
    CHECK(d.ix == c.ix);
    CHECK(d.iy == c.iy);
    CHECK(d.iz == c.iz);
    const Box& box = t.cpu.sd.global;
    const AtomStore& start = t.sim.atoms();  // as read from the data file
    const auto slot = local_slots(start);
    int wrapped = 0, outside = 0;
    for (std::size_t i = 0; i < d.nlocal; ++i) {
      const std::size_t s = slot.at(d.id[i]);
      wrapped += d.ix[i] != start.ix[s] || d.iy[i] != start.iy[s] || d.iz[i] != start.iz[s];
      const double p[3] = {d.x[i], d.y[i], d.z[i]};
      for (int e = 0; e < 3; ++e) outside += !(p[e] >= box.lo[e] && p[e] < box.hi[e]);
    }
    CHECK(outside == 0);
    CHECK(wrapped > 0);
  });
}
