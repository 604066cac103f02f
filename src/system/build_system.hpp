#pragma once
#include <string>
#include <vector>

#include "atoms/atom_store.hpp"
#include "bonded/bonded_coeffs.hpp"
#include "core/units.hpp"
#include "deck/deck.hpp"
#include "domain/box.hpp"

namespace tessera {

// Molecular topology as global lists, as a LAMMPS data file gives it (or a
// builder makes it). build_system places it on the atoms' molecular fields
// (system/place_topology.hpp), where the engine carries it.
struct MolecularTopology {
  struct Bond {
    AtomId id;
    int type;
    AtomId atom[2];
  };
  struct Angle {
    AtomId id;
    int type;
    AtomId atom[3];  // atom[1] is the vertex, as in LAMMPS
  };
  // Molecule id per local atom (the AtomStore's order); empty for atomic data.
  std::vector<AtomId> molecule;
  int nbond_types = 0, nangle_types = 0;
  std::vector<Bond> bonds;
  std::vector<Angle> angles;
  // Coefficients from the Bond Coeffs / Angle Coeffs sections, indexed by
  // type (0 unused; empty rows when the file has no such section), and the
  // style named in the section's comment ("Bond Coeffs # fene"), if any.
  std::vector<std::vector<double>> bond_coeffs, angle_coeffs;
  std::string bond_style, angle_style;
  bool empty() const { return bonds.empty() && angles.empty(); }
};

struct BuiltSystem {
  Box box;
  AtomStore atoms;  // local atoms, all of them on one rank
  bool has_velocities = false;
  long long natoms_total = 0;
  MolecularTopology topology;
  // Coefficients of bond and angle types 1..n (index 0 unused), from the
  // deck or the data file: what the bonded forces are made from.
  std::vector<BondedCoeffs> bond_coeffs, angle_coeffs;
  // Lines for the user that are no errors (a mass the potential file
  // overrode: system/potential_masses.hpp), printed once by the run.
  std::vector<std::string> notes;
};

// Atoms on a sc/bcc/fcc lattice; ids count up in x-fastest order, as LAMMPS's create_atoms does.
BuiltSystem build_lattice(const LatticeSpec& lattice, int ntypes, const std::vector<double>& masses);

// LAMMPS data file, atom style atomic, molecular, bond or angle (the
// topology into BuiltSystem::topology), orthorhombic box. Errors name file, line and section.
// `masses_later`: types without a mass (no deck masses, no Masses entry) are
// no error but keep mass 0, for a potential file to give them
// (system/potential_masses.hpp).
BuiltSystem read_lammps_data(const std::string& path, const std::vector<double>& deck_masses,
                             bool masses_later = false);

// Velocities drawn per global id from a counter-based generator, so every
// rank layout draws the same set; zero total momentum, scaled to exactly T
// with 3N-3 degrees of freedom.
void create_velocities(AtomStore& atoms, double temperature, std::uint64_t seed, const Units& units);

// The whole system the deck describes, checked against the potential
// (types, cutoff + skin within half the box).
BuiltSystem build_system(const Deck& deck, const Units& units);

}  // namespace tessera
