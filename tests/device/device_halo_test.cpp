// The device halo's swaps (device_halo.hpp): what the transport carries, and
// what it never sees. A swap to this rank itself (an axis with one rank) is a
// periodic copy on the device: no host copy and no message, with either
// transport, so a CUDA-aware MPI is never handed a device pointer for a copy
// the rank makes to itself.
#include <catch2/catch.hpp>

#include <vector>

#include "device/device_atoms.hpp"
#include "device/device_halo.hpp"

using namespace tessera;

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
    device::upload_atoms(a, d);
    device::DeviceHalo halo;
    halo.set_transport(t);
    halo.set(swaps);
    std::vector<std::size_t> carried;
    // The "neighbour" sends back what it got, one more box length along y.
    const SwapExchange echo = [&](std::size_t k, const double* out, double* in) {
      carried.push_back(k);
      for (std::size_t v = 0; v < 3 * swaps[k].count; ++v) in[v] = out[v] + (v % 3 == 1 ? 100.0 : 0.0);
    };
    halo.refresh(d, echo);
    AtomStore back;
    device::download_atoms(d, back);
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
