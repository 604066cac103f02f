#pragma once
// Potentials that are not a sum over pairs (many-body: EAM and its kin),
// as the deck names them. Each is a Force of several passes
// (forces/force.hpp) whose intermediates live in the field registry; the
// deck, the step and the halo reach it only through this table, so adding
// one is its own files and a line in manybody_styles.cpp.
#include <memory>
#include <string>
#include <vector>

#include "forces/force.hpp"

namespace tessera {

struct PotentialSpec;

// The mass a potential file gives an atom type, and that file.
struct FileMass {
  double mass = 0;
  std::string file;
};

struct ManyBodyStyleEntry {
  std::string name;
  // `potential.file` may name one file per atom type (else exactly one).
  bool file_per_type = false;
  // `potential.elements` names the element of each atom type in the file.
  bool elements = false;
  // Reads and checks the file(s) named by `spec` and returns the cutoff
  // they set. Throws InputError naming the file and line.
  double (*file_cutoff)(const PotentialSpec& spec) = nullptr;
  // The force for a system of `ntypes` atom types; throws InputError when
  // a type has no file or element.
  std::unique_ptr<Force> (*make)(const PotentialSpec& spec, int ntypes) = nullptr;
  // The mass of each atom type (index 0 unused) as its file gives it, which
  // LAMMPS's pair_coeff makes the type's mass (system/potential_masses.hpp
  // does the same); throws as `make` does. Null: the files give no masses.
  std::vector<FileMass> (*file_masses)(const PotentialSpec& spec, int ntypes) = nullptr;
};

const std::vector<ManyBodyStyleEntry>& manybody_styles();
const ManyBodyStyleEntry* find_manybody_style(const std::string& name);

}  // namespace tessera
