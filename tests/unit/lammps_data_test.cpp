#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "core/error.hpp"
#include "io/topology_writer.hpp"
#include "system/build_system.hpp"
#include "test_support.hpp"

using namespace tessera;

namespace {
const std::string kData = R"(test data file

3 atoms
2 atom types

0 10 xlo xhi
0 10 ylo yhi
-5 5 zlo zhi

Masses

1 1.0
2 2.5

Atoms # atomic

3 2 1.0 2.0 3.0 0 0 1
1 1 4.0 5.0 -4.0 0 0 0
2 1 7.5 8.5 4.5 -1 2 0

Velocities

1 0.1 0.2 0.3
3 -0.1 -0.2 -0.3
2 1 2 3
)";

std::string write_temp(const std::string& text) {
  // The process id in the name: ctest runs each test case as a process of
  // its own, several at once, and each counts from 0 (two of them writing
  // one file made a CI run fail).
  static int n = 0;
  const auto p = std::filesystem::temp_directory_path() /
                 ("tessera_data_test_" + std::to_string(::getpid()) + "_" + std::to_string(n++) + ".data");
  std::ofstream(p) << text;
  return p.string();
}

std::string error_of(const std::string& text) {
  const std::string path = write_temp(text);
  try {
    read_lammps_data(path, {});
  } catch (const InputError& e) {
    std::filesystem::remove(path);
    return e.what();
  }
  std::filesystem::remove(path);
  FAIL("no error for data file:\n" << text);
  return "";
}
}  // namespace

TEST_CASE("a LAMMPS data file is read with ids, types, images and velocities", "[data]") {
  const std::string path = write_temp(kData);
  const BuiltSystem s = read_lammps_data(path, {});
  std::filesystem::remove(path);
  CHECK(s.natoms_total == 3);
  CHECK(s.atoms.ntypes == 2);
  CHECK(s.atoms.mass_of_type[2] == 2.5);
  CHECK(s.box.lo[2] == -5);
  CHECK(s.has_velocities);
  const auto& a = s.atoms;
  for (std::size_t i = 0; i < 3; ++i) {
    if (a.id[i] == 3) {
      CHECK(a.type[i] == 2);
      CHECK(a.z[i] == 3.0);
      CHECK(a.iz[i] == 1);
      CHECK(a.vx[i] == -0.1);
    }
    if (a.id[i] == 2) {
      CHECK(a.ix[i] == -1);
      CHECK(a.iy[i] == 2);
      CHECK(a.vz[i] == 3.0);
    }
  }
}

TEST_CASE("the topology a run writes beside its trajectory reads back to the bit", "[data]") {
  // Molecular style (io/topology_writer.hpp): MDAnalysis's default columns,
  // and a file `read_data` takes, with the run's coordinates exactly.
  Topology t;
  t.id = {4, 9, 11};
  t.type = {2, 1, 2};
  t.position = {0.1 / 3, 7.25, 1e-17, 9.999999999999998, 0, 3.3333333333333335, 5, 5, 4.999999999999999};
  t.image = {0, -1, 2, 3, 0, 0, -7, 0, 1};
  t.mass_of_type = {0, 1.0, 39.948 / 7};
  t.box.lo[2] = -5;
  t.box.hi[0] = 10;
  t.box.hi[1] = 10.000000000000002;
  t.box.hi[2] = 5;
  t.step = 1200;
  const std::string path = write_temp("");
  write_topology(path, t, "by a test");
  std::ifstream in(path);
  std::string title;
  std::getline(in, title);
  CHECK(title == "LAMMPS data file (atom_style molecular) by a test, coordinates of step 1200");
  const BuiltSystem s = read_lammps_data(path, {});
  std::filesystem::remove(path);
  REQUIRE(s.natoms_total == 3);
  CHECK(s.atoms.mass_of_type == t.mass_of_type);
  for (int d = 0; d < 3; ++d) {
    CHECK(s.box.lo[d] == t.box.lo[d]);
    CHECK(s.box.hi[d] == t.box.hi[d]);
  }
  const auto& a = s.atoms;
  for (std::size_t i = 0; i < 3; ++i) {
    INFO("atom " << a.id[i]);
    CHECK(a.id[i] == t.id[i]);
    CHECK(a.type[i] == t.type[i]);
    CHECK(a.x[i] == t.position[3 * i]);
    CHECK(a.y[i] == t.position[3 * i + 1]);
    CHECK(a.z[i] == t.position[3 * i + 2]);
    CHECK(a.ix[i] == t.image[3 * i]);
    CHECK(a.iy[i] == t.image[3 * i + 1]);
    CHECK(a.iz[i] == t.image[3 * i + 2]);
  }
  CHECK(topology_path("out/run.h5md") == "out/run.data");
  CHECK(topology_path("run") == "run.data");
}

