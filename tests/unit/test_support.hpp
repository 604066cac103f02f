#pragma once
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "deck/deck.hpp"
#include "neighbor/neighbor_list.hpp"

namespace tessera::test {

// A copy of `nl` whose rows hold atom << shift (NeighborList::entry_shift):
// a run's rows hold what its forces read (record offsets for the pair
// styles), and a test that reads entries as atoms asks for shift 0.
inline NeighborList list_with_shift(const NeighborList& nl, int shift) {
  NeighborList out = nl;
  std::vector<int> scratch;
  const int* rows = rows_with_shift(nl, shift, scratch);
  std::copy(rows, rows + nl.index.size(), out.index.begin());
  out.entry_shift = shift;
  return out;
}

inline std::string reference(const std::string& name) { return std::string(TESSERA_REFERENCE_DIR) + "/" + name; }

// A deck from YAML text; `path` only names it in messages.
inline Deck deck_from(const std::string& yaml, const std::string& path = "test.yaml") { return parse_deck(yaml, path); }

// A small LJ deck; `extra` is appended verbatim (YAML), `body` replaces the defaults.
inline std::string lj_lattice_yaml(int cells, double temperature, long steps, const std::string& integrator,
                                   bool shift = false) {
  return fmt::format(R"(
system:
  lattice: {{style: fcc, density: 0.8442, cells: [{0}, {0}, {0}]}}
velocity: {{temperature: {1}, seed: 4711}}
potential:
  style: lj/cut
  cutoff: 2.5
  shift: {4}
  coeffs:
    - {{types: [1, 1], epsilon: 1.0, sigma: 1.0}}
neighbor: {{skin: 0.3}}
integrator: {3}
run: {{steps: {2}}}
)",
                     cells, temperature, steps, integrator, shift ? "true" : "false");
}

// Per-atom forces of a LAMMPS dump (`dump custom ... id type x y z fx fy fz`),
// by atom id.
struct DumpAtom {
  double f[3];
};
inline std::map<std::int64_t, DumpAtom> read_dump_forces(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::string line;
  while (std::getline(in, line) && line.rfind("ITEM: ATOMS", 0) != 0) {
  }
  if (line != "ITEM: ATOMS id type x y z fx fy fz") throw std::runtime_error(path + ": unexpected columns: " + line);
  std::map<std::int64_t, DumpAtom> out;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::int64_t id;
    int type;
    double x, y, z;
    DumpAtom a;
    ls >> id >> type >> x >> y >> z >> a.f[0] >> a.f[1] >> a.f[2];
    out[id] = a;
  }
  return out;
}

// The largest per-atom force difference between `a`'s locals and `ref`,
// relative to the mean of the two forces' magnitudes; `fmax`: the largest
// such mean (so a test can check the forces are far from zero).
template <class Atoms>
double worst_force_difference(const Atoms& a, const std::map<std::int64_t, DumpAtom>& ref, double& fmax) {
  double worst = 0;
  fmax = 0;
  for (std::size_t i = 0; i < a.nlocal; ++i) {
    const auto& r = ref.at(a.id[i]).f;
    const double d =
        std::sqrt(std::pow(a.fx[i] - r[0], 2) + std::pow(a.fy[i] - r[1], 2) + std::pow(a.fz[i] - r[2], 2));
    const double m = std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]) +
                     std::sqrt(a.fx[i] * a.fx[i] + a.fy[i] * a.fy[i] + a.fz[i] * a.fz[i]);
    worst = std::max(worst, 2 * d / m);
    fmax = std::max(fmax, m / 2);
  }
  return worst;
}

// Reads a CSV with a header into columns by name.
inline std::map<std::string, std::vector<double>> read_csv(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> names;
  std::stringstream hs(line);
  for (std::string c; std::getline(hs, c, ',');) names.push_back(c);
  std::map<std::string, std::vector<double>> cols;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::stringstream ls(line);
    std::size_t k = 0;
    for (std::string c; std::getline(ls, c, ',') && k < names.size(); ++k) cols[names[k]].push_back(std::stod(c));
  }
  return cols;
}

// `s` with the first `from` replaced by `to`; `from` must occur.
inline std::string replace(std::string s, const std::string& from, const std::string& to) {
  const auto p = s.find(from);
  if (p == std::string::npos) throw std::logic_error("test text lacks: " + from);
  return s.replace(p, from.size(), to);
}

// A fresh folder per test case (named after it and the process), removed
// afterwards.
struct Scratch {
  std::filesystem::path dir;
  explicit Scratch(const std::string& name) {
    static int made = 0;  // two alive in one process never share a folder
    dir = std::filesystem::temp_directory_path() / fmt::format("tessera-test-{}-{}-{}", name, ::getpid(), ++made);
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  ~Scratch() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  std::string file(const std::string& name) const { return (dir / name).string(); }
};

inline double rel_diff(double a, double b) {
  const double s = std::abs(a) + std::abs(b);
  return s == 0 ? 0.0 : 2.0 * std::abs(a - b) / s;
}

}  // namespace tessera::test
