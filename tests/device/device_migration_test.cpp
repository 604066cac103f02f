// The device's side of a rebuild between ranks (device_migration.hpp) against
// the host's (comm/halo_atoms.hpp): every pick, take and add leaves the same
// atoms in the same slots, to the bit, and hands the host the same records,
// so HaloExchange's messages are those of a host rebuild.
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "comm/communicator.hpp"
#include "comm/halo_exchange.hpp"
#include "device/device_atoms.hpp"
#include "device/device_migration.hpp"
#include "domain/rank_grid.hpp"
#include "test_streams.hpp"

using namespace tessera;
using tessera::test::compute_stream;

namespace {

// n atoms of 3 types scattered over [-1, 11)^3 (some outside the [0, 10) box,
// as after a step), with velocities and image counts.
AtomStore scattered(std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> pos(-1.0, 11.0), vel(-2.0, 2.0);
  std::uniform_int_distribution<int> type(1, 3), img(-2, 2);
  AtomStore a;
  a.ntypes = 3;
  a.mass_of_type = {0.0, 1.0, 2.0, 3.0};
  a.resize_local(n);
  for (std::size_t i = 0; i < n; ++i) {
    a.id[i] = static_cast<AtomId>(1000 + 7 * i);
    a.type[i] = type(rng);
    a.x[i] = pos(rng), a.y[i] = pos(rng), a.z[i] = pos(rng);
    a.vx[i] = vel(rng), a.vy[i] = vel(rng), a.vz[i] = vel(rng);
    a.ix[i] = img(rng), a.iy[i] = img(rng), a.iz[i] = img(rng);
  }
  return a;
}

// What a migrating atom carries, and every atom's place, compared exactly.
void require_same_atoms(const AtomStore& h, const AtomStore& d) {
  REQUIRE(h.nlocal == d.nlocal);
  REQUIRE(h.nghost == d.nghost);
  const std::size_t nl = h.nlocal, na = h.nall();
  auto prefix = [](const auto& v, std::size_t n) { return std::vector<typename std::decay_t<decltype(v)>::value_type>(v.begin(), v.begin() + static_cast<long>(n)); };
  CHECK(prefix(h.id, na) == prefix(d.id, na));
  CHECK(prefix(h.type, na) == prefix(d.type, na));
  CHECK(prefix(h.x, na) == prefix(d.x, na));
  CHECK(prefix(h.y, na) == prefix(d.y, na));
  CHECK(prefix(h.z, na) == prefix(d.z, na));
  CHECK(prefix(h.vx, nl) == prefix(d.vx, nl));
  CHECK(prefix(h.vy, nl) == prefix(d.vy, nl));
  CHECK(prefix(h.vz, nl) == prefix(d.vz, nl));
  CHECK(prefix(h.ix, nl) == prefix(d.ix, nl));
  CHECK(prefix(h.iy, nl) == prefix(d.iy, nl));
  CHECK(prefix(h.iz, nl) == prefix(d.iz, nl));
}

AtomStore downloaded(const device::DeviceAtoms& d) {
  AtomStore a;
  device::download_atoms(compute_stream(), d, a);
  return a;
}

}  // namespace

