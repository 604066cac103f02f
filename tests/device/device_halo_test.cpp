// The device halo's swaps (device_halo.hpp): what the transport carries, and
// what it never sees. A swap to this rank itself (an axis with one rank) is a
// periodic copy on the device: no host copy and no message, with either
// transport, so a CUDA-aware MPI is never handed a device pointer for a copy
// the rank makes to itself.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include <thrust/copy.h>
#include <thrust/device_ptr.h>

#include "device/device_atoms.hpp"
#include "device/device_halo.hpp"
#include "test_streams.hpp"

using namespace tessera;
using tessera::test::compute_stream;

// The transport's buffers as the test's stand-in for MPI sees them: host
// memory when host-staged, device memory when CUDA-aware. A real CUDA-aware
// MPI reads and writes device memory itself; the test copies through the
// host, as a dereference of a device pointer would fault on a GPU.
std::vector<double> halo_test_read(HaloTransport t, const double* p, std::size_t n) {
  if (t == HaloTransport::kHostStaged) return std::vector<double>(p, p + n);
  std::vector<double> v(n);
  thrust::copy(thrust::device_pointer_cast(p), thrust::device_pointer_cast(p) + n, v.begin());
  return v;
}
void halo_test_write(HaloTransport t, const std::vector<double>& v, double* p) {
  if (t == HaloTransport::kHostStaged) {
    std::copy(v.begin(), v.end(), p);
    return;
  }
  thrust::copy(v.begin(), v.end(), thrust::device_pointer_cast(p));
}

TEST_CASE("A halo swap to this rank itself stays on the device, and only the others go through the transport",
          "[device][halo]") {
  AtomStore a;
  a.ntypes = 1;
  a.mass_of_type = {0.0, 1.0};
  a.resize_local(4);
  for (std::size_t i = 0; i < 4; ++i) {
    a.id[i] = static_cast<AtomId>(i + 1);
    a.type[i] = 1;
    a.x[i] = 0.5 + i;
    a.y[i] = 1.25 + i;
    a.z[i] = 2.125 + i;
  }
  a.resize_ghosts(4);
  // Swap 0: atoms 0 and 1 to this rank itself along x, one box length (10)
  // up; swap 1: atoms 2 and 3 and the first ghost to a "neighbour" along y.
  std::vector<HaloSwap> swaps(2);
  swaps[0].dim = 0;
  swaps[0].shift = 10.0;
  swaps[0].self = true;
  swaps[0].send = {0, 1};
  swaps[0].first = 4;
  swaps[0].count = 2;
  swaps[1].dim = 1;
  swaps[1].shift = -10.0;
  swaps[1].to = swaps[1].from = 1;
  swaps[1].send = {2, 3};
  swaps[1].first = 6;
  swaps[1].count = 2;

  for (HaloTransport t : {HaloTransport::kHostStaged, HaloTransport::kCudaAware}) {
    device::DeviceAtoms d;
    device::upload_atoms(compute_stream(), a, d);
    device::DeviceHalo halo(compute_stream());
    halo.set_transport(t);
    halo.set(swaps);
    std::vector<std::size_t> carried;
    // The "neighbour" sends back what it got, one more box length along y.
    SwapExchange echo;
    echo.positions = [&](std::size_t k, const double* out, double* in) {
      carried.push_back(k);
      std::vector<double> back = halo_test_read(t, out, 3 * swaps[k].send.size());
      back.resize(3 * swaps[k].count);
      for (std::size_t v = 0; v < back.size(); ++v) back[v] += (v % 3 == 1 ? 100.0 : 0.0);
      halo_test_write(t, back, in);
    };
    halo.refresh(d, echo);
    AtomStore back;
    device::download_atoms(compute_stream(), d, back);
    CHECK(carried == std::vector<std::size_t>{1});
    REQUIRE(back.nghost == 4);
    for (std::size_t k = 0; k < 2; ++k) {
      CHECK(back.x[4 + k] == a.x[k] + 10.0);  // the self swap: shifted, bit for bit
      CHECK(back.y[4 + k] == a.y[k]);
      CHECK(back.z[4 + k] == a.z[k]);
      CHECK(back.x[6 + k] == a.x[2 + k]);  // through the transport
      CHECK(back.y[6 + k] == a.y[2 + k] - 10.0 + 100.0);
      CHECK(back.z[6 + k] == a.z[2 + k]);
    }
  }
}

