// Molecules in the outputs (issue 29): the global bond and angle lists that
// io/topology_gather.hpp rebuilds from the per-atom fields are the data
// file's, each bond and angle once; and a data file written with them
// (io/topology_writer.hpp, as output.data writes it) reads back through
// system.read_data with its molecule ids, bonds, angles, velocities and
// coefficients. The files on several ranks, H5MD's connectivity group and
// LAMMPS reading the file are in tests/e2e/molecule_outputs.sh.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "atoms/molecular_fields.hpp"
#include "io/topology_gather.hpp"
#include "io/topology_writer.hpp"
#include "run/simulation.hpp"
#include "system/build_system.hpp"
#include "molecular_decks.hpp"
#include "test_support.hpp"

using namespace tessera;

namespace {

const std::string kMelt = test::mol_model(test::kHarmonic, "{lj: [0, 0.5, 0.8]}") + "run: {steps: 0}\n";

using Bond = std::array<std::int64_t, 3>;   // type, smaller id, larger id
using Angle = std::array<std::int64_t, 4>;  // type, end, vertex, end

std::vector<Bond> bonds_of(const MolecularTopology& t) {
  std::vector<Bond> out;
  for (const auto& b : t.bonds) out.push_back({b.type, std::min(b.atom[0], b.atom[1]), std::max(b.atom[0], b.atom[1])});
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<Angle> angles_of(const MolecularTopology& t) {
  std::vector<Angle> out;
  for (const auto& g : t.angles) out.push_back({g.type, g.atom[0], g.atom[1], g.atom[2]});
  std::sort(out.begin(), out.end());
  return out;
}

template <std::size_t W>
std::vector<std::array<std::int64_t, W>> rows(const std::vector<std::int64_t>& flat) {
  std::vector<std::array<std::int64_t, W>> out(flat.size() / W);
  for (std::size_t k = 0; k < out.size(); ++k) std::copy_n(&flat[W * k], W, out[k].begin());
  return out;
}

}  // namespace

TEST_CASE("the bonds and angles gathered from the per-atom fields are the data file's, each once, in id order",
          "[molecular][outputs]") {
  const std::string data = test::reference("mol_melt.data");
  const BuiltSystem file = read_lammps_data(data, {});
  Simulation sim(test::deck_from("system: {read_data: " + data + "}\n" + kMelt));
  sim.setup();
  const Connectivity c = gather_connectivity(sim.atoms(), sim.comm());
  REQUIRE(c.nbonds() == 2700);
  REQUIRE(c.nangles() == 2400);
  const auto b = rows<3>(c.bonds);
  const auto a = rows<4>(c.angles);
  // Id order: bonds by (smaller id, larger id), angles by vertex first.
  for (std::size_t k = 0; k < b.size(); ++k) {
    CHECK(b[k][1] < b[k][2]);
    if (k > 0) CHECK(std::make_pair(b[k - 1][1], b[k - 1][2]) <= std::make_pair(b[k][1], b[k][2]));
  }
  for (std::size_t k = 1; k < a.size(); ++k) CHECK(a[k - 1][2] <= a[k][2]);
  auto sorted_b = b;
  auto sorted_a = a;
  std::sort(sorted_b.begin(), sorted_b.end());
  std::sort(sorted_a.begin(), sorted_a.end());
  CHECK(sorted_b == bonds_of(file.topology));
  CHECK(sorted_a == angles_of(file.topology));
}

TEST_CASE("a data file of the state reads back with its molecules, bonds, angles, velocities and coefficients",
          "[molecular][outputs]") {
  test::Scratch dir("topology-outputs");
  const std::string data = test::reference("mol_melt.data");
  const BuiltSystem file = read_lammps_data(data, {});
  Simulation sim(test::deck_from("system: {read_data: " + data + "}\n" + kMelt));
  sim.setup();
  const AtomStore& a = sim.atoms();
  const MolecularArrays m = molecular_arrays(a);
  Topology t;
  std::vector<std::size_t> order(a.nlocal);
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t p, std::size_t q) { return a.id[p] < a.id[q]; });
  for (std::size_t i : order) {
    t.id.push_back(a.id[i]);
    t.type.push_back(a.type[i]);
    t.molecule.push_back(m.molecule[i]);
    t.position.insert(t.position.end(), {a.x[i], a.y[i], a.z[i]});
    t.image.insert(t.image.end(), {a.ix[i], a.iy[i], a.iz[i]});
    t.velocity.insert(t.velocity.end(), {a.vx[i], a.vy[i], a.vz[i]});
  }
  t.mass_of_type = a.mass_of_type;
  t.box = sim.box();
  Connectivity c = gather_connectivity(a, sim.comm());
  t.bonds = c.bonds;
  t.angles = c.angles;
  t.nbond_types = t.nangle_types = 2;
  t.bond_style = t.angle_style = "harmonic";
  t.bond_coeffs = {{}, {200.0, 1.0}, {150.0, 1.1}};
  t.angle_coeffs = {{}, {50.0, 110.0}, {40.0, 120.0}};
  const std::string path = dir.file("state.data");
  write_topology(path, t, "by the test");

  const BuiltSystem back = read_lammps_data(path, {});
  CHECK(back.has_velocities);
  CHECK(bonds_of(back.topology) == bonds_of(file.topology));
  CHECK(angles_of(back.topology) == angles_of(file.topology));
  CHECK(back.topology.nbond_types == 2);
  CHECK(back.topology.nangle_types == 2);
  CHECK(back.topology.bond_style == "harmonic");
  CHECK(back.topology.angle_style == "harmonic");
  CHECK(back.topology.bond_coeffs.at(2) == std::vector<double>{150.0, 1.1});
  CHECK(back.topology.angle_coeffs.at(1) == std::vector<double>{50.0, 110.0});
  // Atom by atom (both stores hold every atom, in the file's order).
  const AtomStore& f = file.atoms;
  const AtomStore& r = back.atoms;
  REQUIRE(r.nlocal == f.nlocal);
  std::vector<std::size_t> fi(f.nlocal), ri(r.nlocal);
  for (std::size_t i = 0; i < fi.size(); ++i) fi[i] = ri[i] = i;
  std::sort(fi.begin(), fi.end(), [&](std::size_t p, std::size_t q) { return f.id[p] < f.id[q]; });
  std::sort(ri.begin(), ri.end(), [&](std::size_t p, std::size_t q) { return r.id[p] < r.id[q]; });
  int differ = 0;
  for (std::size_t k = 0; k < fi.size(); ++k) {
    const std::size_t p = fi[k], q = ri[k];
    differ += f.id[p] != r.id[q] || f.type[p] != r.type[q] || file.topology.molecule[p] != back.topology.molecule[q] ||
              f.x[p] != r.x[q] || f.vx[p] != r.vx[q] || f.iz[p] != r.iz[q];
  }
  CHECK(differ == 0);
}
