// The per-atom field registry (atoms/atom_fields.hpp) and the halo's forward
// of any field (comm/halo_exchange.hpp). The checks walk the registry
// themselves, so a field added to it later is checked here with no edit.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "atoms/atom_store.hpp"
#include "comm/halo_exchange.hpp"
#include "domain/rank_grid.hpp"

using namespace tessera;

namespace {

// A value for field number f of atom i that no other (field, atom) has.
double tag(int f, std::size_t i) { return 1000.0 * (f + 1) + static_cast<double>(i); }

// Every field of local i set to its tag (converted to the field's type).
void fill(AtomStore& a) {
  for (std::size_t i = 0; i < a.nlocal; ++i) {
    int f = 0;
    for_each_field(a, kAnyField, [&](auto& v, FieldInfo) {
      v[i] = static_cast<typename std::decay_t<decltype(v)>::value_type>(tag(f++, i));
    });
  }
}

}  // namespace

TEST_CASE("Every registered field is sized, permuted and migrated by walking the registry", "[atoms][fields]") {
  AtomStore a;
  a.resize_local(5);
  int nfields = 0, ghost_fields = 0;
  std::size_t migrating_bytes = 0;
  std::set<std::string> names;
  for_each_field(a, kAnyField, [&](auto& v, FieldInfo f) {
    ++nfields;
    names.insert(f.name);
    CHECK(v.size() == 5);
    CHECK(f.component < f.width);
    ghost_fields += f.has(kFieldGhost);
    if (f.has(kFieldMigrates)) migrating_bytes += sizeof(typename std::decay_t<decltype(v)>::value_type);
    // A quantity is either recomputed each step or carried: never both.
    CHECK_FALSE((f.has(kFieldDerived) && f.has(kFieldMigrates)));
  });
  CHECK(nfields >= 16);
  CHECK(names.count("position") == 1);
  CHECK(names.count("velocity") == 1);
  // The migration record is exactly the migrating fields.
  CHECK(field_bytes(kFieldMigrates) == migrating_bytes);
  CHECK(migrating_bytes == sizeof(AtomId) + sizeof(int) + 6 * sizeof(double) + 3 * sizeof(int));

  // Ghosts: only the ghost fields grow.
  a.resize_ghosts(3);
  int grown = 0;
  for_each_field(a, kAnyField, [&](auto& v, FieldInfo f) {
    CHECK(v.size() == (f.has(kFieldGhost) ? 8u : 5u));
    grown += v.size() == 8u;
  });
  CHECK(grown == ghost_fields);

  // Permutation: every field, ghosts dropped.
  a.resize_local(5);
  fill(a);
  a.permute_local({4, 2, 0, 1, 3});
  CHECK(a.nghost == 0);
  const std::size_t from[5] = {4, 2, 0, 1, 3};
  int f = 0;
  for_each_field(a, kAnyField, [&](auto& v, FieldInfo info) {
    for (std::size_t k = 0; k < 5; ++k) {
      INFO(info.name << " component " << info.component << " slot " << k);
      CHECK(static_cast<double>(v[k]) == static_cast<double>(static_cast<typename std::decay_t<decltype(v)>::value_type>(
                                             tag(f, from[k]))));
    }
    ++f;
  });

  // A migrant carries the migrating fields and nothing else.
  AtomStore to;
  to.resize_local(1);
  copy_migrant(to, 0, a, 2);
  for_each_field(to, kAnyField, [&](auto& v, FieldInfo info) {
    INFO(info.name << " component " << info.component);
    if (info.has(kFieldMigrates))
      CHECK(v[0] != 0);
    else
      CHECK(v[0] == 0);
  });
}

TEST_CASE("The halo forwards any per-atom quantity, and its shifts follow the box", "[halo][fields]") {
  Box box;
  for (int e = 0; e < 3; ++e) box.hi[e] = 10.0;
  AtomStore a;
  a.ntypes = 1;
  a.mass_of_type = {0.0, 1.0};
  a.resize_local(400);
  std::uint64_t state = 12345;
  const auto uniform = [&state] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(state >> 11) / 9007199254740992.0;
  };
  for (std::size_t i = 0; i < a.nlocal; ++i) {
    a.id[i] = static_cast<AtomId>(i + 1);
    a.type[i] = 1;
    a.x[i] = 10.0 * uniform();
    a.y[i] = 10.0 * uniform();
    a.z[i] = 10.0 * uniform();
  }
  RankGrid grid;
  grid.n = {1, 1, 1};
  HaloExchange halo(grid, {0, 0, 0}, Communicator::world());
  halo.build(a, SubDomain::whole(box), 2.5);
  REQUIRE(a.nghost > 200);
  std::map<AtomId, std::size_t> owner;
  for (std::size_t i = 0; i < a.nlocal; ++i) owner[a.id[i]] = i;
  // The periodic image of each ghost, in box lengths, as the build made it.
  std::vector<std::array<long, 3>> image(a.nall());
  for (std::size_t g = a.nlocal; g < a.nall(); ++g) {
    const std::size_t i = owner.at(a.id[g]);
    const double d[3] = {a.x[g] - a.x[i], a.y[g] - a.y[i], a.z[g] - a.z[i]};
    for (int e = 0; e < 3; ++e) image[g][e] = std::lround(d[e] / 10.0);
  }

  SECTION("a scalar travels unchanged") {
    std::vector<double> q(a.nall(), -1.0);
    for (std::size_t i = 0; i < a.nlocal; ++i) q[i] = 0.5 + static_cast<double>(a.id[i]);
    double* const fields[1] = {q.data()};
    halo.forward(fields, 1, false);
    for (std::size_t g = a.nlocal; g < a.nall(); ++g) CHECK(q[g] == q[owner.at(a.id[g])]);
  }
  SECTION("positions move with their owners, shifted by the box as it is now") {
    for (std::size_t i = 0; i < a.nlocal; ++i) a.x[i] += 0.01 * static_cast<double>(i % 7);
    Box wider = box;
    wider.hi[0] = 11.0;
    halo.set_box(wider);
    halo.update_positions(a);
    for (std::size_t g = a.nlocal; g < a.nall(); ++g) {
      const std::size_t i = owner.at(a.id[g]);
      CHECK(a.x[g] == a.x[i] + static_cast<double>(image[g][0]) * 11.0);
      CHECK(a.y[g] == a.y[i] + static_cast<double>(image[g][1]) * 10.0);
      CHECK(a.z[g] == a.z[i] + static_cast<double>(image[g][2]) * 10.0);
    }
  }
}
