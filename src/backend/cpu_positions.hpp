#pragma once
// The packed positions the CPU lane kernels read (cpu_pair_kernel.hpp,
// cpu_eam_kernel.hpp): a neighbour's coordinates and type are one 32-byte
// read.
#include <vector>

namespace tessera {

struct AtomStore;

// x, y, z and type (as a double) of every atom, local and ghost, into pos;
// returns whether every atom has type 1.
bool pack_positions(const AtomStore& atoms, std::vector<double>& pos);

}  // namespace tessera
