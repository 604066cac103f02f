#pragma once
// The unit system's constants, one table per system (LAMMPS's `units`
// command). Every place that converts between quantities takes the table,
// or the factors it needs from it, as an argument: nothing looks it up
// behind the caller's back, and host-device functors get plain doubles.
#include <string>
#include <string_view>

namespace tessera {

// How outputs name each quantity's unit.
struct UnitNames {
  std::string energy, length, time, mass, temperature, pressure, density;
};

struct Units {
  std::string name;     // as the deck's `units` key gives it
  double boltz;         // Boltzmann's constant, energy per temperature
  double mvv2e;         // mass * velocity^2 to energy
  double ftm2v;         // force / mass * time to velocity
  double nktv2p;        // energy / volume to pressure
  double mv2d;          // mass / volume to density
  double dt_default;    // integrator.dt when the deck gives none
  double skin_default;  // neighbor.skin when the deck gives none
  double time_in_ns;    // one time unit in ns, for ns/day; 0 in reduced units (tau/day)
  // Thermo energies per atom (LAMMPS's thermo_modify norm, whose default is
  // yes for lj only); otherwise totals.
  bool normalize_thermo;
  // Reduced units (lj): every quantity a pure number in the model's own
  // scale, so outputs carry no unit labels; physical systems label them.
  bool reduced;
  UnitNames symbols;  // for people: messages, summaries, output headers
  // The strings H5MD's units module accepts ("nm", "ps"); empty where H5MD
  // has none, as for every lj unit: then no `unit` attribute is written.
  UnitNames h5md;
};

// The table for `name`; nullptr when there is none.
const Units* find_units(std::string_view name);
// The table for `name`; throws InputError (unknown_units's message) when
// there is none.
const Units& units_for(std::string_view name);
// "unknown units 'x' (...)", naming the systems there are.
std::string unknown_units(std::string_view name);

}  // namespace tessera
