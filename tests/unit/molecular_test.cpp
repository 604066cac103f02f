// Molecules in the engine (issue 29): bonds, angles and special pairs as the
// step computes them, on one rank, against a brute-force reference written
// here from the definitions alone: every pair of atoms by minimum image with
// its special_bonds factor found by walking the bonds, every bond and angle
// from its formula, and the forces as minus the numerical gradient of that
// total energy. LAMMPS comparisons are in lammps_molecular_test.cpp.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "atoms/molecular_fields.hpp"
#include "bonded/id_map.hpp"
#include "core/error.hpp"
#include "run/simulation.hpp"
#include "test_support.hpp"

using namespace tessera;

namespace {

constexpr double kL = 8.0;  // cubic box

struct Mol {
  std::vector<std::array<double, 3>> x;  // by id - 1
  std::vector<int> type;
  std::vector<std::array<int, 3>> bonds;   // type, a, b (ids)
  std::vector<std::array<int, 4>> angles;  // type, a, vertex, c
};

// Four chains of six beads, types alternating, crossing the periodic faces,
// every bond and angle type used; positions jittered so no angle is exactly
// straight.
Mol make_chains() {
  Mol m;
  unsigned s = 12345;
  auto jitter = [&s] {
    s = s * 1103515245u + 12345u;
    return ((s >> 8) % 1000) / 1000.0 * 0.2 - 0.1;
  };
  for (int c = 0; c < 4; ++c) {
    const double y0 = 1.0 + 2.0 * c, z0 = 0.5 + 1.9 * c;
    for (int b = 0; b < 6; ++b) {
      const int id = static_cast<int>(m.x.size()) + 1;
      double x = 5.5 + 1.0 * b + jitter(), y = y0 + 0.3 * (b % 2) + jitter(), z = z0 + 0.25 * b + jitter();
      x = std::fmod(x, kL);
      m.x.push_back({x, y, std::fmod(z, kL)});
      m.type.push_back(1 + (b % 2));
      if (b > 0) m.bonds.push_back({1 + (b % 2), id - 1, id});
      if (b > 1) m.angles.push_back({1 + (c % 2), id - 2, id - 1, id});
    }
  }
  return m;
}

void write_data(const Mol& m, const std::string& path) {
  std::ofstream f(path);
  f << "chains for molecular_test\n\n"
    << m.x.size() << " atoms\n2 atom types\n" << m.bonds.size() << " bonds\n2 bond types\n" << m.angles.size()
    << " angles\n2 angle types\n0 " << kL << " xlo xhi\n0 " << kL << " ylo yhi\n0 " << kL
    << " zlo zhi\n\nMasses\n\n1 1.0\n2 2.0\n\nAtoms # molecular\n\n";
  f.precision(17);
  for (std::size_t i = 0; i < m.x.size(); ++i)
    f << i + 1 << " " << i / 6 + 1 << " " << m.type[i] << " " << m.x[i][0] << " " << m.x[i][1] << " " << m.x[i][2]
      << "\n";
  f << "\nBonds\n\n";
  for (std::size_t k = 0; k < m.bonds.size(); ++k)
    f << k + 1 << " " << m.bonds[k][0] << " " << m.bonds[k][1] << " " << m.bonds[k][2] << "\n";
  f << "\nAngles\n\n";
  for (std::size_t k = 0; k < m.angles.size(); ++k)
    f << k + 1 << " " << m.angles[k][0] << " " << m.angles[k][1] << " " << m.angles[k][2] << " " << m.angles[k][3]
      << "\n";
}

std::string deck_yaml(const std::string& data, const std::string& special, const std::string& angle_style) {
  const std::string angles =
      angle_style == "harmonic" ? "    - {type: 1, K: 40.0, theta0: 110.0}\n    - {type: 2, K: 25.0, theta0: 150.0}\n"
      : angle_style == "cosine" ? "    - {type: 1, K: 3.0}\n    - {type: 2, K: 5.0}\n"
                                : "    - {type: 1, K: 30.0, theta0: 120.0}\n    - {type: 2, K: 12.0, theta0: 100.0}\n";
  return "system:\n  read_data: " + data +
         "\npotential:\n  style: lj/cut\n  cutoff: 2.5\n  coeffs:\n"
         "    - {types: [1, 1], epsilon: 1.0, sigma: 1.0}\n"
         "    - {types: [1, 2], epsilon: 0.8, sigma: 1.05}\n"
         "    - {types: [2, 2], epsilon: 1.3, sigma: 0.95}\n"
         "bonds:\n  style: harmonic\n  coeffs:\n    - {type: 1, K: 150.0, r0: 1.0}\n    - {type: 2, K: 90.0, r0: 1.1}\n"
         "angles:\n  style: " +
         angle_style + "\n  coeffs:\n" + angles + "special_bonds: " + special +
         "\nneighbor: {skin: 0.3}\nintegrator: {style: nve, dt: 0.001}\nrun: {steps: 1}\n";
}

// The brute-force total energy of `x` (by id - 1).
struct Reference {
  const Mol& m;
  double special[3];
  std::string angle_style;
  std::map<std::pair<int, int>, int> level;  // (i, j), i < j, ids - 1 -> 1, 2 or 3

