#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "core/error.hpp"
#include "core/units.hpp"
#include "deck/deck.hpp"
#include "deck/nearest_key.hpp"
#include "deck/yaml_section.hpp"
#include "io/topology_writer.hpp"
#include "manybody/manybody_styles.hpp"
#include "bonded/bonded_registry.hpp"
#include "potentials/pair_style.hpp"
#include "system/memory_check.hpp"
#include "thermo/thermo.hpp"

namespace tessera {

const char* to_string(IntegratorStyle s) {
  switch (s) {
    case IntegratorStyle::kNve: return "nve";
    case IntegratorStyle::kLangevin: return "langevin";
    case IntegratorStyle::kNoseHoover: return "nose-hoover";
    case IntegratorStyle::kNpt: return "npt";
    case IntegratorStyle::kNph: return "nph";
  }
  return "?";
}

std::string integrator_label(const IntegratorSpec& spec) {
  return std::string(to_string(spec.style)) + (spec.c_rescale ? "+c-rescale" : "");
}

std::string integrator_label_style(const std::string& label) { return label.substr(0, label.find('+')); }

namespace {

double positive(const YamlSection& s, const std::string& key) {
  const double v = s.number(key);
  if (!(v > 0)) s.fail(key, fmt::format("must be positive, got {}", v));
  return v;
}

// `key` as one value or [start, stop], each positive and finite (a
// temperature or pressure that npt/nph ramps over the run).
void ramp(const YamlSection& s, const std::string& key, double& start, double& stop) {
  const YAML::Node n = s.node(key);
  const DeckLocation at = s.where(key);
  if (n.IsSequence()) {
    if (n.size() != 2) throw_at(at, "expected one value or [start, stop]");
    start = to_number(n[0], at);
    stop = to_number(n[1], at);
  } else {
    start = stop = s.number(key);
  }
  for (double v : {start, stop})
    if (!(v > 0) || !std::isfinite(v)) throw_at(at, fmt::format("must be positive and finite, got {}", v));
}

// A damping time of a few steps or less makes the chain or barostat ring
// at the step's own frequency: refused, as a deck error.
void damping_steps(const YamlSection& s, const std::string& key, double damping, double dt) {
  if (dt > 0 && damping < 5 * dt)
    s.fail(key, fmt::format("{} is shorter than 5 time steps ({} x 5 = {}); the integration would not resolve it",
                            damping, dt, 5 * dt));
}

long long positive_int(const YamlSection& s, const std::string& key, long long max) {
  const long long v = s.integer(key);
  if (v <= 0) s.fail(key, fmt::format("must be a positive integer, got {}", v));
  if (v > max) s.fail(key, fmt::format("must be at most {}, got {}", max, v));
  return v;
}

std::vector<double> read_masses(const YamlSection& s, int& ntypes) {
  const YAML::Node n = s.node("masses");
  const DeckLocation at = s.where("masses");
  if (!n.IsSequence() || n.size() == 0) throw_at(at, "expected a list of masses, one per atom type: [m1, m2, ...]");
  std::vector<double> m(n.size() + 1, 0.0);
  for (std::size_t k = 0; k < n.size(); ++k) {
    const DeckLocation ak = location_of(n[k], s.file(), fmt::format("{}[{}]", at.key, k));
    m[k + 1] = to_number(n[k], ak);
    if (!(m[k + 1] > 0)) throw_at(ak, fmt::format("mass of type {} must be positive, got {}", k + 1, m[k + 1]));
  }
  if (ntypes != 0 && ntypes != static_cast<int>(n.size()))
    throw_at(at, fmt::format("{} masses given for {} atom types", n.size(), ntypes));
  ntypes = static_cast<int>(n.size());
  return m;
}

LatticeSpec read_lattice(const YamlSection& s, const Units& units) {
  s.only();
  LatticeSpec l;
  l.style = s.string("style");
  int nbasis = 0;
  if (l.style == "sc")
    nbasis = 1;
  else if (l.style == "bcc")
    nbasis = 2;
  else if (l.style == "fcc")
    nbasis = 4;
  else
    s.fail("style", fmt::format("unknown lattice '{}' (known: sc, bcc, fcc)", l.style));
  if (s.has("density") == s.has("constant"))
    s.fail_here("give exactly one of 'density' (atoms per volume) or 'constant' (lattice constant)");
  if (s.has("density"))
    l.constant = std::cbrt(nbasis / positive(s, "density"));
  else
    l.constant = positive(s, "constant");
  // A lattice constant of a million sigma (or Angstrom) is a unit mistake,
  // and boxes that size defeat the cell lists.
  const char* given = s.has("density") ? "density" : "constant";
  if (!(l.constant <= 1e6) || !(l.constant >= 1e-6))
    s.fail(given, fmt::format("gives a lattice constant of {:g}, outside 1e-6 .. 1e6 {} ({} units)", l.constant,
                              units.symbols.length, units.name));
  const YAML::Node c = s.node("cells");
  const DeckLocation at = s.where("cells");
  if (!c.IsSequence() || c.size() != 3) throw_at(at, "expected three cell counts [nx, ny, nz]");
  long long total = nbasis;
  for (int d = 0; d < 3; ++d) {
    const DeckLocation ad = location_of(c[d], s.file(), fmt::format("{}[{}]", at.key, d));
    const long long v = to_integer(c[d], ad);
    if (v <= 0) throw_at(ad, fmt::format("cell count must be positive, got {}", v));
    if (v > 100000) throw_at(ad, fmt::format("cell count {} is unreasonably large", v));
    l.cells[d] = static_cast<int>(v);
    total *= v;
    if (total > (1LL << 40)) throw_at(at, "lattice would hold more than 2^40 atoms");
  }
  if (const std::string why = memory_shortfall(total); !why.empty()) throw_at(at, why);
  if (s.has("basis_types")) {
    const YAML::Node b = s.node("basis_types");
    l.basis_types_at = s.where("basis_types");
    if (!b.IsSequence() || static_cast<int>(b.size()) != nbasis)
      throw_at(l.basis_types_at,
               fmt::format("expected a list of {} atom types, one per basis atom of {}", nbasis, l.style));
    for (std::size_t k = 0; k < b.size(); ++k) {
      const DeckLocation ak = location_of(b[k], s.file(), fmt::format("{}[{}]", l.basis_types_at.key, k));
      const long long t = to_integer(b[k], ak);
      if (t < 1) throw_at(ak, fmt::format("atom types start at 1, got {}", t));
      l.basis_types.push_back(static_cast<int>(t));
    }
  }
  return l;
}

// system.polymer_melt: M chains of N beads in reduced units. The builder
// checks the same things again (for callers other than the deck); here they
// fail with the key's place in the deck.
PolymerMeltSpec read_polymer_melt(const YamlSection& s, const Units& units) {
  s.only();
  if (!units.reduced)
    s.fail_here(fmt::format("polymer_melt builds a Kremer-Grest melt in reduced units (units: lj); this deck uses {}",
                            units.name));
  PolymerMeltSpec m;
  m.chains = positive_int(s, "chains", 1LL << 40);
  m.beads = positive_int(s, "beads", 1LL << 40);
  if (m.beads > (1LL << 40) / m.chains)
    s.fail_here(fmt::format("{} chains of {} beads is more than 2^40 atoms", m.chains, m.beads));
  const long long total = m.chains * m.beads;
  if (const std::string why = memory_shortfall(total); !why.empty()) s.fail_here(why);
  m.density = s.number("density");
  if (!(m.density > 0) || !(m.density <= 1.0))
    s.fail("density", fmt::format("must be above 0 and at most 1.0 beads per sigma^3 (a Kremer-Grest melt is 0.85; "
                                  "denser melts cannot be placed as random walks), got {}",
                                  m.density));
  m.bond_length = s.number("bond_length", m.bond_length);
  if (!(m.bond_length >= 0.8) || !(m.bond_length <= 1.2))
    s.fail("bond_length", fmt::format("must be between 0.8 and 1.2 sigma (FENE with R0 = 1.5 plus WCA rests at 0.97), "
                                      "got {}",
                                      m.bond_length));
  m.seed = s.seed("seed");
  // The box must hold the push-off's reach twice over, and stay within the
  // sizes the cell lists handle (as a lattice constant of 1e6 does).
  const double side = std::cbrt(static_cast<double>(total) / m.density);
  if (!(side > 2 * m.pushoff_cutoff))
    s.fail_here(
        fmt::format("{} chains of {} beads at density {} make a box {:.4g} sigma across, which must be more "
                    "than {:.4g} (twice the push-off cutoff 2^(1/6)); give more chains or beads",
                    m.chains, m.beads, m.density, side, 2 * m.pushoff_cutoff));
  if (!(side <= 1e6)) s.fail("density", fmt::format("gives a box {:g} sigma across, more than 1e6", side));
  return m;
}

// `potential_masses`: the deck's potential gives the atom types their masses
// (a many-body style's file, system/potential_masses.hpp).
SystemSpec read_system(const YamlSection& s, const std::string& deck_dir, const Units& units, bool potential_masses) {
  s.only();
  SystemSpec sys;
  if (int(s.has("lattice")) + int(s.has("read_data")) + int(s.has("polymer_melt")) != 1)
    s.fail_here("give exactly one of 'lattice', 'read_data' or 'polymer_melt'");
  if (s.has("types")) sys.ntypes = static_cast<int>(positive_int(s, "types", 1000));
  if (s.has("polymer_melt")) {
    sys.polymer_melt = read_polymer_melt(s.section("polymer_melt"), units);
    sys.polymer_melt_at = s.where("polymer_melt");
    if (s.has("masses")) sys.masses = read_masses(s, sys.ntypes);
    if (sys.ntypes == 0) sys.ntypes = 1;
    if (sys.masses.empty()) sys.masses.assign(sys.ntypes + 1, 1.0);
  } else if (s.has("lattice")) {
    sys.lattice = read_lattice(s.section("lattice"), units);
    if (s.has("masses")) sys.masses = read_masses(s, sys.ntypes);
    int highest = 1;
    for (int t : sys.lattice->basis_types) highest = std::max(highest, t);
    if (sys.ntypes == 0) sys.ntypes = highest;
    if (highest > sys.ntypes)
      throw_at(sys.lattice->basis_types_at,
               fmt::format("type {} is above the {} atom type(s) of the system", highest, sys.ntypes));
    // A mass of 1 is the natural default only where it is the unit (lj); in
    // g/mol no default is right for every element, unless the potential's
    // file names the element (build_system takes the masses from it then).
    if (sys.masses.empty() && !units.reduced && !potential_masses)
      s.fail_here(fmt::format("a lattice in {} units needs 'masses' (g/mol), one per atom type", units.name));
    if (sys.masses.empty() && !potential_masses) sys.masses.assign(sys.ntypes + 1, 1.0);
  } else {
    const std::string f = s.string("read_data");
    if (f.empty()) s.fail("read_data", "empty file name");
    const std::filesystem::path p(f);
    sys.read_data = p.is_absolute() || deck_dir.empty() ? f : (std::filesystem::path(deck_dir) / p).string();
    sys.read_data_at = s.where("read_data");
    if (s.has("masses")) sys.masses = read_masses(s, sys.ntypes);
  }
  sys.masses_at = s.where("masses");
  return sys;
}

VelocitySpec read_velocity(const YamlSection& s) {
  s.only();
  VelocitySpec v;
  v.temperature = s.number("temperature");
  if (v.temperature < 0) s.fail("temperature", "must not be negative");
  v.seed = s.seed("seed");
  return v;
}

// A many-body style: its file(s) and elements; the cutoff is the files'.
PotentialSpec read_manybody(const YamlSection& s, const ManyBodyStyleEntry& style, const std::string& deck_dir) {
  if (style.elements)
    s.only({"style", "file", "elements", "cutoff"});
  else
    s.only({"style", "file", "cutoff"});
  PotentialSpec p;
  p.style = style.name;
  p.files_at = s.where("file");
  const YAML::Node f = s.node("file");
  auto add_file = [&](const YAML::Node& n, const std::string& key) {
    const DeckLocation at = location_of(n, s.file(), key);
    if (!n.IsScalar() || n.Scalar().empty()) throw_at(at, "expected the name of a potential file");
    const std::filesystem::path path(n.Scalar());
    p.files.push_back(path.is_absolute() || deck_dir.empty() ? path.string()
                                                             : (std::filesystem::path(deck_dir) / path).string());
  };
  if (f.IsSequence() && style.file_per_type) {
    if (f.size() == 0) throw_at(p.files_at, "expected one file, or a list of one file per atom type");
    for (std::size_t k = 0; k < f.size(); ++k) add_file(f[k], fmt::format("{}[{}]", s.key_path("file"), k));
  } else if (f.IsSequence()) {
    throw_at(p.files_at, fmt::format("{} reads one file (its elements name the atom types)", p.style));
  } else {
    add_file(f, s.key_path("file"));
  }
  if (style.elements) {
    const YAML::Node e = s.node("elements");
    p.elements_at = s.where("elements");
    if (!e.IsSequence() || e.size() == 0)
      throw_at(p.elements_at, "expected a list of element names, one per atom type in type order, e.g. [Cu, Ni]");
    for (std::size_t k = 0; k < e.size(); ++k) {
      if (!e[k].IsScalar() || e[k].Scalar().empty())
        throw_at(location_of(e[k], s.file(), fmt::format("{}[{}]", s.key_path("elements"), k)),
                 "expected an element name as the potential file spells it");
      p.elements.push_back(e[k].Scalar());
    }
  }
  p.cutoff = style.file_cutoff(p);
  p.cutoff_at = p.files_at;
  if (s.has("cutoff")) {
    const double c = positive(s, "cutoff");
    if (std::abs(c - p.cutoff) > 1e-12 * p.cutoff)
      s.fail("cutoff", fmt::format("{} disagrees with the cutoff {:.17g} of the potential file; leave it out (the "
                                   "file sets it)",
                                   c, p.cutoff));
    p.cutoff_at = s.where("cutoff");
  }
  return p;
}

// Whether the deck's potential style takes its masses from its file: a
// look ahead for read_system, which comes first; read_potential checks the
// section in full.
bool potential_gives_masses(const YamlSection& top) {
  if (!top.has("potential")) return false;
  const YAML::Node potential = top.node("potential");
  if (!potential.IsMap()) return false;
  const YAML::Node style = static_cast<const YAML::Node&>(potential)["style"];
  if (!style || !style.IsScalar()) return false;
  const ManyBodyStyleEntry* mb = find_manybody_style(style.Scalar());
  return mb && mb->file_masses;
}

PotentialSpec read_potential(const YamlSection& s, const std::string& deck_dir) {
  if (const ManyBodyStyleEntry* mb = find_manybody_style(s.string("style"))) return read_manybody(s, *mb, deck_dir);
  s.only({"style", "cutoff", "shift", "mixing", "coeffs"});
  PotentialSpec p;
  p.style = s.string("style");
  const PairStyleEntry* entry = find_pair_style(p.style);
  if (!entry) {
    std::string known;
    for (const auto& e : pair_styles()) known += (known.empty() ? "" : ", ") + e.name;
    for (const auto& e : manybody_styles()) known += ", " + e.name;
    s.fail("style", fmt::format("unknown potential '{}' (known: {})", p.style, known));
  }
  p.cutoff = positive(s, "cutoff");
  p.cutoff_at = s.where("cutoff");
  p.shift = s.boolean("shift", false);
  const std::string mix = s.string("mixing", "lorentz-berthelot");
  if (mix == "lorentz-berthelot" || mix == "arithmetic")
    p.mixing = Mixing::kLorentzBerthelot;
  else if (mix == "geometric")
    p.mixing = Mixing::kGeometric;
  else if (mix == "none")
    p.mixing = Mixing::kNone;
  else
    s.fail("mixing",
           fmt::format("unknown mixing rule '{}' (known: lorentz-berthelot (or arithmetic), geometric, none)", mix));

  const YAML::Node list = s.node("coeffs");
  p.coeffs_at = s.where("coeffs");
  if (!list.IsSequence() || list.size() == 0)
    throw_at(p.coeffs_at, "expected a list of type-pair entries, e.g. - {types: [1, 1], ...}");
  for (std::size_t k = 0; k < list.size(); ++k) {
    const YamlSection e(list[k], s.file(), fmt::format("{}[{}]", s.key_path("coeffs"), k));
    CoeffEntry c;
    c.at = e.here();
    const YAML::Node t = e.node("types");
    if (!t.IsSequence() || t.size() != 2) e.fail("types", "expected two atom types [i, j]");
    const long long ti = to_integer(t[0], e.where("types")), tj = to_integer(t[1], e.where("types"));
    if (ti <= 0 || tj <= 0) e.fail("types", "atom types start at 1");
    if (ti > 1000 || tj > 1000) e.fail("types", fmt::format("atom types go up to 1000, got [{}, {}]", ti, tj));
    c.ti = static_cast<int>(ti);
    c.tj = static_cast<int>(tj);
    if (c.ti > c.tj) std::swap(c.ti, c.tj);
    for (std::size_t n = 0; n < entry->coeff_names.size(); ++n) c.coeffs.c[n] = e.number(entry->coeff_names[n]);
    c.coeffs.cutoff = e.has("cutoff") ? positive(e, "cutoff") : p.cutoff;
    if (const char* bad = entry->check(c.coeffs)) throw_at(c.at, fmt::format("{}: {}", p.style, bad));
    // Key check last, so that a missing coefficient is reported before a stray one.
    for (const auto& kv : list[k]) {
      const std::string name = kv.first.Scalar();
      bool ok = name == "types" || name == "cutoff";
      for (const auto& cn : entry->coeff_names) ok = ok || name == cn;
      if (!ok) {
        std::vector<std::string> allowed = {"types", "cutoff"};
        allowed.insert(allowed.end(), entry->coeff_names.begin(), entry->coeff_names.end());
        throw_at(location_of(kv.first, s.file(), e.key_path(name)),
                 fmt::format("unknown key for {}{} (allowed here: {})", p.style, did_you_mean(name, allowed),
                             fmt::join(allowed, ", ")));
      }
    }
    for (const auto& prev : p.coeffs)
      if (prev.ti == c.ti && prev.tj == c.tj)
        throw_at(c.at, fmt::format("type pair {} {} given twice (first at line {})", c.ti, c.tj, prev.at.line));
    p.coeffs.push_back(c);
  }
  return p;
}

// `bonds:` or `angles:` (which: "bond" or "angle").
BondedSpec read_bonded(const YamlSection& s, const char* which, const std::vector<BondedStyleEntry>& styles) {
  s.only();
  BondedSpec b;
  b.at = s.here();
  b.style = s.string("style");
  const BondedStyleEntry* entry = find_bonded_style(styles, b.style);
  if (!entry) {
    std::vector<std::string> known;
    for (const auto& e : styles) known.push_back(e.name);
    s.fail("style", fmt::format("unknown {} style '{}'{} (known: {})", which, b.style, did_you_mean(b.style, known),
                                fmt::join(known, ", ")));
  }
  if (!s.has("coeffs")) return b;
  const YAML::Node list = s.node("coeffs");
  if (!list.IsSequence())
    throw_at(s.where("coeffs"), fmt::format("expected a list of {} types, e.g. - {{type: 1, {}: ...}}", which,
                                            entry->coeff_names.front()));
  for (std::size_t k = 0; k < list.size(); ++k) {
    const YamlSection e(list[k], s.file(), fmt::format("{}[{}]", s.key_path("coeffs"), k));
    BondedSpec::Entry c;
    c.at = e.here();
    const long long t = to_integer(e.node("type"), e.where("type"));
    if (t <= 0 || t > 1000) e.fail("type", fmt::format("{} types go from 1 to 1000, got {}", which, t));
    c.type = static_cast<int>(t);
    BondedCoeffs bc;
    for (std::size_t n = 0; n < entry->coeff_names.size(); ++n) bc.c[n] = e.number(entry->coeff_names[n]);
    if (const char* bad = entry->check(bc)) throw_at(c.at, fmt::format("{} style {}: {}", which, b.style, bad));
    c.coeffs = bc.c;
    for (const auto& kv : list[k]) {
      const std::string name = kv.first.Scalar();
      bool ok = name == "type";
      for (const auto& cn : entry->coeff_names) ok = ok || name == cn;
      if (!ok) {
        std::vector<std::string> allowed = {"type"};
        allowed.insert(allowed.end(), entry->coeff_names.begin(), entry->coeff_names.end());
        throw_at(location_of(kv.first, s.file(), e.key_path(name)),
                 fmt::format("unknown key for {} style {}{} (allowed here: {})", which, b.style,
                             did_you_mean(name, allowed), fmt::join(allowed, ", ")));
      }
    }
    for (const auto& prev : b.coeffs)
      if (prev.type == c.type)
        throw_at(c.at, fmt::format("{} type {} given twice (first at line {})", which, c.type, prev.at.line));
    b.coeffs.push_back(c);
  }
  return b;
}

// special_bonds: {lj: [f12, f13, f14]}, or `fene` (0 1 1), as LAMMPS.
SpecialBondsSpec read_special_bonds(const YamlSection& top) {
  SpecialBondsSpec sb;
  sb.at = top.where("special_bonds");
  const YAML::Node n = top.node("special_bonds");
  if (n.IsScalar()) {
    if (n.Scalar() != "fene")
      throw_at(sb.at, fmt::format("unknown special_bonds preset '{}' (known: fene; or give {{lj: [f12, f13, f14]}})",
                                  n.Scalar()));
    sb.lj[0] = 0, sb.lj[1] = 1, sb.lj[2] = 1;
    return sb;
  }
  const YamlSection s = top.section("special_bonds");
  s.only();
  const YAML::Node lj = s.node("lj");
  if (!lj.IsSequence() || lj.size() != 3)
    s.fail("lj", "expected three factors [1-2, 1-3, 1-4], each from 0 to 1, e.g. [0, 1, 1]");
  for (int k = 0; k < 3; ++k) {
    sb.lj[k] = to_number(lj[k], s.where("lj"));
    if (!(sb.lj[k] >= 0 && sb.lj[k] <= 1))
      s.fail("lj", fmt::format("factor {} is {}; each factor lies from 0 to 1", k + 1, sb.lj[k]));
  }
  return sb;
}

NeighborSpec read_neighbor(const YamlSection& s, const Units& units) {
  s.only();
  NeighborSpec n;
  n.skin = s.number("skin", units.skin_default);
  n.skin_at = s.where("skin");
  if (n.skin < 0) s.fail("skin", fmt::format("must not be negative, got {}", n.skin));
  n.every = static_cast<int>(s.has("every") ? positive_int(s, "every", 1000000) : 1);
  const long long delay = s.integer("delay", 0);
  if (delay < 0 || delay > 1000000) s.fail("delay", fmt::format("must be between 0 and 1000000, got {}", delay));
  n.delay = static_cast<int>(delay);
  n.check = s.boolean("check", true);
  n.sort = s.boolean("sort", true);
  n.sort_every = static_cast<int>(s.has("sort_every") ? positive_int(s, "sort_every", 1000000000) : 1000);
  n.layout = s.string("layout", "rows");
  n.list = s.string("list", "full");
  n.list_at = s.where("list");
  if (n.list != "half" && n.list != "full")
    s.fail("list", fmt::format("unknown list '{}' (known: full, half)", n.list));
  n.ghost_cutoff = s.number("ghost_cutoff", 0.0);
  n.ghost_cutoff_at = s.where("ghost_cutoff");
  if (n.ghost_cutoff < 0) s.fail("ghost_cutoff", fmt::format("must not be negative, got {}", n.ghost_cutoff));
  if (n.layout != "rows" && n.layout != "clusters")
    s.fail("layout", fmt::format("unknown layout '{}' (known: rows, clusters)", n.layout));
  return n;
}

std::vector<std::array<int, 2>> read_type_pairs(const YamlSection& s, const std::string& key) {
  const YAML::Node list = s.node(key);
  const DeckLocation at = s.where(key);
  if (!list.IsSequence() || list.size() == 0)
    throw_at(at, "expected a list of [centre type, neighbour type] pairs, e.g. [[1, 1], [1, 2]]");
  std::vector<std::array<int, 2>> pairs;
  for (std::size_t k = 0; k < list.size(); ++k) {
    const DeckLocation ak = location_of(list[k], s.file(), fmt::format("{}[{}]", at.key, k));
    if (!list[k].IsSequence() || list[k].size() != 2) throw_at(ak, "expected two atom types [centre, neighbour]");
    std::array<int, 2> p{};
    for (int e = 0; e < 2; ++e) {
      const long long t = to_integer(list[k][e], ak);
      if (t < 1 || t > 1000) throw_at(ak, fmt::format("atom types go from 1 to 1000, got {}", t));
      p[e] = static_cast<int>(t);
    }
    if (std::find(pairs.begin(), pairs.end(), p) != pairs.end())
      throw_at(ak, fmt::format("type pair [{}, {}] given twice", p[0], p[1]));
    pairs.push_back(p);
  }
  return pairs;
}

// g(r) and the MSD go to the H5MD trajectory's observables/, so they need one.
AnalysisSpec read_analysis(const YamlSection& top, const TrajectorySpec& trajectory) {
  const YamlSection s = top.section("analysis");
  s.only();
  if (!s.has("rdf") && !s.has("msd")) s.fail_here("give 'rdf', 'msd' or both");
  if (!trajectory.enabled())
    top.fail("analysis",
             "needs output.trajectory: g(r) and the MSD are written to the observables/ group of its H5MD file");
  const auto every = [&](const YamlSection& x) {
    return x.has("every") ? static_cast<long>(positive_int(x, "every", 1000000000)) : trajectory.every;
  };
  AnalysisSpec a;
  if (s.has("rdf")) {
    const YamlSection r = s.section("rdf");
    r.only();
    RdfSpec rdf;
    rdf.every = every(r);
    if (r.has("bins")) rdf.bins = static_cast<int>(positive_int(r, "bins", 100000));
    if (r.has("r_max")) rdf.r_max = positive(r, "r_max");
    rdf.r_max_at = r.where("r_max");
    rdf.pairs_at = r.where("pairs");
    if (r.has("pairs")) rdf.pairs = read_type_pairs(r, "pairs");
    // Each thread keeps a histogram of rows x bins while counting.
    if ((rdf.pairs.size() + 1) * static_cast<std::size_t>(rdf.bins) > 1000000)
      r.fail("bins", fmt::format("{} bins for {} histograms (all atoms and {} type pairs) exceed 1,000,000", rdf.bins,
                                 rdf.pairs.size() + 1, rdf.pairs.size()));
    a.rdf = rdf;
  }
  if (s.has("msd")) {
    const YamlSection m = s.section("msd");
    m.only();
    a.msd = MsdSpec{every(m)};
  }
  return a;
}

// `coupling` of npt/nph and of a barostat block: iso (the default) or aniso.
PressureCoupling read_coupling(const YamlSection& s) {
  const std::string c = s.string("coupling", "iso");
  if (c == "aniso") return PressureCoupling::kAniso;
  if (c != "iso") s.fail("coupling", fmt::format("unknown coupling '{}' (known: iso, aniso)", c));
  return PressureCoupling::kIso;
}

// integrator.barostat: the stochastic cell rescaling barostat beside a
// langevin or nose-hoover thermostat.
void read_cell_rescale(const YamlSection& b, IntegratorSpec& in) {
  b.only({"style", "pressure", "damping", "compressibility", "coupling", "seed"});
  const std::string style = b.string("style");
  if (style != "c-rescale")
    b.fail("style", fmt::format("unknown barostat '{}' (known: c-rescale; npt and nph are integrator styles)", style));
  in.c_rescale = true;
  ramp(b, "pressure", in.pressure, in.pressure_stop);
  in.pressure_damping = positive(b, "damping");
  if (!std::isfinite(in.pressure_damping)) b.fail("damping", "must be finite");
  damping_steps(b, "damping", in.pressure_damping, in.dt);
  in.compressibility = positive(b, "compressibility");
  if (!std::isfinite(in.compressibility)) b.fail("compressibility", "must be finite");
  in.coupling = read_coupling(b);
  // Langevin's seed keys the barostat too (on its own stream); nose-hoover
  // has none to lend.
  if (b.has("seed"))
    in.barostat_seed = b.seed("seed");
  else if (in.style == IntegratorStyle::kLangevin)
    in.barostat_seed = in.seed;
  else
    b.fail_here("the 'seed' of the barostat's noise is required with nose-hoover (langevin lends its own)");
}

IntegratorSpec read_integrator(const YamlSection& s, const Units& units) {
  IntegratorSpec in;
  in.dt = units.dt_default;
  const std::string style = s.string("style");
  if (s.has("barostat") && style != "langevin" && style != "nose-hoover")
    s.fail("barostat",
           style == "npt" || style == "nph"
               ? fmt::format("{} has its own barostat (pressure, pressure_damping); a barostat block goes with "
                             "style langevin or nose-hoover",
                             style)
               : fmt::format("a barostat needs a thermostat: give it with style langevin or nose-hoover, not {}", style));
  if (style == "nve") {
    in.style = IntegratorStyle::kNve;
    s.only({"style", "dt"});
  } else if (style == "langevin") {
    in.style = IntegratorStyle::kLangevin;
    s.only({"style", "dt", "temperature", "damping", "seed", "barostat"});
  } else if (style == "nose-hoover") {
    in.style = IntegratorStyle::kNoseHoover;
    s.only({"style", "dt", "temperature", "damping", "chain", "barostat"});
  } else if (style == "npt") {
    in.style = IntegratorStyle::kNpt;
    s.only({"style", "dt", "temperature", "damping", "chain", "pressure", "pressure_damping", "pressure_chain",
            "coupling", "mtk", "drag", "max_volume_change"});
  } else if (style == "nph") {
    in.style = IntegratorStyle::kNph;
    s.only({"style", "dt", "pressure", "pressure_damping", "pressure_chain", "coupling", "mtk", "drag",
            "max_volume_change"});
  } else {
    s.fail("style", fmt::format("unknown integrator '{}' (known: nve, langevin, nose-hoover, npt, nph)", style));
  }
  if (s.has("dt")) in.dt = positive(s, "dt");
  if (in.style != IntegratorStyle::kNve && in.style != IntegratorStyle::kNph) {
    if (in.style == IntegratorStyle::kNpt)
      ramp(s, "temperature", in.temperature, in.temperature_stop);
    else
      in.temperature = in.temperature_stop = positive(s, "temperature");
    in.damping = positive(s, "damping");
    if (in.barostat()) damping_steps(s, "damping", in.damping, in.dt);
  }
  if (in.style == IntegratorStyle::kLangevin) in.seed = s.seed("seed");
  if (in.chain_thermostat()) in.chain = static_cast<int>(s.has("chain") ? positive_int(s, "chain", 10) : 3);
  if (in.barostat()) {
    ramp(s, "pressure", in.pressure, in.pressure_stop);
    in.pressure_damping = positive(s, "pressure_damping");
    damping_steps(s, "pressure_damping", in.pressure_damping, in.dt);
    if (s.has("pressure_chain")) {
      const long long n = s.integer("pressure_chain");
      if (n < 0 || n > 10) s.fail("pressure_chain", fmt::format("must be 0 (none) .. 10, got {}", n));
      in.pressure_chain = static_cast<int>(n);
    }
    in.coupling = read_coupling(s);
    in.mtk = s.boolean("mtk", true);
    in.drag = s.number("drag", 0.0);
    if (!(in.drag >= 0) || !std::isfinite(in.drag)) s.fail("drag", fmt::format("must be >= 0, got {}", in.drag));
    in.max_volume_change = s.number("max_volume_change", in.max_volume_change);
    if (!(in.max_volume_change > 0 && in.max_volume_change < 1))
      s.fail("max_volume_change", fmt::format("must be a fraction > 0 and < 1, got {}", in.max_volume_change));
  }
  if (s.has("barostat")) read_cell_rescale(s.section("barostat"), in);
  return in;
}

ThermoSpec read_thermo(const YamlSection& s) {
  s.only();
  ThermoSpec t;
  t.every = s.integer("every", 0);
  if (t.every < 0) s.fail("every", fmt::format("must be 0 (first and last step only) or positive, got {}", t.every));
  t.file = s.string("file", "");
  t.screen = s.boolean("screen", true);
  if (s.has("columns")) {
    const YAML::Node n = s.node("columns");
    const DeckLocation at = s.where("columns");
    if (!n.IsSequence() || n.size() == 0) throw_at(at, "expected a list of column names, e.g. [step, temp, press, vol]");
    const auto& known = thermo_column_names();
    for (std::size_t k = 0; k < n.size(); ++k) {
      const DeckLocation ak = location_of(n[k], s.file(), fmt::format("{}[{}]", at.key, k));
      if (!n[k].IsScalar()) throw_at(ak, "expected a column name");
      const std::string name = n[k].as<std::string>();
      if (std::find(known.begin(), known.end(), name) == known.end())
        throw_at(ak, fmt::format("unknown thermo column '{}' (known: {})", name, fmt::join(known, ", ")));
      if (std::find(t.columns.begin(), t.columns.end(), name) != t.columns.end())
        throw_at(ak, fmt::format("column '{}' is listed twice", name));
      t.columns.push_back(name);
    }
  }
  return t;
}

// Seconds, or "HH:MM:SS" / "MM:SS" as Slurm's --time writes them (also
// "D-HH:MM:SS").
double read_duration(const YamlSection& s, const std::string& key) {
  const YAML::Node n = s.node(key);
  const DeckLocation at = s.where(key);
  const std::string text = n.IsScalar() ? n.Scalar() : std::string();
  double seconds = -1;
  if (text.find(':') == std::string::npos) {
    char* end = nullptr;
    seconds = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0') seconds = -1;
  } else {
    long days = 0, a = 0, b = 0, c = 0;
    char tail = 0;
    if (std::sscanf(text.c_str(), "%ld-%ld:%ld:%ld%c", &days, &a, &b, &c, &tail) == 4)
      seconds = ((days * 24.0 + a) * 60.0 + b) * 60.0 + c;
    else if (std::sscanf(text.c_str(), "%ld:%ld:%ld%c", &a, &b, &c, &tail) == 3)
      seconds = (a * 60.0 + b) * 60.0 + c;
    else if (std::sscanf(text.c_str(), "%ld:%ld%c", &a, &b, &tail) == 2)
      seconds = a * 60.0 + b;
    if (a < 0 || b < 0 || c < 0 || days < 0) seconds = -1;
  }
  if (!(seconds > 0) || !std::isfinite(seconds))
    throw_at(at, fmt::format("expected a positive number of seconds or HH:MM:SS, got '{}'", text));
  return seconds;
}

CheckpointSpec read_checkpoint(const YamlSection& s) {
  s.only();
  CheckpointSpec c;
  c.every = s.integer("every", 0);
  if (c.every < 0) s.fail("every", fmt::format("must be 0 (off) or positive, got {}", c.every));
  c.every_seconds = s.number("every_seconds", 0);
  if (!(c.every_seconds >= 0) || !std::isfinite(c.every_seconds))
    s.fail("every_seconds", fmt::format("must be 0 (off) or a positive number of seconds, got {}", c.every_seconds));
  c.path = s.string("path");
  if (c.path.empty()) s.fail("path", "must name a folder");
  const long long keep = s.integer("keep", 2);
  if (keep < 1 || keep > 1000000) s.fail("keep", fmt::format("must be between 1 and 1000000, got {}", keep));
  c.keep = static_cast<int>(keep);
  return c;
}

TrajectorySpec read_trajectory(const YamlSection& s) {
  s.only();
  TrajectorySpec t;
  t.every = s.integer("every");
  if (t.every <= 0) s.fail("every", fmt::format("must be positive, got {}", t.every));
  t.file = s.string("file");
  if (t.file.empty()) s.fail("file", "must name a file");
  if (s.has("fields")) {
    const YAML::Node f = s.node("fields");
    const DeckLocation at = s.where("fields");
    if (!f.IsSequence() || f.size() == 0) throw_at(at, "expected a non-empty list such as [position, velocity]");
    t.position = t.velocity = t.image = t.force = false;
    for (const auto& item : f) {
      const DeckLocation item_at = location_of(item, s.file(), s.key_path("fields"));
      const std::string name = item.IsScalar() ? item.Scalar() : std::string();
      if (name == "position")
        t.position = true;
      else if (name == "velocity")
        t.velocity = true;
      else if (name == "image")
        t.image = true;
      else if (name == "force")
        t.force = true;
      else
        throw_at(item_at, fmt::format("unknown field '{}' (known: position, velocity, image, force)", name));
    }
  }
  return t;
}

// Whether two paths name one file: the same file where both exist (links
// included), else the same absolute path.
bool same_file(const std::string& a, const std::string& b) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec)) return fs::equivalent(a, b, ec);
  return fs::absolute(a, ec).lexically_normal() == fs::absolute(b, ec).lexically_normal();
}

