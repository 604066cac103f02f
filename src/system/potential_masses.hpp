#pragma once
// Atom masses from a many-body potential's file(s). LAMMPS's pair_coeff for
// eam, eam/alloy and eam/fs sets each atom type's mass to the file's (funcfl:
// the file's element; setfl and fs: the type's element), over the data
// file's Masses; only a `mass` command after it could change that again. A
// deck has no order of commands, so Tessera does what the usual LAMMPS input
// ends with: every type takes its file's mass. A type that the deck and the
// data file leave without a mass takes it silently; one given another mass
// takes it too, with a note naming the type, both masses, where the other
// came from and the file, so that a mismatch is seen but the run still gives
// LAMMPS's numbers for the same inputs (docs/deck.md, system.masses).
#include <string>
#include <vector>

#include "manybody/manybody_styles.hpp"

namespace tessera {

// `mass_of_type`: index 0 unused, 0 (or missing) where nothing gave the type
// a mass; on return every type has its file's. `given_by`: where the other
// masses came from, for the notes ("deck.yaml:4:11: system.masses", or the
// data file's Masses). Returns the notes, one line each, no prefix.
std::vector<std::string> take_file_masses(const std::vector<FileMass>& file, std::vector<double>& mass_of_type,
                                          const std::string& given_by);

}  // namespace tessera
