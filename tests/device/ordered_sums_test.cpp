// The thermo sums on the device (kernels/device/reductions.hpp) against the
// CPU backend's (src/thermo/thermo.cpp): both add in the order of
// thermo/ordered_sum.hpp, so from the same per-atom values they give the same
// bits, whatever the atom count (partial blocks, partial lanes) and the
// thread count. On a GPU (the gpu label) the same check holds for its SM
// count, which a library reduction would split the work by.
#include <omp.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "device/device_atoms.hpp"
#include "device/reductions.hpp"
#include "thermo/thermo.hpp"
#include "test_streams.hpp"

using namespace tessera;
using tessera::test::compute_stream;

namespace {

// Values over twelve orders of magnitude and both signs, so that adding
// them in another order changes the last bits.
AtomStore spread_atoms(std::size_t n) {
  AtomStore a;
  a.ntypes = 2;
  a.mass_of_type = {0.0, 1.0, 39.948};
  a.resize_local(n);
  std::mt19937_64 rng(20261126 + n);
  std::uniform_real_distribution<double> u(-1.0, 1.0), mag(-6.0, 6.0);
  auto spread = [&] { return u(rng) * std::pow(10.0, mag(rng)); };
  for (std::size_t i = 0; i < n; ++i) {
    a.id[i] = static_cast<AtomId>(i + 1);
    a.type[i] = 1 + static_cast<int>(i % 2);
    a.x[i] = a.y[i] = a.z[i] = 0.5;
    a.vx[i] = spread();
    a.vy[i] = spread();
    a.vz[i] = spread();
    a.pe[i] = spread();
    a.virial[i] = spread();
  }
  return a;
}

template <class F>
auto with_threads(int threads, F&& f) {
  const int before = omp_get_max_threads();
  omp_set_num_threads(threads);
  auto r = f();
  omp_set_num_threads(before);
  return r;
}

}  // namespace

TEST_CASE("The device's thermo sums are the CPU's, bit for bit, for any atom and thread count", "[device][thermo]") {
  for (std::size_t n : {0, 1, 31, 33, 4096, 4097, 10007, 70001}) {
    INFO("atoms: " << n);
    const AtomStore a = spread_atoms(n);
    device::DeviceAtoms d;
    device::upload_atoms(compute_stream(), a, d);
    device::OrderedSums sums;
    const device::DeviceStream& s = compute_stream();

    const ThermoSums cpu1 = with_threads(1, [&] { return sum_thermo(a); });
    const ThermoSums cpu2 = with_threads(2, [&] { return sum_thermo(a); });
    const device::DeviceSums dev1 = with_threads(1, [&] { return sums.thermo(s, d); });
    const device::DeviceSums dev2 = with_threads(2, [&] { return sums.thermo(s, d); });
    for (const device::DeviceSums& dev : {dev1, dev2}) {
      CHECK(dev.mv2 == cpu1.mv2);
      CHECK(dev.pe == cpu1.pe);
      CHECK(dev.virial == cpu1.virial);
    }
    CHECK(cpu2.mv2 == cpu1.mv2);
    CHECK(cpu2.pe == cpu1.pe);
    CHECK(cpu2.virial == cpu1.virial);
    CHECK(sums.mv2(s, d) == sum_mv2(a));
    CHECK(sum_mv2(a) == cpu1.mv2);

    // And they are the sums: to rounding against a long double total.
    long double pe = 0, scale = 0;
    for (std::size_t i = 0; i < n; ++i) {
      pe += a.pe[i];
      scale += std::fabs(a.pe[i]);
    }
    CHECK(std::fabs(static_cast<long double>(cpu1.pe) - pe) <= 1e-14L * scale);
  }
}
