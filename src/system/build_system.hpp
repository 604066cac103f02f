#pragma once
#include <string>
#include <vector>

#include "atoms/atom_store.hpp"
#include "core/units.hpp"
#include "deck/deck.hpp"
#include "domain/box.hpp"

namespace tessera {

struct BuiltSystem {
  Box box;
  AtomStore atoms;  // local atoms, all of them on one rank
  bool has_velocities = false;
  long long natoms_total = 0;
};

// Atoms on a sc/bcc/fcc lattice; ids count up in x-fastest order, as LAMMPS's create_atoms does.
BuiltSystem build_lattice(const LatticeSpec& lattice, int ntypes, const std::vector<double>& masses);

// LAMMPS data file, atomic style, orthorhombic box. Errors name file, line and section.
BuiltSystem read_lammps_data(const std::string& path, const std::vector<double>& deck_masses);

// Velocities drawn per global id from a counter-based generator, so every
// rank layout draws the same set; zero total momentum, scaled to exactly T
// with 3N-3 degrees of freedom.
void create_velocities(AtomStore& atoms, double temperature, std::uint64_t seed, const Units& units);

// The whole system the deck describes, checked against the potential
// (types, cutoff + skin within half the box).
BuiltSystem build_system(const Deck& deck, const Units& units);

}  // namespace tessera