// A run writes its trajectory's topology beside it, as the trajectory's name
// with .data (io/topology_writer.hpp): that must not overwrite the deck's
// data file, the trajectory itself or another output.
void check_topology_path(const Deck& d, const DeckLocation& at) {
  const std::string topology = topology_path(d.trajectory.file);
  const std::pair<const char*, const std::string*> others[] = {
      {"system.read_data", &d.system.read_data}, {"output.trajectory.file", &d.trajectory.file},
      {"output.thermo.file", &d.thermo.file},    {"output.metrics.file", &d.metrics.file},
      {"output.dump.file", &d.dump.file},        {"output.xyz.file", &d.xyz.file}};
  for (const auto& [key, file] : others)
    if (!file->empty() && same_file(topology, *file))
      throw_at(at, fmt::format("the run writes the trajectory's topology (a LAMMPS data file, the trajectory's name "
                               "with .data) to {}, which is also {}: give the trajectory another name",
                               topology, key));
}

// output.dump and output.xyz. Both need coordinates (viewers place atoms by
// them); extended XYZ has one `pos` column, so it takes one kind.
ExportSpec read_export(const YamlSection& s, bool xyz) {
  s.only();
  ExportSpec e;
  e.every = s.integer("every");
  if (e.every <= 0) s.fail("every", fmt::format("must be positive, got {}", e.every));
  e.file = s.string("file");
  if (e.file.empty()) s.fail("file", "must name a file");
  if (s.has("fields")) {
    const YAML::Node f = s.node("fields");
    const DeckLocation at = s.where("fields");
    if (!f.IsSequence() || f.size() == 0) throw_at(at, "expected a non-empty list such as [position, velocity]");
    e.position = false;
    for (const auto& item : f) {
      const DeckLocation item_at = location_of(item, s.file(), s.key_path("fields"));
      const std::string name = item.IsScalar() ? item.Scalar() : std::string();
      bool* flag = name == "position"    ? &e.position
                   : name == "unwrapped" ? &e.unwrapped
                   : name == "image"     ? &e.image
                   : name == "velocity"  ? &e.velocity
                   : name == "force"     ? &e.force
                                         : nullptr;
      if (!flag)
        throw_at(item_at, fmt::format("unknown field '{}' (known: position, unwrapped, image, velocity, force)", name));
      if (*flag) throw_at(item_at, fmt::format("field '{}' is listed twice", name));
      *flag = true;
    }
    if (!e.position && !e.unwrapped) throw_at(at, "needs 'position' or 'unwrapped': viewers place atoms by them");
    if (xyz && e.position && e.unwrapped)
      throw_at(at, "give 'position' or 'unwrapped', not both: extended XYZ has one 'pos' column");
  }
  if (s.has("species")) {
    const YAML::Node n = s.node("species");
    e.species_at = s.where("species");
    if (!n.IsSequence() || n.size() == 0)
      throw_at(e.species_at, "expected a list of names, one per atom type: [Ar, Kr, ...]");
    for (std::size_t k = 0; k < n.size(); ++k) {
      const DeckLocation ak = location_of(n[k], s.file(), fmt::format("{}[{}]", e.species_at.key, k));
      const std::string name = n[k].IsScalar() ? n[k].Scalar() : std::string();
      // A name is one whitespace-separated column of the file.
      if (name.empty() || name.find_first_of(" \t\r\n\"'=:") != std::string::npos)
        throw_at(ak, fmt::format("'{}' is not usable as a species name (one word, no quotes, '=' or ':')", name));
      e.species.push_back(name);
    }
  }
  return e;
}

