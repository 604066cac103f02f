// The cluster neighbour list (kernels/device/cluster_list.hpp, deck
// `neighbor.layout: clusters`) against the CPU: every pair within reach is in
// it, forces agree to 1e-12 through refreshes and rebuilds, the result does
// not depend on the thread count. Its memory: plan_memory_test.cpp.
#include <omp.h>

#include <catch2/catch.hpp>

#include "device/cluster_list.hpp"
#include "device_compare.hpp"
#include "device_twin.hpp"

using namespace tessera;
using namespace tessera::test;

namespace {

// The cluster list's pairs within reach, as per-atom image sets.
template <class Pot>
std::map<AtomId, std::vector<Image>> cluster_sets(const Twin<Pot>& t) {
  NeighborList rows;
  device::download_rows(t.dev.stream(), t.dev.list().clusters, t.dev.atoms(), t.dev.reach(), rows);
  return neighbor_sets(t.device_atoms(), t.cpu.sd.global, host_list(rows));
}

template <class Pot>
double force_error(Twin<Pot>& t) {
  t.compute_forces();
  const AtomStore d = t.device_atoms();
  const AtomStore& c = t.cpu.atoms;
  double pe = 0, w = 0;
  for (std::size_t i = 0; i < c.nlocal; ++i) {
    pe += c.pe[i];
    w += c.virial[i];
  }
  const device::DeviceSums s = t.dev.sums();
  CHECK(rel_diff(s.pe, pe) <= 1e-12);
  CHECK(rel_diff(s.virial, w) <= 1e-12);
  return max_force_error(d, c);
}

}  // namespace

TEST_CASE("The cluster list holds every pair within reach, and only those once filtered", "[device][clusters]") {
  for_each_case(
      [](auto& t, const char* name) {
        t.rebuild();
        REQUIRE(t.dev.list().clustered);
        const auto dev = cluster_sets(t);
        const auto cpu = neighbor_sets(t.cpu.atoms, t.cpu.sd.global, host_list(t.cpu.list));
        REQUIRE(dev.size() == cpu.size());
        std::size_t differ = 0, pairs = 0;
        for (const auto& [id, row] : cpu) {
          differ += dev.at(id) != row;
          pairs += row.size();
        }
        CHECK(differ == 0);
        CHECK(pairs > 40 * t.cpu.atoms.nlocal);
        // The list itself: cluster pairs and the atoms their masks admit.
        const device::DeviceClusterList& cl = t.dev.list().clusters;
        std::vector<int> count(cl.count.size());
        thrust::copy(cl.count.begin(), cl.count.end(), count.begin());
        long cluster_pairs = 0;
        for (int c : count) cluster_pairs += c;
        CHECK(cl.nrows >= static_cast<int>(t.cpu.atoms.nlocal) / device::kClusterSize);
        fmt::print("clusters {}: {} atoms in {} rows, {:.1f} cluster pairs per row (stride {}), {:.1f} per atom\n",
                   name, t.cpu.atoms.nlocal, cl.nrows, double(cluster_pairs) / cl.nrows, cl.stride,
                   double(cluster_pairs) / t.cpu.atoms.nlocal);
      },
      64, "clusters");
}

TEST_CASE("Forces over the cluster list are the CPU's to 1e-12, through refreshes and rebuilds",
          "[device][clusters]") {
  for_each_case(
      [](auto& t, const char* name) {
        t.rebuild();
        const double built = force_error(t);
        CHECK(built <= 1e-12);
        t.drift(0.02);
        CHECK_FALSE(t.dev.moved_too_far(0.3));
        t.refresh_ghosts();
        const double refreshed = force_error(t);
        CHECK(refreshed <= 1e-12);
        t.drift(0.1);
        CHECK(t.dev.moved_too_far(0.3));
        t.rebuild();
        const double rebuilt = force_error(t);
        CHECK(rebuilt <= 1e-12);
        fmt::print("clusters {}: max relative force error {:.3g} built, {:.3g} refreshed, {:.3g} rebuilt\n", name,
                   built, refreshed, rebuilt);
      },
      64, "clusters");
}

TEST_CASE("A cluster list that outgrows its stride grows, and is then right", "[device][clusters]") {
  Twin<LJCut> t(melt_deck("lj", kLJPotential, "clusters"), 4);
  t.rebuild();
  CHECK(t.dev.list().grows == 1);
  CHECK(t.dev.list().clusters.stride > 4);
  CHECK(force_error(t) <= 1e-12);
}

TEST_CASE("Cluster lists and their forces do not depend on the thread count", "[device][clusters]") {
  auto run_with = [](int threads) {
    const int before = omp_get_max_threads();
    omp_set_num_threads(threads);
    Twin<LJCut> t(melt_deck("mix", kMixPotential, "clusters"), 64);
    t.rebuild();
    t.dev.compute_forces();
    omp_set_num_threads(before);
    NeighborList rows;
    device::download_rows(t.dev.stream(), t.dev.list().clusters, t.dev.atoms(), t.dev.reach(), rows);
    return std::make_pair(t.device_atoms(), rows.index);
  };
  const auto [one, list_one] = run_with(1);
  const auto [three, list_three] = run_with(3);
  CHECK(list_one == list_three);
  CHECK(one.fx == three.fx);
  CHECK(one.fy == three.fy);
  CHECK(one.fz == three.fz);
  CHECK(one.pe == three.pe);
}