TEST_CASE("bad data files name file, line and section", "[data]") {
  struct Bad {
    std::string text, expect;
  };
  const std::vector<Bad> bad = {
      {test::replace(kData, "Masses\n\n1 1.0\n2 2.5\n\n", ""), "Masses: the file has no Masses section"},
      {test::replace(kData, "Atoms # atomic", "Atoms # full"), ":15: Atoms: atom style 'full' is not supported"},
      {test::replace(kData, "1 1 4.0 5.0 -4.0", "1 1 4.0 11.0 -4.0"),
       ":18: Atoms: atom 1 at y = 11 is outside the box"},
      {test::replace(kData, "1 1 4.0 5.0 -4.0", "1 1 4.0 5.0 -6.0"), ":18: Atoms: atom 1 at z = -6 is outside the box"},
      {test::replace(kData, "2 1 7.5", "3 1 7.5"), ":19: Atoms: atom id 3 appears twice"},
      {test::replace(kData, "1 1 4.0 5.0", "1 3 4.0 5.0"), "Atoms: atom 1 has type 3 outside 1..2"},
      {test::replace(kData, "3 atoms", "4 atoms"), "Atoms: section ends after 3 of 4 entries"},
      {test::replace(kData, "3 atoms", "2 atoms"), "Atoms: more entries than the 2 the header announces"},
      {test::replace(kData, "-5 5 zlo zhi", "5 -5 zlo zhi"),
       ":8: zlo zhi: the upper bound must be above the lower bound"},
      {test::replace(kData, "0 10 ylo yhi\n", ""), "ylo yhi: the header has no box bounds"},
      {test::replace(kData, "-5 5 zlo zhi", "-5 5 zlo zhi\n0 0 0 xy xz yz"), "triclinic boxes are not supported"},
      {test::replace(kData, "7.5 8.5 4.5", "7.5 nan 4.5"), "Atoms: 'nan' is not a finite number"},
      {test::replace(kData, "2 1 2 3", "9 1 2 3"), "Velocities: atom id 9 is not in the Atoms section"},
      {test::replace(kData, "2 2.5", "2 -2.5"), "Masses: mass of type 2 must be positive"},
      {test::replace(kData, "3 atoms", "-3 atoms"), "atoms: atom count must be positive"},
      {test::replace(kData, "Velocities", "Bonds"), "Bonds: the header announces no bonds"},
      {test::replace(kData, "Velocities", "Impropers"), "Impropers: unsupported section"},
      {test::replace(kData, "Atoms # atomic", "Atoms # molecular"),
       ":17: Atoms: expected 'id mol type x y z [ix iy iz]' (molecular style)"},
      {test::replace(test::replace(kData, "Atoms # atomic", "Atoms # molecular"), "3 2 1.0 2.0 3.0 0 0 1",
                     "3 -1 2 1.0 2.0 3.0 0 0 1"),
       ":17: Atoms: atom 3 has a negative molecule id"},
  };
  for (const auto& b : bad) {
    INFO(b.text);
    CHECK_THAT(error_of(b.text), Catch::Contains(b.expect));
  }
  CHECK_THROWS_AS(read_lammps_data("/nonexistent/x.data", {}), InputError);
}

namespace {
// A bead-spring fragment: atom style bond/angle/molecular (the same
// columns), two bonds, one angle with atom 2 the vertex.
const std::string kMolData = R"(molecular test data file

4 atoms
2 atom types
3 bonds
1 bond types
1 angles
2 angle types
2 extra bond per atom

0 10 xlo xhi
0 10 ylo yhi
0 10 zlo zhi

Masses

1 1.0
2 1.0

Atoms # molecular

1 7 1 1.0 1.0 1.0
2 7 1 2.0 1.0 1.0
3 7 2 2.5 2.0 1.0 0 1 0
4 8 1 6.0 6.0 6.0

Bond Coeffs # fene

1 30.0 1.5 1.0 1.0

Bonds

1 1 1 2
2 1 2 3
3 1 3 1

Angles

1 2 1 2 3
)";
}  // namespace

