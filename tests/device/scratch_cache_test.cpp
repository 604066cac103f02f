// Thrust's temporaries come from the stream's cache (scratch_cache.hpp): a
// call that needs no more than an earlier one allocates nothing, and the
// cache keeps no more blocks than the calls in flight needed.
#include <catch2/catch.hpp>

#include <thrust/reduce.h>
#include <thrust/sort.h>

#include <vector>

#include "device/exec_policy.hpp"
#include "test_streams.hpp"

using namespace tessera;

TEST_CASE("Thrust's scratch is allocated once and reused by later calls on the stream", "[device]") {
  const device::DeviceStream s = device::DeviceStream::create();
  std::vector<int> h(200000);
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = static_cast<int>((i * 7919) % 100003);
  device::dvec<int> keys, vals;
  device::assign(s, keys, h);
  device::assign(s, vals, h);

  const long before = s.scratch->allocations();
  thrust::stable_sort_by_key(device::policy(s), keys.begin(), keys.end(), vals.begin());
  const int sum = thrust::reduce(device::policy(s), vals.begin(), vals.end(), 0, device::MaxOf{});
  CHECK(sum == 100002);
  const long warm = s.scratch->allocations();
  const std::size_t held = s.scratch->held_bytes();
  for (int rep = 0; rep < 5; ++rep) {
    device::assign(s, keys, h);
    thrust::stable_sort_by_key(device::policy(s), keys.begin(), keys.end(), vals.begin());
    CHECK(thrust::reduce(device::policy(s), vals.begin(), vals.end(), 0, device::MaxOf{}) == 100002);
  }
  CHECK(s.scratch->allocations() == warm);
  CHECK(s.scratch->held_bytes() == held);
  INFO("blocks allocated by the first sort and reduce: " << warm - before);

  // A copy of the stream shares its cache (the pipeline passes streams by value).
  const device::DeviceStream copy = s;
  CHECK(copy.scratch == s.scratch);
}

TEST_CASE("The scratch cache reuses a block that fits, and gives back the free ones before it grows", "[device]") {
  device::ScratchCache c;
  char* a = c.allocate(1000);
  char* b = c.allocate(4000);
  CHECK(c.allocations() == 2);
  CHECK(c.held_bytes() == 1250 + 5000);  // a quarter to spare
  c.deallocate(a, 1000);
  c.deallocate(b, 4000);
  char* again = c.allocate(1200);  // the smallest free block that fits: a's
  CHECK(again == a);
  CHECK(c.allocations() == 2);
  char* big = c.allocate(8000);  // no free block fits: b is given back first
  CHECK(c.allocations() == 3);
  CHECK(c.held_bytes() == 1250 + 10000);
  c.deallocate(again, 1200);
  c.deallocate(big, 8000);
  c.deallocate(big, 8000);  // twice, or a pointer it never gave: ignored
  CHECK(noexcept(c.deallocate(nullptr, 0)));
  CHECK(c.allocate(9000) == big);
  CHECK(c.allocations() == 3);
}
