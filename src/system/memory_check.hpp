#pragma once
#include <string>

namespace tessera {

// Why `natoms` atoms would not fit in this machine's memory (every rank
// builds the whole system), or "" if they fit. The estimate counts the atom
// arrays and a full neighbour list of a liquid: about 600 bytes per atom.
std::string memory_shortfall(long long natoms);

}  // namespace tessera