  Reference(const Mol& mol, const double sp[3], std::string style) : m(mol), angle_style(std::move(style)) {
    for (int k = 0; k < 3; ++k) special[k] = sp[k];
    const int n = static_cast<int>(m.x.size());
    std::vector<std::set<int>> adj(n);
    for (const auto& b : m.bonds) adj[b[1] - 1].insert(b[2] - 1), adj[b[2] - 1].insert(b[1] - 1);
    for (int i = 0; i < n; ++i) {
      std::map<int, int> dist = {{i, 0}};
      std::vector<int> frontier = {i};
      for (int d = 1; d <= 3; ++d) {
        std::vector<int> next;
        for (int a : frontier)
          for (int b : adj[a])
            if (!dist.count(b)) dist[b] = d, next.push_back(b);
        frontier = next;
      }
      for (const auto& [j, d] : dist)
        if (j > i) level[{i, j}] = d;
    }
  }

  static double mi(double d) { return d - kL * std::nearbyint(d / kL); }

  double energy(const std::vector<std::array<double, 3>>& x) const {
    const int n = static_cast<int>(x.size());
    const double eps[3][3] = {{0, 0, 0}, {0, 1.0, 0.8}, {0, 0.8, 1.3}};
    const double sig[3][3] = {{0, 0, 0}, {0, 1.0, 1.05}, {0, 1.05, 0.95}};
    double e = 0;
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j) {
        double r2 = 0;
        for (int d = 0; d < 3; ++d) r2 += mi(x[i][d] - x[j][d]) * mi(x[i][d] - x[j][d]);
        if (r2 >= 2.5 * 2.5) continue;
        const auto it = level.find({i, j});
        const double w = it == level.end() ? 1.0 : special[it->second - 1];
        const int ti = m.type[i], tj = m.type[j];
        const double sr6 = std::pow(sig[ti][tj] * sig[ti][tj] / r2, 3);
        e += w * 4 * eps[ti][tj] * (sr6 * sr6 - sr6);
      }
    auto vec = [&](int a, int b) {
      std::array<double, 3> d;
      for (int k = 0; k < 3; ++k) d[k] = mi(x[a][k] - x[b][k]);
      return d;
    };
    const double kb[3] = {0, 150.0, 90.0}, r0[3] = {0, 1.0, 1.1};
    for (const auto& b : m.bonds) {
      const auto d = vec(b[1] - 1, b[2] - 1);
      const double r = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
      e += kb[b[0]] * (r - r0[b[0]]) * (r - r0[b[0]]);
    }
    for (const auto& g : m.angles) {
      const auto d1 = vec(g[1] - 1, g[2] - 1), d2 = vec(g[3] - 1, g[2] - 1);
      const double c = (d1[0] * d2[0] + d1[1] * d2[1] + d1[2] * d2[2]) /
                       std::sqrt((d1[0] * d1[0] + d1[1] * d1[1] + d1[2] * d1[2]) *
                                 (d2[0] * d2[0] + d2[1] * d2[1] + d2[2] * d2[2]));
      const double theta = std::acos(c), deg = M_PI / 180;
      if (angle_style == "harmonic") {
        const double k[3] = {0, 40.0, 25.0}, t0[3] = {0, 110.0, 150.0};
        e += k[g[0]] * (theta - t0[g[0]] * deg) * (theta - t0[g[0]] * deg);
      } else if (angle_style == "cosine") {
        const double k[3] = {0, 3.0, 5.0};
        e += k[g[0]] * (1 + c);
      } else {
        const double k[3] = {0, 30.0, 12.0}, t0[3] = {0, 120.0, 100.0};
        e += k[g[0]] * (c - std::cos(t0[g[0]] * deg)) * (c - std::cos(t0[g[0]] * deg));
      }
    }
    return e;
  }
};

