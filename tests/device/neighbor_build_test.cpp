// Device Verlet lists (kernels/device/neighbor_build.hpp) against the CPU
// builder: the same neighbours for every atom (as images: id and periodic
// shift), a stride that grows when a row does not fit, and the same
// displacement test for rebuilds.
#include <catch2/catch.hpp>

#include "device_compare.hpp"
#include "device_twin.hpp"
#include "neighbor/row_stride.hpp"

using namespace tessera;
using namespace tessera::test;

namespace {

// Both lists hold the same images for every atom; returns the pairs checked.
template <class Pot>
std::size_t check_same_lists(const Twin<Pot>& t) {
  const AtomStore d = t.device_atoms();
  const Box& box = t.cpu.sd.global;
  const auto dev = neighbor_sets(d, box, host_list(t.dev.list()));
  const auto cpu = neighbor_sets(t.cpu.atoms, box, host_list(t.cpu.list));
  REQUIRE(dev.size() == cpu.size());
  std::size_t pairs = 0, differ = 0;
  for (const auto& [id, row] : cpu) {
    if (dev.at(id) != row) ++differ;
    pairs += row.size();
  }
  CHECK(differ == 0);
  return pairs;
}

}  // namespace

TEST_CASE("device neighbour lists hold the CPU's neighbours", "[device]") {
  for_each_case([](auto& t, const char*) {
    t.rebuild();
    const std::size_t pairs = check_same_lists(t);
    CHECK(pairs > 40 * t.cpu.atoms.nlocal);  // dense enough that a missed cell would show
    // Room from the density is enough for a melt; a random gas's rows vary as
    // Poisson's and may outgrow it, once.
    CHECK(t.dev.list().grows <= 1);
    // Room from the density (neighbor/row_stride.hpp): the longest row and
    // a little more, not a fixed 64 (a WCA melt's rows hold ~13).
    const auto& nl = t.dev.list();
    CHECK(nl.widest > 40);
    CHECK(nl.stride >= nl.widest);
    CHECK(nl.stride <= tessera::next_row_stride(nl.widest + nl.widest / 4));
    const int first_stride = nl.stride;
    t.drift(0.1);
    t.rebuild();
    check_same_lists(t);
    CHECK(nl.builds == 2);
    CHECK(nl.stride == first_stride);  // room enough: kept
  });
}

TEST_CASE("a neighbour row longer than the stride grows the list, which is then right", "[device]") {
  for_each_case(
      [](auto& t, const char*) {
        t.rebuild();
        const auto& nl = t.dev.list();
        CHECK(nl.grows == 1);
        const HostList h = host_list(nl);
        const int longest = *std::max_element(h.count.begin(), h.count.end());
        CHECK(longest > 4);
        CHECK(nl.stride >= longest);
        CHECK(h.index.size() == static_cast<std::size_t>(nl.stride) * h.count.size());
        check_same_lists(t);
        // The grown stride has room: a rebuild after a small move keeps it.
        t.drift(0.02);
        t.rebuild();
        CHECK(nl.grows == 1);
        check_same_lists(t);
      },
      4);
}

TEST_CASE("the device displacement reduction is the CPU's max_displacement_sq", "[device]") {
  for_each_case([](auto& t, const char*) {
    t.rebuild();
    CHECK(t.dev.max_displacement_sq() == 0.0);
    t.drift(0.03);
    const double cpu = max_displacement_sq(t.cpu.atoms, t.cpu.list);
    CHECK(cpu > 0.0);
    CHECK(t.dev.max_displacement_sq() == cpu);  // a maximum of the same bits: exact
  });
}
