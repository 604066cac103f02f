#include <fmt/format.h>

#include <filesystem>

#include <cerrno>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <unordered_map>
#include <utility>

#include "core/error.hpp"
#include "core/text.hpp"
#include "system/build_system.hpp"
#include "system/memory_check.hpp"

namespace tessera {

namespace {

// Reads a LAMMPS data file line by line, keeping the line number for errors.
class DataFile {
 public:
  explicit DataFile(const std::string& path) : path_(path), in_(path) {
    if (!in_) throw InputError(path + ": cannot open the data file");
  }
  // Next line with comments stripped; false at end of file.
  bool next(std::string& line) {
    if (!std::getline(in_, line)) return false;
    ++lineno_;
    const auto hash = line.find('#');
    comment_ = hash == std::string::npos ? "" : trim(line.substr(hash + 1));
    if (hash != std::string::npos) line.erase(hash);
    line = trim(line);
    return true;
  }
  [[noreturn]] void fail(const std::string& what, const std::string& msg) const {
    throw InputError(fmt::format("{}:{}: {}: {}", path_, lineno_, what, msg));
  }
  const std::string& comment() const { return comment_; }
  int line() const { return lineno_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::ifstream in_;
  int lineno_ = 0;
  std::string comment_;
};

double parse_double(DataFile& f, const std::string& tok, const std::string& what) {
  char* end = nullptr;
  const double v = std::strtod(tok.c_str(), &end);
  if (tok.empty() || *end != '\0') f.fail(what, fmt::format("'{}' is not a number", tok));
  if (!std::isfinite(v)) f.fail(what, fmt::format("'{}' is not a finite number", tok));
  return v;
}

long long parse_int(DataFile& f, const std::string& tok, const std::string& what) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(tok.c_str(), &end, 10);
  if (tok.empty() || *end != '\0' || errno == ERANGE) f.fail(what, fmt::format("'{}' is not an integer", tok));
  return v;
}

std::vector<std::string> split(const std::string& s) {
  std::istringstream is(s);
  std::vector<std::string> out;
  std::string t;
  while (is >> t) out.push_back(t);
  return out;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

BuiltSystem read_lammps_data(const std::string& path, const std::vector<double>& deck_masses, bool masses_later) {
  DataFile f(path);
  BuiltSystem s;
  std::string line;
  long long natoms = -1;
  int ntypes = -1;
  long long nbonds = 0, nangles = 0;
  MolecularTopology& topo = s.topology;
  bool have_box[3] = {false, false, false};
  f.next(line);  // the first line is a free-form title

  // Header: "<numbers> <keyword>" lines until the first section name.
  std::string section;
  while (f.next(line)) {
    if (line.empty()) continue;
    const auto tok = split(line);
    if (std::isalpha(static_cast<unsigned char>(line[0]))) {
      section = line;
      break;
    }
    if (ends_with(line, "xlo xhi") || ends_with(line, "ylo yhi") || ends_with(line, "zlo zhi")) {
      const int d = line[line.size() - 7] - 'x';
      const std::string key = tok[tok.size() - 2] + " " + tok.back();
      if (tok.size() != 4) f.fail(key, "expected '<lo> <hi> " + key + "'");
      s.box.lo[d] = parse_double(f, tok[0], key);
      s.box.hi[d] = parse_double(f, tok[1], key);
      if (!(s.box.hi[d] > s.box.lo[d])) f.fail(key, "the upper bound must be above the lower bound");
      have_box[d] = true;
    } else if (ends_with(line, "xy xz yz")) {
      f.fail("xy xz yz", "triclinic boxes are not supported (orthorhombic only)");
    } else if (ends_with(line, "atom types")) {
      if (tok.size() != 3) f.fail("atom types", "expected '<count> atom types'");
      const long long v = parse_int(f, tok[0], "atom types");
      if (v <= 0 || v > 1000) f.fail("atom types", fmt::format("count must be between 1 and 1000, got {}", v));
      ntypes = static_cast<int>(v);
    } else if (ends_with(line, "atoms") && tok.size() == 2) {
      natoms = parse_int(f, tok[0], "atoms");
      if (natoms <= 0) f.fail("atoms", fmt::format("atom count must be positive, got {}", natoms));
      if (natoms > (1LL << 40)) f.fail("atoms", fmt::format("atom count {} is too large", natoms));
      if (const std::string why = memory_shortfall(natoms); !why.empty()) f.fail("atoms", why);
      // Each atom needs a line of at least "i t x y z": ~10 bytes. A header
      // promising more than the file can hold is refused before anything
      // is sized from it.
      std::error_code ec;
      const auto bytes = std::filesystem::file_size(path, ec);
      if (!ec && static_cast<double>(natoms) * 10 > static_cast<double>(bytes))
        f.fail("atoms", fmt::format("the header promises {} atoms, but the file has only {} bytes", natoms, bytes));
    } else if (tok.size() == 3 && (tok[1] == "bond" || tok[1] == "angle") && tok[2] == "types") {
      const std::string key = tok[1] + " types";
      const long long v = parse_int(f, tok[0], key);
      if (v < 0 || v > 1000) f.fail(key, fmt::format("count must be between 0 and 1000, got {}", v));
      (tok[1] == "bond" ? topo.nbond_types : topo.nangle_types) = static_cast<int>(v);
    } else if (tok.size() == 2 && (tok[1] == "bonds" || tok[1] == "angles")) {
      const long long v = parse_int(f, tok[0], tok[1]);
      if (v < 0 || v > (1LL << 40)) f.fail(tok[1], fmt::format("count must be between 0 and 2^40, got {}", v));
      (tok[1] == "bonds" ? nbonds : nangles) = v;
    } else if (tok.size() == 5 && tok[1] == "extra" && (tok[2] == "bond" || tok[2] == "angle" || tok[2] == "special") &&
               tok[3] == "per" && tok[4] == "atom") {
      // "<n> extra bond per atom" and the like: LAMMPS's room for topology
      // added later; Tessera's capacity is its own.
      if (parse_int(f, tok[0], line.substr(line.find(' ') + 1)) < 0) f.fail(line, "count must not be negative");
    } else if (tok.size() >= 2 && parse_int(f, tok[0], tok.back()) == 0) {
      // "0 bonds" and the like: harmless for an atomic system.
    } else {
      f.fail(line, "unsupported header line (atoms, bonds and angles only)");
    }
  }
  if (natoms < 0) f.fail("atoms", "the header has no '<N> atoms' line");
  if (ntypes < 0) f.fail("atom types", "the header has no '<N> atom types' line");
  for (int d = 0; d < 3; ++d)
    if (!have_box[d])
      f.fail(std::string(1, char('x' + d)) + "lo " + char('x' + d) + "hi",
             "the header has no box bounds for this axis");

  AtomStore& a = s.atoms;
  a.ntypes = ntypes;
  a.mass_of_type.assign(ntypes + 1, 0.0);
  a.resize_local(static_cast<std::size_t>(natoms));
  std::vector<char> have_mass(ntypes + 1, 0);
  std::unordered_map<AtomId, std::size_t> slot;
  slot.reserve(static_cast<std::size_t>(natoms));
  bool seen_atoms = false, seen_masses = false, molecular = false;
  bool seen_bonds = false, seen_angles = false;
  std::unordered_map<AtomId, long long> bond_line, angle_line;  // topology id -> line, for duplicates
  std::set<std::pair<AtomId, AtomId>> bonded_pairs;
  std::set<std::pair<AtomId, std::pair<AtomId, AtomId>>> angle_triples;
  std::vector<char> vel_seen(static_cast<std::size_t>(natoms), 0);

  // Sections: a name line, a blank line, then the entries.
  while (!section.empty()) {
    const std::string name = section;
    const std::string style = f.comment();
    section.clear();
    long long expect = 0;
    if (name == "Masses")
      expect = ntypes;
    else if (name == "Atoms" || name == "Velocities")
      expect = natoms;
    else if (name == "Bonds")
      expect = nbonds;
    else if (name == "Angles")
      expect = nangles;
    else if (name == "Bond Coeffs")
      expect = topo.nbond_types;
    else if (name == "Angle Coeffs")
      expect = topo.nangle_types;
    else if (name == "Pair Coeffs")
      expect = ntypes;
    else if (name == "PairIJ Coeffs")
      expect = static_cast<long long>(ntypes) * (ntypes + 1) / 2;
    else
      f.fail(name,
             "unsupported section (data files have Masses, Atoms, Velocities, Bonds, Angles, Bond Coeffs, Angle "
             "Coeffs, Pair Coeffs, PairIJ Coeffs)");
    const bool topology_section = name == "Bonds" || name == "Angles";
    const bool coeff_section = name == "Bond Coeffs" || name == "Angle Coeffs";
    if ((topology_section || coeff_section) && expect == 0)
      f.fail(name, fmt::format("the header announces no {}", name == "Bonds"         ? "bonds"
                                                             : name == "Angles"      ? "angles"
                                                             : name == "Bond Coeffs" ? "bond types"
                                                                                     : "angle types"));
    if (topology_section && !seen_atoms) f.fail(name, "the " + name + " section must come after the Atoms section");
    if (topology_section && !molecular)
      f.fail(name, "bonds and angles need atom style bond, angle or molecular ('Atoms # molecular')");
    if ((name == "Bonds" && seen_bonds) || (name == "Angles" && seen_angles)) f.fail(name, "section appears twice");
    if (name == "Bond Coeffs") topo.bond_style = style;
    if (name == "Angle Coeffs") topo.angle_style = style;
    // Molecular: what a run writes beside its trajectory (io/topology_writer.hpp),
    // read back here. bond and angle have the same columns as molecular.
    if (name == "Atoms" && !style.empty() && style != "atomic" && style != "molecular" && style != "bond" &&
        style != "angle")
      f.fail("Atoms", fmt::format("atom style '{}' is not supported (atomic, bond, angle or molecular only)", style));
    if (name == "Atoms") {
      molecular = style == "molecular" || style == "bond" || style == "angle";
      if (molecular) topo.molecule.assign(static_cast<std::size_t>(natoms), 0);
    }
    if ((name == "Atoms" && seen_atoms) || (name == "Masses" && seen_masses)) f.fail(name, "section appears twice");
    const bool velocities = name == "Velocities";
    if (velocities && !seen_atoms) f.fail(name, "the Velocities section must come after the Atoms section");
    long long got = 0;
    while (got < expect) {
      if (!f.next(line)) f.fail(name, fmt::format("file ends after {} of {} entries", got, expect));
      if (line.empty()) continue;
      const auto tok = split(line);
      if (std::isalpha(static_cast<unsigned char>(line[0])))
        f.fail(name, fmt::format("section ends after {} of {} entries", got, expect));
      if (name == "Masses") {
        if (tok.size() != 2) f.fail(name, "expected '<type> <mass>'");
        const long long t = parse_int(f, tok[0], name);
        if (t < 1 || t > ntypes) f.fail(name, fmt::format("type {} outside 1..{}", t, ntypes));
        const double m = parse_double(f, tok[1], name);
        if (!(m > 0)) f.fail(name, fmt::format("mass of type {} must be positive, got {}", t, m));
        if (have_mass[t]) f.fail(name, fmt::format("type {} given twice", t));
        have_mass[t] = 1;
        a.mass_of_type[t] = m;
      } else if (name == "Atoms") {
        // Columns after the molecule id (molecular style) are those of atomic.
        const std::size_t m = molecular ? 1 : 0;
        if (tok.size() != 5 + m && tok.size() != 8 + m)
          f.fail(name, molecular ? "expected 'id mol type x y z [ix iy iz]' (molecular style)"
                                 : "expected 'id type x y z [ix iy iz]' (atomic style)");
        const std::size_t k = static_cast<std::size_t>(got);
        const long long id = parse_int(f, tok[0], name);
        if (id <= 0) f.fail(name, fmt::format("atom id must be positive, got {}", id));
        if (!slot.emplace(id, k).second) f.fail(name, fmt::format("atom id {} appears twice", id));
        if (molecular) {
          const long long mol = parse_int(f, tok[1], name);
          if (mol < 0) f.fail(name, fmt::format("atom {} has a negative molecule id", id));
          topo.molecule[k] = mol;
        }
        const long long t = parse_int(f, tok[1 + m], name);
        if (t < 1 || t > ntypes) f.fail(name, fmt::format("atom {} has type {} outside 1..{}", id, t, ntypes));
        a.id[k] = id;
        a.type[k] = static_cast<int>(t);
        double* pos[3] = {&a.x[k], &a.y[k], &a.z[k]};
        for (int d = 0; d < 3; ++d) {
          *pos[d] = parse_double(f, tok[2 + m + d], name);
          if (*pos[d] < s.box.lo[d] || *pos[d] > s.box.hi[d])
            f.fail(name, fmt::format("atom {} at {} = {} is outside the box [{}, {}]", id, char('x' + d), *pos[d],
                                     s.box.lo[d], s.box.hi[d]));
        }
        int* img[3] = {&a.ix[k], &a.iy[k], &a.iz[k]};
        for (int d = 0; d < 3; ++d) {
          const long long v = tok.size() == 8 + m ? parse_int(f, tok[5 + m + d], name) : 0;
          if (v < -(1LL << 30) || v > (1LL << 30))
            f.fail(name, fmt::format("atom {} image flag {} is out of range", id, v));
          *img[d] = static_cast<int>(v);
        }
      } else if (topology_section) {
        // "id type a1 a2" (Bonds) or "id type a1 a2 a3" (Angles, a2 the vertex).
        const bool bond = name == "Bonds";
        const std::size_t n = bond ? 2 : 3;
        const char* what = bond ? "bond" : "angle";
        if (tok.size() != 2 + n)
          f.fail(name, bond ? "expected 'id type atom1 atom2'" : "expected 'id type atom1 atom2 atom3'");
        const long long id = parse_int(f, tok[0], name);
        if (id <= 0) f.fail(name, fmt::format("{} id must be positive, got {}", what, id));
        auto& seen_line = bond ? bond_line : angle_line;
        if (const auto [it, fresh] = seen_line.emplace(id, f.line()); !fresh)
          f.fail(name, fmt::format("{} id {} appears twice (first on line {})", what, id, it->second));
        const long long t = parse_int(f, tok[1], name);
        const int ntype = bond ? topo.nbond_types : topo.nangle_types;
        if (t < 1 || t > ntype) f.fail(name, fmt::format("{} {} has type {} outside 1..{}", what, id, t, ntype));
        AtomId atom[3] = {0, 0, 0};
        for (std::size_t q = 0; q < n; ++q) {
          atom[q] = parse_int(f, tok[2 + q], name);
          if (slot.find(atom[q]) == slot.end())
            f.fail(name, fmt::format("{} {} names atom id {}, which is not in the Atoms section", what, id, atom[q]));
          for (std::size_t r = 0; r < q; ++r)
            if (atom[r] == atom[q]) f.fail(name, fmt::format("{} {} names atom id {} twice", what, id, atom[q]));
        }
        if (bond) {
          if (!bonded_pairs.emplace(std::min(atom[0], atom[1]), std::max(atom[0], atom[1])).second)
            f.fail(name, fmt::format("bond {} joins atoms {} and {}, which an earlier bond already joins", id, atom[0],
                                     atom[1]));
          topo.bonds.push_back(MolecularTopology::Bond{id, static_cast<int>(t), {atom[0], atom[1]}});
        } else {
          if (!angle_triples.emplace(atom[1], std::make_pair(std::min(atom[0], atom[2]), std::max(atom[0], atom[2])))
                   .second)
            f.fail(name, fmt::format("angle {} ({} {} {}) repeats an earlier angle", id, atom[0], atom[1], atom[2]));
          topo.angles.push_back(MolecularTopology::Angle{id, static_cast<int>(t), {atom[0], atom[1], atom[2]}});
        }
      } else if (coeff_section) {
        auto& table = name == "Bond Coeffs" ? topo.bond_coeffs : topo.angle_coeffs;
        const int ntype = name == "Bond Coeffs" ? topo.nbond_types : topo.nangle_types;
        if (table.empty()) table.resize(static_cast<std::size_t>(ntype) + 1);
        if (tok.size() < 2) f.fail(name, "expected '<type> <coefficients...>'");
        const long long t = parse_int(f, tok[0], name);
        if (t < 1 || t > ntype) f.fail(name, fmt::format("type {} outside 1..{}", t, ntype));
        if (!table[t].empty()) f.fail(name, fmt::format("type {} given twice", t));
        for (std::size_t q = 1; q < tok.size(); ++q) table[t].push_back(parse_double(f, tok[q], name));
      } else if (velocities) {
        if (tok.size() != 4) f.fail(name, "expected 'id vx vy vz'");
        const long long id = parse_int(f, tok[0], name);
        const auto it = slot.find(id);
        if (it == slot.end()) f.fail(name, fmt::format("atom id {} is not in the Atoms section", id));
        if (vel_seen[it->second]) f.fail(name, fmt::format("atom id {} appears twice", id));
        vel_seen[it->second] = 1;
        a.vx[it->second] = parse_double(f, tok[1], name);
        a.vy[it->second] = parse_double(f, tok[2], name);
        a.vz[it->second] = parse_double(f, tok[3], name);
      }
      ++got;
    }
    if (name == "Atoms") seen_atoms = true;
    if (name == "Masses") seen_masses = true;
    if (name == "Bonds") seen_bonds = true;
    if (name == "Angles") seen_angles = true;
    if (velocities) s.has_velocities = true;
    while (f.next(line)) {
      if (line.empty()) continue;
      if (!std::isalpha(static_cast<unsigned char>(line[0])))
        f.fail(name, fmt::format("more entries than the {} the header announces", expect));
      section = line;
      break;
    }
  }
  if (!seen_atoms) throw InputError(path + ": Atoms: the file has no Atoms section");
  if (nbonds > 0 && !seen_bonds)
    throw InputError(
        fmt::format("{}: Bonds: the header announces {} bonds but the file has no Bonds section", path, nbonds));
  if (nangles > 0 && !seen_angles)
    throw InputError(
        fmt::format("{}: Angles: the header announces {} angles but the file has no Angles section", path, nangles));
  if (!deck_masses.empty()) {
    if (static_cast<int>(deck_masses.size()) != ntypes + 1)
      throw InputError(fmt::format("{}: atom types: the file has {} atom types but the deck gives {} masses", path,
                                   ntypes, deck_masses.size() - 1));
    a.mass_of_type = deck_masses;
  } else if (masses_later) {
    // The potential file gives every type its mass.
  } else if (!seen_masses) {
    throw InputError(path + ": Masses: the file has no Masses section and the deck gives no masses");
  } else {
    for (int t = 1; t <= ntypes; ++t)
      if (!have_mass[t]) throw InputError(fmt::format("{}: Masses: no mass for type {}", path, t));
  }
  // Atoms exactly on an upper face belong to the image on the lower face.
  for (std::size_t k = 0; k < a.nlocal; ++k) {
    if (a.x[k] >= s.box.hi[0]) {
      a.x[k] = s.box.lo[0];
      ++a.ix[k];
    }
    if (a.y[k] >= s.box.hi[1]) {
      a.y[k] = s.box.lo[1];
      ++a.iy[k];
    }
    if (a.z[k] >= s.box.hi[2]) {
      a.z[k] = s.box.lo[2];
      ++a.iz[k];
    }
  }
  s.natoms_total = natoms;
  return s;
}

}  // namespace tessera