void agrees_with_brute_force(const std::string& special_yaml, const double special[3], const std::string& style) {
  test::Scratch dir("molecular");
  const Mol m = make_chains();
  const std::string data = (dir.dir / "chains.data").string();
  write_data(m, data);
  Simulation sim(test::deck_from(deck_yaml(data, special_yaml, style)));
  sim.setup();
  const Reference ref(m, special, style);
  const double e = ref.energy(m.x);
  const AtomStore& a = sim.atoms();
  const double n = static_cast<double>(m.x.size());
  INFO("special_bonds " << special_yaml << ", angle style " << style);
  CHECK(sim.thermo().pe * n == Approx(e).epsilon(1e-12));
  double worst = 0, scale = 0;
  for (std::size_t i = 0; i < a.nlocal; ++i) {
    const int k = static_cast<int>(a.id[i]) - 1;
    const double f[3] = {a.fx[i], a.fy[i], a.fz[i]};
    for (int d = 0; d < 3; ++d) {
      auto x = m.x;
      const double h = 1e-6;
      x[k][d] += h;
      const double ep = ref.energy(x);
      x[k][d] -= 2 * h;
      const double em = ref.energy(x);
      const double g = -(ep - em) / (2 * h);
      worst = std::max(worst, std::abs(f[d] - g));
      scale = std::max(scale, std::abs(g));
    }
  }
  INFO("worst force difference " << worst << " of the largest force " << scale);
  CHECK(worst <= 1e-6 * scale);
}

}  // namespace

TEST_CASE("bonds, angles and special pairs equal a brute-force sum over every pair", "[molecular]") {
  const double fene[3] = {0, 1, 1}, none[3] = {0, 0, 0}, fractional[3] = {0, 0.5, 0.8}, half[3] = {0.5, 0.5, 0.5};
  agrees_with_brute_force("fene", fene, "harmonic");
  agrees_with_brute_force("{lj: [0, 0, 0]}", none, "cosine");
  agrees_with_brute_force("{lj: [0, 0.5, 0.8]}", fractional, "cosine/squared");
  agrees_with_brute_force("{lj: [0.5, 0.5, 0.5]}", half, "harmonic");
}

