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
  u.normalize_thermo = true;
  u.symbols = {"epsilon", "sigma", "tau", "m", "epsilon/k_B", "epsilon/sigma^3"};
  u.h5md = {};
  return u;
}

// metal and real become one function each, once runs in them are checked
// against LAMMPS (a name in this table is a name the deck accepts). LAMMPS's
// update.cpp has (boltz, mvv2e, ftm2v, nktv2p; dt, skin; thermo norm):
//   metal: 8.617343e-5, 1.0364269e-4, 1/1.0364269e-4, 1.6021765e6; 0.001 ps, 2.0 A; no
//   real:  0.0019872067, 48.88821291^2, 1/48.88821291^2, 68568.415; 1.0 fs, 2.0 A; no
// Their H5MD symbols are to be checked against the H5MD units module and
// what MDAnalysis reads.
const std::vector<Units>& table() {
  static const std::vector<Units> t = {lj()};
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