TEST_CASE("The device takes, adds, picks and images the atoms the host does, slot for slot",
          "[device][migration]") {
  AtomStore host = scattered(3000, 11);
  device::DeviceAtoms dev;
  device::upload_atoms(compute_stream(), host, dev);
  HostHaloAtoms h(host);
  device::DeviceHaloAtoms d(dev, compute_stream());

  // Migration along x out of the sub-box [3, 7): the leavers below and above,
  // in index order, and the others compacted in order.
  AtomStore hb, ha, db, da;
  h.take_leavers(0, 3.0, 7.0, hb, ha);
  d.take_leavers(0, 3.0, 7.0, db, da);
  REQUIRE(hb.nlocal > 100);
  REQUIRE(ha.nlocal > 100);
  require_same_atoms(hb, db);
  require_same_atoms(ha, da);
  require_same_atoms(host, downloaded(dev));
  for (std::size_t i = 0; i < host.nlocal; ++i) REQUIRE((host.x[i] >= 3.0 && host.x[i] < 7.0));

  // Arrivals go after the atoms there.
  const AtomStore arrived = scattered(257, 12);
  h.add_locals(arrived);
  d.add_locals(arrived);
  REQUIRE(h.nlocal() == d.nlocal());
  require_same_atoms(host, downloaded(dev));
  CHECK(d.local_id_sums().sum == id_sums(host.id.data(), host.nlocal).sum);
  CHECK(d.local_id_sums().hash == id_sums(host.id.data(), host.nlocal).hash);

  // Ghosts: records for a message (shift added), then what arrives, then
  // images made in place; each pick sees the ghosts made before it.
  std::vector<int> hp, dp;
  AtomStore hr, dr;
  h.pick_ghosts(1, -1, 2.2, h.nall(), 10.0, hp, hr);
  d.pick_ghosts(1, -1, 2.2, d.nall(), 10.0, dp, dr);
  REQUIRE(hp.size() > 100);
  CHECK(hp == dp);
  REQUIRE(hr.nlocal == hp.size());
  REQUIRE(dr.nlocal == hp.size());
  // Every ghost-stored field, the position shifted along y only.
  zip_fields(hr, dr, kFieldGhost, [&](const auto& a, const auto& b, const FieldInfo& f) {
    INFO(f.member);
    CHECK(a == b);
  });
  for (std::size_t k = 0; k < hr.nlocal; ++k) {
    const std::size_t i = static_cast<std::size_t>(hp[k]);
    REQUIRE(hr.id[k] == host.id[i]);
    REQUIRE(hr.x[k] == host.x[i]);
    REQUIRE(hr.y[k] == host.y[i] + 10.0);
    REQUIRE(hr.z[k] == host.z[i]);
  }
  // Arrivals: the ghost-stored fields of other atoms as records.
  const AtomStore come = scattered(300, 13);
  AtomStore in;
  resize_records(in, kFieldGhost, come.nlocal);
  zip_fields(in, come, kFieldGhost, [&](auto& r, const auto& c, FieldInfo) {
    std::copy(c.begin(), c.begin() + static_cast<long>(come.nlocal), r.begin());
  });
  h.add_ghosts(in);
  d.add_ghosts(in);
  h.image_ghosts(2, 1, 7.5, h.nall(), -10.0, hp);
  d.image_ghosts(2, 1, 7.5, d.nall(), -10.0, dp);
  REQUIRE(hp.size() > 100);
  CHECK(hp == dp);
  REQUIRE(host.nghost == 300 + hp.size());
  require_same_atoms(host, downloaded(dev));

  // The next migration drops the ghosts first.
  h.drop_ghosts();
  d.drop_ghosts();
  require_same_atoms(host, downloaded(dev));
}

TEST_CASE("A halo build on one rank through the device gives the host's ghosts and swaps",
          "[device][migration]") {
  AtomStore host = scattered(2000, 21);
  Box box;
  for (int e = 0; e < 3; ++e) box.hi[e] = 10.0;
  for (std::size_t i = 0; i < host.nlocal; ++i) {
    // Into the box, as the rebuild's wrap leaves them.
    for (double* p : {&host.x[i], &host.y[i], &host.z[i]}) *p = *p < 0 ? *p + 10 : (*p >= 10 ? *p - 10 : *p);
  }
  device::DeviceAtoms dev;
  device::upload_atoms(compute_stream(), host, dev);
  RankGrid grid;
  grid.n = {1, 1, 1};
  const SubDomain sd = SubDomain::whole(box);
  HaloExchange on_host(grid, {0, 0, 0}, Communicator::world());
  HaloExchange on_device(grid, {0, 0, 0}, Communicator::world());
  on_host.build(host, sd, 2.8);
  device::DeviceHaloAtoms d(dev, compute_stream());
  on_device.build(d, sd, 2.8);
  require_same_atoms(host, downloaded(dev));
  REQUIRE(host.nghost > 1000);
  REQUIRE(on_host.swaps().size() == 6);
  REQUIRE(on_device.swaps().size() == 6);
  for (std::size_t k = 0; k < 6; ++k) {
    const HaloExchange::Swap &a = on_host.swaps()[k], &b = on_device.swaps()[k];
    CHECK(a.self);
    CHECK(b.self);
    CHECK(a.send == b.send);
    CHECK(a.first == b.first);
    CHECK(a.count == b.count);
    CHECK(a.shift == b.shift);
  }
  // Nothing went through a message: every swap was an image made in place.
  CHECK(on_device.records_moved() == 0);
}