TEST_CASE("excluded special pairs never reach the neighbour list", "[molecular]") {
  test::Scratch dir("molecular-list");
  const Mol m = make_chains();
  const std::string data = (dir.dir / "chains.data").string();
  write_data(m, data);
  for (const char* special : {"{lj: [0, 0, 0]}", "{lj: [0.5, 1, 1]}"}) {
    Simulation sim(test::deck_from(deck_yaml(data, special, "harmonic")));
    sim.setup();
    const AtomStore& a = sim.atoms();
    const NeighborList& nl = sim.neighbor_list();
    std::set<std::pair<AtomId, AtomId>> bonded;
    for (const auto& b : m.bonds) bonded.insert({b[1], b[2]}), bonded.insert({b[2], b[1]});
    std::vector<int> scratch;
    const int* rows = rows_with_shift(nl, 0, scratch);  // the run's rows may hold record offsets
    int listed_bonded = 0;
    for (std::size_t i = 0; i < a.nlocal; ++i)
      for (int k = 0; k < nl.count[i]; ++k) listed_bonded += bonded.count({a.id[i], a.id[rows[i * nl.stride + k]]});
    INFO("special_bonds " << special);
    // Factor 0: no bonded pair listed. Factor 0.5: every bonded pair listed
    // from both ends (all bonds are shorter than the cutoff).
    CHECK(listed_bonded == (std::string(special).find("[0,") != std::string::npos ? 0 : 2 * int(m.bonds.size())));
  }
}

TEST_CASE("a FENE bond stretched to R0 stops the run naming its atoms and length", "[molecular]") {
  test::Scratch dir("molecular-fene");
  const std::string data = (dir.dir / "pair.data").string();
  std::ofstream(data) << "two beads\n\n2 atoms\n1 atom types\n1 bonds\n1 bond types\n0 10 xlo xhi\n0 10 ylo yhi\n"
                         "0 10 zlo zhi\n\nMasses\n\n1 1.0\n\nAtoms # bond\n\n1 1 1 2.0 5 5\n2 1 1 3.52 5 5\n\n"
                         "Bonds\n\n1 1 1 2\n";
  const std::string yaml = "system:\n  read_data: " + data +
                           "\npotential:\n  style: lj/cut\n  cutoff: 1.122462048309373\n  shift: true\n  coeffs:\n"
                           "    - {types: [1, 1], epsilon: 1.0, sigma: 1.0}\n"
                           "bonds: {style: fene, coeffs: [{type: 1, K: 30, R0: 1.5, epsilon: 1, sigma: 1}]}\n"
                           "special_bonds: fene\nneighbor: {skin: 0.4}\nintegrator: {style: nve, dt: 0.005}\nrun: {steps: 1}\n";
  Simulation sim(test::deck_from(yaml));
  try {
    sim.setup();
    FAIL("a bond of length 1.52 > R0 = 1.5 was computed");
  } catch (const SimulationError& e) {
    const std::string msg = e.what();
    INFO(msg);
    CHECK(msg.find("step 0") != std::string::npos);
    CHECK(msg.find("atoms 1 and 2") != std::string::npos);
    CHECK(msg.find("1.52") != std::string::npos);
  }
}

TEST_CASE("the id map finds the image of a partner nearest the atom, for compact and sparse ids", "[molecular]") {
  for (const AtomId big : {AtomId(7), AtomId(1) << 40}) {
    INFO("largest id " << big);
    AtomStore a;
    a.resize_local(3);
    const AtomId ids[3] = {3, big, 5};
    for (int k = 0; k < 3; ++k) a.id[k] = ids[k], a.x[k] = k, a.y[k] = a.z[k] = 0;
    a.resize_ghosts(3);  // images of 3 and `big`, and of 5 again
    const AtomId gid[3] = {3, big, 5};
    const double gx[3] = {9.5, -0.6, 3.0};
    for (int k = 0; k < 3; ++k) a.id[3 + k] = gid[k], a.x[3 + k] = gx[k], a.y[3 + k] = a.z[3 + k] = 0;
    IdMap map;
    map.build(a);
    CHECK(map.nearest(3, 0.1, 0, 0, a) == 0);     // the local, not the image at 9.5
    CHECK(map.nearest(3, 9.0, 0, 0, a) == 3);     // the image
    CHECK(map.nearest(big, -0.5, 0, 0, a) == 4);  // the ghost nearer than the local at 1
    CHECK(map.nearest(5, 2.5, 0, 0, a) == 2);     // equally near: the first in index order
    CHECK(map.nearest(4, 0, 0, 0, a) == -1);
    CHECK(map.nearest(big + 1, 0, 0, 0, a) == -1);
  }
}