// output.data: a LAMMPS data file of the current state. Its file must not
// be one the run reads or writes otherwise.
DataSpec read_data_output(const YamlSection& s, const Deck& d) {
  s.only();
  DataSpec out;
  out.file = s.string("file");
  if (out.file.empty()) s.fail("file", "must name a file");
  if (s.has("every")) out.every = positive_int(s, "every", 1000000000);
  if (out.file.find('*') != std::string::npos) return out;  // one file per step
  const std::string topology = d.trajectory.enabled() ? topology_path(d.trajectory.file) : std::string();
  const std::pair<const char*, const std::string*> others[] = {
      {"system.read_data", &d.system.read_data},    {"output.trajectory.file", &d.trajectory.file},
      {"output.thermo.file", &d.thermo.file},       {"output.metrics.file", &d.metrics.file},
      {"output.dump.file", &d.dump.file},           {"output.xyz.file", &d.xyz.file},
      {"the trajectory's topology file", &topology}};
  for (const auto& [key, file] : others)
    if (!file->empty() && same_file(out.file, *file))
      s.fail("file", fmt::format("{} is also {}: give the data file another name", out.file, key));
  return out;
}

MetricsSpec read_metrics(const YamlSection& s) {
  s.only();
  MetricsSpec m;
  m.file = s.string("file");
  if (m.file.empty()) s.fail("file", "must name a file");
  if (s.has("every")) m.every = positive_int(s, "every", 1000000000);
  m.every_seconds = s.number("every_seconds", 0.0);
  if (!(m.every_seconds >= 0) || !std::isfinite(m.every_seconds))
    s.fail("every_seconds", fmt::format("must be a number of seconds >= 0, got {}", m.every_seconds));
  if (m.every == 0 && m.every_seconds == 0) s.fail("file", "needs 'every' (steps) or 'every_seconds', or both");
  return m;
}

}  // namespace

