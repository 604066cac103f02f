// The local / non-local split (force_pipeline.hpp, refresh_and_compute): the
// atoms with no ghost neighbour and the rest partition the local atoms, the
// forces come out bit for bit as without the split, and the halo clock says
// how much of the refresh ran during the inner forces (nothing, on Thrust's
// OpenMP system, where the two run one after the other). A cluster list
// splits the same way by rows.
#include <catch2/catch.hpp>
#include <set>

#include "device_compare.hpp"
#include "device_twin.hpp"

using namespace tessera;
using namespace tessera::test;

namespace {

std::vector<int> host(const device::dvec<int>& d) {
  std::vector<int> h(d.size());
  thrust::copy(d.begin(), d.end(), h.begin());
  return h;
}

// One step between rebuilds: the ghosts move on the halo stream while the
// inner forces run, then the outer forces. The ghosts land where the CPU's
// do, slot by slot, the forces are the CPU's to 1e-12, and every atom's sums
// are those of the unsplit loop on the same state, bit for bit.
template <class Twin>
void split_step_matches(Twin& t) {
  t.drift(0.02);
  t.dev.refresh_ghosts_and_compute(/*split=*/true);
  t.cpu.refresh_ghosts();
  t.cpu.compute_forces();
  const AtomStore split = t.device_atoms();
  CHECK(split.x == t.cpu.atoms.x);
  CHECK(split.y == t.cpu.atoms.y);
  CHECK(split.z == t.cpu.atoms.z);
  CHECK(max_force_error(split, t.cpu.atoms) <= 1e-12);
  t.dev.compute_forces();
  const AtomStore again = t.device_atoms();
  CHECK(same_sums(split, again));
}

}  // namespace

TEST_CASE("Inner and outer atoms partition the locals, and the split forces are the unsplit ones, bit for bit",
          "[device][overlap]") {
  for_each_case([](auto& t, const char* name) {
    t.rebuild();
    const auto& nl = t.dev.list();
    const std::vector<int> inner = host(nl.inner), outer = host(nl.outer);
    const HostList rows = host_list(nl);
    const int nlocal = t.dev.atoms().nlocal;
    std::set<int> all(inner.begin(), inner.end());
    all.insert(outer.begin(), outer.end());
    CHECK(all.size() == static_cast<std::size_t>(nlocal));
    CHECK(inner.size() + outer.size() == static_cast<std::size_t>(nlocal));
    auto has_ghost = [&](int i) {
      for (int k = 0; k < rows.count[i]; ++k)
        if (rows.index[static_cast<std::size_t>(i) * rows.stride + k] >= nlocal) return true;
      return false;
    };
    std::size_t wrong = 0;
    for (int i : inner) wrong += has_ghost(i);
    for (int i : outer) wrong += !has_ghost(i);
    CHECK(wrong == 0);

    split_step_matches(t);
    const device::HaloTimes h = t.dev.halo_times();
    CHECK(h.halo > 0);
#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
    // On a GPU the two streams run at once: part of the halo or all of it.
    CHECK(h.hidden >= 0);
    CHECK(h.hidden <= h.halo);
#else
    CHECK(h.hidden == 0);  // the OpenMP system runs the two in turn
#endif
    fmt::print("overlap {}: {} inner and {} outer atoms of {}\n", name, inner.size(), outer.size(), nlocal);
  });
}

TEST_CASE("A cluster list splits by rows: inner rows read no ghost, and the split forces are the unsplit ones",
          "[device][overlap][clusters]") {
  for_each_case(
      [](auto& t, const char* name) {
        t.rebuild();
        const device::DeviceClusterList& c = t.dev.list().clusters;
        const std::vector<int> inner = host(c.inner), outer = host(c.outer);
        const std::vector<int> slot_atom = host(c.slot_atom), first = host(c.first), count = host(c.count),
                               cj = host(c.cj);
        std::vector<std::uint8_t> jmask(c.jmask.size());
        thrust::copy(c.jmask.begin(), c.jmask.end(), jmask.begin());
        const int nlocal = t.dev.atoms().nlocal;
        std::set<int> all(inner.begin(), inner.end());
        all.insert(outer.begin(), outer.end());
        CHECK(all.size() == static_cast<std::size_t>(c.nrows));
        CHECK(inner.size() + outer.size() == static_cast<std::size_t>(c.nrows));
        auto reads_ghost = [&](int r) {
          for (int k = 0; k < count[r]; ++k) {
            const std::size_t at = static_cast<std::size_t>(r) * c.stride + k;
            for (int jj = 0; jj < device::kClusterSize; ++jj)
              if ((jmask[at] >> jj & 1u) && slot_atom[first[cj[at]] + jj] >= nlocal) return true;
          }
          return false;
        };
        std::size_t wrong = 0;
        for (int r : inner) wrong += reads_ghost(r);
        for (int r : outer) wrong += !reads_ghost(r);
        CHECK(wrong == 0);
        // A system several reaches across has rows far from every face.
        if (nlocal > 2000) CHECK(!inner.empty());

        split_step_matches(t);
        fmt::print("overlap clusters {}: {} inner and {} outer rows of {} ({} local atoms)\n", name, inner.size(),
                   outer.size(), c.nrows, nlocal);
      },
      64, "clusters");
}
