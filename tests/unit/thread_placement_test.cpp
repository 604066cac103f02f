// The run header's line on thread placement (backend/thread_placement.hpp).
#include <catch2/catch.hpp>
#include <omp.h>

#include <algorithm>

#include "backend/thread_placement.hpp"

using namespace tessera;

TEST_CASE("CPU lists are written as ranges", "[placement]") {
  CHECK(cpu_ranges({}).empty());
  CHECK(cpu_ranges({3}) == "3");
  CHECK(cpu_ranges({0, 1, 2, 3}) == "0-3");
  CHECK(cpu_ranges({0, 1, 2, 3, 6, 8, 9}) == "0-3,6,8-9");
}

TEST_CASE("The placement line says whether threads are bound, and where", "[placement]") {
  ThreadPlacement loose{"false", "", {}, {0, 1}};
  CHECK(describe(loose) == "not bound (OMP_PROC_BIND unset or false): the OS places and moves them on CPUs 0-1");
  ThreadPlacement close{"close", "cores", {{0, 4}, {1, 5}}, {0, 1, 4, 5}};
  CHECK(describe(close) == "bound close (OMP_PLACES=cores): thread 0 on CPUs 0,4, thread 1 on CPUs 1,5");
  // A thread outside every place is not bound, whatever the policy says.
  ThreadPlacement partial{"spread", "", {{0}, {}}, {0, 1}};
  CHECK(describe(partial).rfind("not bound (OMP_PROC_BIND spread)", 0) == 0);
}

TEST_CASE("This process's threads are placed within its affinity mask", "[placement]") {
  const ThreadPlacement p = thread_placement();
  REQUIRE(!p.allowed.empty());
  if (p.bind == "false") {
    CHECK(p.cpus.empty());
  } else {
    CHECK(p.cpus.size() == static_cast<std::size_t>(omp_get_max_threads()));
    for (const auto& cpus : p.cpus)
      for (int c : cpus) CHECK(std::find(p.allowed.begin(), p.allowed.end(), c) != p.allowed.end());
  }
}