// DeviceHalo::forward: a quantity other than positions (one value per atom,
// no periodic shift) through the same swaps: the self swap on the device,
// the others through SwapExchange::values with either transport, and (not
// on a GPU, see below) by peer copy.
TEST_CASE("Any per-atom quantity reaches the ghosts through every halo transport", "[device][halo]") {
  const std::size_t n = 6, m = 2;
  AtomStore a;
  a.ntypes = 1;
  a.mass_of_type = {0.0, 1.0};
  a.resize_local(n);
  for (std::size_t i = 0; i < n; ++i) {
    a.id[i] = static_cast<AtomId>(i + 1);
    a.type[i] = 1;
    a.x[i] = a.y[i] = a.z[i] = 0.5 + i;
  }
  a.resize_ghosts(2 * m);
  std::vector<HaloSwap> swaps(2);
  swaps[0].dim = 0;
  swaps[0].shift = 10.0;  // must not touch a quantity that is not a coordinate
  swaps[0].self = true;
  swaps[0].send = {0, 1};
  swaps[0].first = n;
  swaps[0].count = m;
  swaps[1].dim = 1;
  swaps[1].shift = -10.0;
  swaps[1].to = swaps[1].from = 1;
  swaps[1].send = {4, 5};
  swaps[1].first = n + m;
  swaps[1].count = m;
  std::vector<double> q(n + 2 * m, -1.0);
  for (std::size_t i = 0; i < n; ++i) q[i] = 0.125 * static_cast<double>(i + 1);

  const auto check_ghosts = [&](device::dvec<double>& dq) {
    std::vector<double> back;
    device::to_host(compute_stream(), dq, dq.size(), back);
    for (std::size_t k = 0; k < m; ++k) {
      CHECK(back[n + k] == q[k]);
      CHECK(back[n + m + k] == q[4 + k]);
    }
  };
  int through_values = 0;
  HaloTransport transport = HaloTransport::kHostStaged;
  SwapExchange echo;
  echo.positions = [](std::size_t, const double*, double*) { FAIL("a scalar went through the positions' transport"); };
  echo.values = [&](std::size_t k, int width, const double* out, double* in) {
    ++through_values;
    CHECK(width == 1);
    std::vector<double> back = halo_test_read(transport, out, swaps[k].send.size());
    back.resize(swaps[k].count);
    halo_test_write(transport, back, in);
  };
  for (HaloTransport t : {HaloTransport::kHostStaged, HaloTransport::kCudaAware}) {
    transport = t;
    device::DeviceAtoms d;
    device::upload_atoms(compute_stream(), a, d);
    device::DeviceHalo halo(compute_stream());
    halo.set_transport(t);
    halo.set(swaps);
    device::dvec<double> dq;
    device::assign(compute_stream(), dq, q);
    device::HaloFields f;
    f.v[0] = device::raw(dq);
    f.width = 1;
    through_values = 0;
    halo.forward(f, echo, compute_stream());
    CHECK(through_values == 1);  // the self swap stays on the device
    check_ghosts(dq);
    f.width = 5;
    CHECK_THROWS_WITH(halo.forward(f, echo, compute_stream()), Catch::Contains("not 5"));
  }
#if THRUST_DEVICE_SYSTEM != THRUST_DEVICE_SYSTEM_CUDA
  // By peer copy: the partner is this process, as in the test below.
  device::DeviceAtoms d;
  device::upload_atoms(compute_stream(), a, d);
  device::DeviceHalo halo(compute_stream());
  halo.set(swaps);
  halo.set_peer_swaps({false, true});
  SwapExchange self = echo;
  self.values = [](std::size_t, int, const double*, double*) { FAIL("a peer-copied swap went through the transport"); };
  self.bytes = [](int, const std::vector<char>& out, int, std::vector<char>& in) { in = out; };
  self.signal = [](int, double v, int) { return v; };
  device::dvec<double> dq;
  device::assign(compute_stream(), dq, q);
  device::HaloFields f;
  f.v[0] = device::raw(dq);
  f.width = 1;
  halo.forward(f, self, compute_stream());
  check_ghosts(dq);
  halo.set_peer_swaps({false, false});
#endif
}