TEST_CASE("data files with bonds and angles: topology and molecule ids are read", "[data]") {
  for (const std::string style : {"molecular", "bond", "angle"}) {
    INFO("atom style " << style);
    const std::string path = write_temp(test::replace(kMolData, "Atoms # molecular", "Atoms # " + style));
    const BuiltSystem s = read_lammps_data(path, {});
    std::filesystem::remove(path);
    const MolecularTopology& t = s.topology;
    REQUIRE(t.molecule.size() == 4);
    CHECK(t.molecule[0] == 7);
    CHECK(t.molecule[3] == 8);
    CHECK(t.nbond_types == 1);
    CHECK(t.nangle_types == 2);
    REQUIRE(t.bonds.size() == 3);
    CHECK(t.bonds[1].id == 2);
    CHECK(t.bonds[1].type == 1);
    CHECK(t.bonds[1].atom[0] == 2);
    CHECK(t.bonds[1].atom[1] == 3);
    REQUIRE(t.angles.size() == 1);
    CHECK(t.angles[0].type == 2);
    CHECK(t.angles[0].atom[1] == 2);  // the vertex
    CHECK(t.bond_style == "fene");
    REQUIRE(t.bond_coeffs.size() == 2);
    CHECK(t.bond_coeffs[1] == std::vector<double>{30.0, 1.5, 1.0, 1.0});
    CHECK(t.angle_coeffs.empty());
    CHECK(s.atoms.iy[2] == 1);
  }
}

TEST_CASE("bad bonds and angles name file, line and section", "[data]") {
  struct Bad {
    std::string text, expect;
  };
  const std::vector<Bad> bad = {
      {test::replace(kMolData, "\n2 1 2 3\n", "\n2 1 2 9\n"),
       ":34: Bonds: bond 2 names atom id 9, which is not in the Atoms section"},
      {test::replace(kMolData, "1 2 1 2 3", "1 2 1 2 5"),
       ":39: Angles: angle 1 names atom id 5, which is not in the Atoms section"},
      {test::replace(kMolData, "\n2 1 2 3\n", "\n2 2 2 3\n"), ":34: Bonds: bond 2 has type 2 outside 1..1"},
      {test::replace(kMolData, "\n2 1 2 3\n", "\n1 1 2 3\n"), ":34: Bonds: bond id 1 appears twice (first on line 33)"},
      {test::replace(kMolData, "3 1 3 1", "3 1 2 1"),
       ":35: Bonds: bond 3 joins atoms 2 and 1, which an earlier bond already joins"},
      {test::replace(kMolData, "\n2 1 2 3\n", "\n2 1 2 2\n"), ":34: Bonds: bond 2 names atom id 2 twice"},
      {test::replace(kMolData, "\n2 1 2 3\n", "\n2 1 2\n"), ":34: Bonds: expected 'id type atom1 atom2'"},
      {test::replace(kMolData, "3 bonds", "4 bonds"), "Bonds: section ends after 3 of 4 entries"},
      {test::replace(kMolData, "1 angles", "0 angles"), "Angles: the header announces no angles"},
      {test::replace(kMolData, "\nAngles\n\n1 2 1 2 3\n", ""),
       "Angles: the header announces 1 angles but the file has no Angles section"},
      {test::replace(kMolData, "Atoms # molecular", "Atoms # full"), "Atoms: atom style 'full' is not supported"},
      {test::replace(kMolData, "1 30.0 1.5", "2 30.0 1.5"), ":29: Bond Coeffs: type 2 outside 1..1"},
      {test::replace(kMolData, "1 30.0 1.5", "1 x 1.5"), ":29: Bond Coeffs: 'x' is not a number"},
      {test::replace(kMolData, "1 bond types", "-1 bond types"), "bond types: count must be between 0 and 1000"},
      {test::replace(kMolData, "1 angles", "1 angles\n2 dihedrals"),
       ":8: 2 dihedrals: unsupported header line (atoms, bonds and angles only)"},
      {test::replace(kMolData, "3 bonds", "3 xbonds"), ":5: 3 xbonds: unsupported header line"},
  };
  for (const auto& b : bad) {
    INFO(b.text);
    CHECK_THAT(error_of(b.text), Catch::Contains(b.expect));
  }
}
