#include "core/units.hpp"

#include <fmt/format.h>

#include <vector>

#include "core/error.hpp"

namespace tessera {

namespace {
// Reduced Lennard-Jones units: sigma, epsilon, the mass and k_B are 1, so
// every factor is exactly 1 and multiplying by it changes no bit.
Units lj() {
  Units u;
  u.name = "lj";
  u.boltz = 1.0;
  u.mvv2e = 1.0;
  u.ftm2v = 1.0;
  u.nktv2p = 1.0;
  u.mv2d = 1.0;
  u.dt_default = 0.005;
  u.skin_default = 0.3;
  u.time_in_ns = 0;
  u.normalize_thermo = true;
  u.reduced = true;
  u.symbols = {"epsilon", "sigma", "tau", "m", "epsilon/k_B", "epsilon/sigma^3", "m/sigma^3"};
  u.h5md = {};
  return u;
}

// LAMMPS's `units metal` and `units real`, factor for factor as its
// update.cpp (29 Sep 2021, the Debian package the references come from)
// sets them, so the same inputs give the same numbers. Totals, not per-atom
// values, in thermo (LAMMPS's thermo_modify norm default for these).
// Their H5MD strings are those of the H5MD units module that MDAnalysis's
// H5MD reader also knows; where it knows none (an energy in eV, and so a
// force in eV/A), the attribute is left out, since an unknown string stops
// MDAnalysis from reading the file at all.
Units metal() {
  Units u;
  u.name = "metal";
  u.boltz = 8.617343e-5;
  u.mvv2e = 1.0364269e-4;
  u.ftm2v = 1.0 / 1.0364269e-4;
  u.nktv2p = 1.6021765e6;
  u.mv2d = 1.0 / 0.602214129;
  u.dt_default = 0.001;
  u.skin_default = 2.0;
  u.time_in_ns = 1e-3;
  u.normalize_thermo = false;
  u.reduced = false;
  u.symbols = {"eV", "A", "ps", "g/mol", "K", "bar", "g/cm^3"};
  u.h5md = {"", "Angstrom", "ps", "", "K", "", ""};
  return u;
}

Units real() {
  Units u;
  u.name = "real";
  u.boltz = 0.0019872067;
  u.mvv2e = 48.88821291 * 48.88821291;
  u.ftm2v = 1.0 / 48.88821291 / 48.88821291;
  u.nktv2p = 68568.415;
  u.mv2d = 1.0 / 0.602214129;
  u.dt_default = 1.0;
  u.skin_default = 2.0;
  u.time_in_ns = 1e-6;
  u.normalize_thermo = false;
  u.reduced = false;
  u.symbols = {"kcal/mol", "A", "fs", "g/mol", "K", "atm", "g/cm^3"};
  u.h5md = {"kcal mol-1", "Angstrom", "fs", "", "K", "", ""};
  return u;
}

const std::vector<Units>& table() {
  static const std::vector<Units> t = {lj(), metal(), real()};
  return t;
}
}  // namespace

const Units* find_units(std::string_view name) {
  for (const Units& u : table())
    if (u.name == name) return &u;
  return nullptr;
}

const Units& units_for(std::string_view name) {
  if (const Units* u = find_units(name)) return *u;
  throw InputError(unknown_units(name));
}

std::string unknown_units(std::string_view name) {
  if (table().size() == 1) return fmt::format("unknown units '{}' (only '{}' is supported)", name, table()[0].name);
  std::string known;
  for (const Units& u : table()) known += (known.empty() ? "" : ", ") + u.name;
  return fmt::format("unknown units '{}' (known: {})", name, known);
}

}  // namespace tessera