// Peer copies in one process (device_halo.hpp, peer_copy.hpp): the "partner"
// is this rank itself, so the handshake maps its own packed buffer and the
// copy reads it back. Send lists that grow past the buffer move it (a new
// handle travels and the receiver maps it afresh); lists that shrink or
// grow within it keep the same handle, and the positions stay right.
// Not on a GPU: CUDA IPC cannot map a process's own memory, so there the
// protocol is checked with two ranks (scripts/gpu/device-run.sh).
#if THRUST_DEVICE_SYSTEM != THRUST_DEVICE_SYSTEM_CUDA
TEST_CASE("Peer-copied swaps follow their send buffer across rebuilds, and re-map only when it moves",
          "[device][halo]") {
  AtomStore a;
  a.ntypes = 1;
  a.mass_of_type = {0.0, 1.0};
  const std::size_t n = 700;  // every other atom, from the last, for the longest list
  a.resize_local(n);
  for (std::size_t i = 0; i < n; ++i) {
    a.id[i] = static_cast<AtomId>(i + 1);
    a.type[i] = 1;
    a.x[i] = 0.25 + i;
    a.y[i] = 0.5 + 2.0 * i;
    a.z[i] = 0.75 + 3.0 * i;
  }
  device::DeviceHalo halo(compute_stream());
  std::vector<std::vector<char>> handles;
  int signals = 0;
  SwapExchange self;
  self.positions = [](std::size_t, const double*, double*) { FAIL("a peer-copied swap went through the transport"); };
  self.bytes = [&](int, const std::vector<char>& out, int, std::vector<char>& in) {
    handles.push_back(out);
    in = out;
  };
  self.signal = [&](int, double v, int) {
    ++signals;
    return v;
  };
  // Send lists of 10, 300 (past the first buffer), 100 (within) atoms.
  const std::size_t sizes[] = {10, 300, 100};
  for (std::size_t build = 0; build < 3; ++build) {
    const std::size_t m = sizes[build];
    AtomStore b = a;
    b.resize_ghosts(m);
    std::vector<HaloSwap> swaps(1);
    swaps[0].dim = 2;
    swaps[0].shift = -7.0;
    swaps[0].to = swaps[0].from = 1;
    for (std::size_t i = 0; i < m; ++i) swaps[0].send.push_back(static_cast<int>(n - 1 - 2 * i));
    swaps[0].first = n;
    swaps[0].count = m;
    device::DeviceAtoms d;
    device::upload_atoms(compute_stream(), b, d);
    halo.set(swaps);
    halo.set_peer_swaps({true});
    signals = 0;
    halo.refresh(d, self);
    CHECK(signals == 4);  // handshake: grows?, unmapped; the step: packed, copied
    AtomStore back;
    device::download_atoms(compute_stream(), d, back);
    REQUIRE(back.nghost == m);
    long long wrong = 0;
    for (std::size_t k = 0; k < m; ++k) {
      const std::size_t i = n - 1 - 2 * k;
      wrong += back.x[n + k] != a.x[i] || back.y[n + k] != a.y[i] || back.z[n + k] != a.z[i] - 7.0;
    }
    CHECK(wrong == 0);
    signals = 0;
    halo.refresh(d, self);  // between rebuilds: no handshake
    CHECK(signals == 2);
  }
  REQUIRE(handles.size() == 3);
  CHECK(handles[1] != handles[0]);  // 10 -> 300 atoms: the buffer moved
  CHECK(handles[2] == handles[1]);  // 300 -> 100: it stayed
  halo.set_peer_swaps({false});
}

TEST_CASE("A peer copy that fails is reported only after every swap has sent its signals", "[device][halo]") {
  AtomStore a;
  a.ntypes = 1;
  a.mass_of_type = {0.0, 1.0};
  const std::size_t n = 40, m = 5;
  a.resize_local(n);
  for (std::size_t i = 0; i < n; ++i) {
    a.id[i] = static_cast<AtomId>(i + 1);
    a.type[i] = 1;
    a.x[i] = a.y[i] = a.z[i] = 0.5 + i;
  }
  a.resize_ghosts(2 * m);
  std::vector<HaloSwap> swaps(2);
  for (std::size_t k = 0; k < 2; ++k) {
    swaps[k].dim = static_cast<int>(k);
    swaps[k].to = swaps[k].from = 1;
    for (std::size_t i = 0; i < m; ++i) swaps[k].send.push_back(static_cast<int>(k * m + i));
    swaps[k].first = n + k * m;
    swaps[k].count = m;
  }
  device::DeviceAtoms d;
  device::upload_atoms(compute_stream(), a, d);
  device::DeviceHalo halo(compute_stream());
  halo.set(swaps);
  halo.set_peer_swaps({true, true});
  int signals = 0, handles = 0;
  SwapExchange partner;
  partner.positions = [](std::size_t, const double*, double*) { FAIL("a peer-copied swap went through the transport"); };
  // The first swap's partner could not export its buffer (no memory, no
  // handle): it sends an empty handle, as DeviceHalo's handshake does then.
  partner.bytes = [&](int, const std::vector<char>& out, int, std::vector<char>& in) {
    in = handles++ == 0 ? std::vector<char>() : out;
  };
  partner.signal = [&](int, double v, int) {
    ++signals;
    return v;
  };
  CHECK_THROWS_WITH(halo.refresh(d, partner), Catch::Contains("peer copy") && Catch::Contains("wrong size"));
  CHECK(handles == 2);
  CHECK(signals == 8);  // both swaps: grows?, unmapped, packed, copied
  // The second swap still arrived.
  AtomStore back;
  device::download_atoms(compute_stream(), d, back);
  long long wrong = 0;
  for (std::size_t i = 0; i < m; ++i) wrong += back.y[n + m + i] != a.y[m + i];
  CHECK(wrong == 0);
  halo.set_peer_swaps({false, false});
}
#endif