Deck parse_deck(const std::string& text, const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    DeckLocation at;
    at.file = path;
    if (e.mark.line >= 0) {
      at.line = e.mark.line + 1;
      at.column = e.mark.column + 1;
    }
    throw_at(at, "YAML syntax error: " + e.msg);
  }
  if (!root || root.IsNull()) throw InputError(path + ": the deck is empty");
  Deck d;
  d.path = path;
  d.text = text;
  const std::string dir = std::filesystem::path(path).parent_path().string();
  const YamlSection top(root, path, "");
  top.only();
  d.units = top.string("units", "lj");
  const Units* units = find_units(d.units);
  if (!units) top.fail("units", unknown_units(d.units));
  d.backend = top.string("backend", "auto");
  if (d.backend != "auto" && d.backend != "cpu" && d.backend != "cuda")
    top.fail("backend", fmt::format("unknown backend '{}' (known: auto, cpu, cuda)", d.backend));
  d.precision = top.string("precision", "double");
  if (d.precision != "double" && d.precision != "mixed")
    top.fail("precision", fmt::format("unknown precision '{}' (known: double, mixed)", d.precision));
  d.cuda_aware_mpi = top.string("cuda_aware_mpi", "auto");
  if (d.cuda_aware_mpi != "auto" && d.cuda_aware_mpi != "on" && d.cuda_aware_mpi != "off")
    top.fail("cuda_aware_mpi", fmt::format("unknown value '{}' (known: auto, on, off)", d.cuda_aware_mpi));
  d.peer_copies = top.string("peer_copies", "off");
  if (d.peer_copies != "auto" && d.peer_copies != "off")
    top.fail("peer_copies", fmt::format("unknown value '{}' (known: auto, off)", d.peer_copies));
  const long long threads = top.integer("threads", 0);
  if (threads < 0 || threads > 4096) top.fail("threads", "must be between 0 (default) and 4096");
  d.threads = static_cast<int>(threads);
  d.system = read_system(top.section("system"), dir, *units, potential_gives_masses(top));
  if (top.has("velocity")) d.velocity = read_velocity(top.section("velocity"));
  d.potential = read_potential(top.section("potential"), dir);
  if (top.has("bonds")) d.bonds = read_bonded(top.section("bonds"), "bond", bond_styles());
  if (top.has("angles")) d.angles = read_bonded(top.section("angles"), "angle", angle_styles());
  if (top.has("special_bonds")) d.special_bonds = read_special_bonds(top);
  if (top.has("neighbor")) {
    d.neighbor = read_neighbor(top.section("neighbor"), *units);
  } else {
    d.neighbor.skin = units->skin_default;
    d.neighbor.skin_at = top.where("neighbor");
  }
  d.integrator = read_integrator(top.section("integrator"), *units);
  const YamlSection run = top.section("run");
  run.only();
  d.steps = run.integer("steps");
  d.integrator.ramp_steps = d.steps;
  if (d.steps < 0) run.fail("steps", fmt::format("must not be negative, got {}", d.steps));
  if (run.has("max_walltime")) d.max_walltime = read_duration(run, "max_walltime");
  d.stop_margin = run.number("stop_margin", 60.0);
  if (!(d.stop_margin >= 0) || !std::isfinite(d.stop_margin))
    run.fail("stop_margin", fmt::format("must be a number of seconds >= 0, got {}", d.stop_margin));
  if (top.has("output")) {
    const YamlSection out = top.section("output");
    out.only();
    if (out.has("thermo")) d.thermo = read_thermo(out.section("thermo"));
    if (out.has("checkpoint")) d.checkpoint = read_checkpoint(out.section("checkpoint"));
    if (out.has("trajectory")) d.trajectory = read_trajectory(out.section("trajectory"));
    if (out.has("metrics")) d.metrics = read_metrics(out.section("metrics"));
    if (out.has("dump")) d.dump = read_export(out.section("dump"), false);
    if (out.has("xyz")) d.xyz = read_export(out.section("xyz"), true);
    if (d.trajectory.enabled()) check_topology_path(d, out.section("trajectory").where("file"));
    if (out.has("data")) d.data = read_data_output(out.section("data"), d);
  }
  if (top.has("decomposition")) {
    const YAML::Node n = top.node("decomposition");
    d.decomposition_at = top.where("decomposition");
    if (!n.IsSequence() || n.size() != 3) throw_at(d.decomposition_at, "expected [nx, ny, nz], ranks along each axis");
    for (int k = 0; k < 3; ++k) {
      const long long v = to_integer(n[k], d.decomposition_at);
      if (v < 1 || v > 100000) throw_at(d.decomposition_at, fmt::format("each count must be 1 .. 100000, got {}", v));
      d.decomposition[k] = static_cast<int>(v);
    }
  }
  if (top.has("gpu_ids")) {
    const YAML::Node n = top.node("gpu_ids");
    d.gpu_ids_at = top.where("gpu_ids");
    if (!n.IsSequence() || n.size() == 0 || n.size() > 4096)
      throw_at(d.gpu_ids_at, "expected a list of GPU indices, one per local rank in turn (e.g. [0, 1, 2, 3])");
    for (std::size_t k = 0; k < n.size(); ++k) {
      const long long v = to_integer(n[k], d.gpu_ids_at);
      if (v < 0 || v > 1023) throw_at(d.gpu_ids_at, fmt::format("a GPU index is 0 .. 1023, got {}", v));
      d.gpu_ids.push_back(static_cast<int>(v));
    }
  }
  if (top.has("load_balance")) {
    const YamlSection lb = top.section("load_balance");
    lb.only();
    d.load_balance.every = positive_int(lb, "every", 100000000);
    d.load_balance.threshold = lb.number("threshold", d.load_balance.threshold);
    if (!(d.load_balance.threshold >= 1) || !std::isfinite(d.load_balance.threshold))
      lb.fail("threshold", fmt::format("must be a ratio >= 1 (max / mean cost), got {}", d.load_balance.threshold));
    const std::string by = lb.string("by", "time");
    if (by != "time" && by != "atoms") lb.fail("by", fmt::format("unknown cost '{}' (known: time, atoms)", by));
    d.load_balance.by_time = by == "time";
  }
  if (top.has("analysis")) d.analysis = read_analysis(top, d.trajectory);
  d.restart = top.string("restart", "");
  if (!d.restart.empty() && d.restart != "auto")
    top.fail("restart", fmt::format("must be 'auto' (the newest good checkpoint in output.checkpoint.path, or a "
                                    "fresh start), got '{}'; name a file with --restart FILE instead",
                                    d.restart));
  // A moving box shows its volume by default.
  if (d.thermo.columns.empty()) {
    d.thermo.columns = default_thermo_columns();
    if (d.integrator.moves_box()) d.thermo.columns.push_back("vol");
  }
  if (d.restart == "auto" && !d.checkpoint.enabled())
    top.fail("restart", "'auto' needs output.checkpoint.path, the folder to look in");
  return d;
}

Deck load_deck(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open the deck file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_deck(ss.str(), path);
}

}  // namespace tessera
