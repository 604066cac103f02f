#pragma once
// What the CPU lane kernels (cpu_pair_kernel.hpp, cpu_eam_kernel.hpp) get
// from the atoms: packed positions, so that a neighbour's coordinates and
// type are one 32-byte read, and the outputs.
#include <vector>

#include "backend/cpu_pair_kernel.hpp"

namespace tessera {

struct AtomStore;
struct PassOptions;

// x, y, z and type (as a double) of every atom, local and ghost, into pos;
// returns whether every atom has type 1. Thread t packs the local atoms of
// chunks share_of(pos_chunks(nlocal), t) (backend/cpu_shares.hpp): the
// atoms it then computes first.
bool pack_positions(const AtomStore& atoms, std::vector<double>& pos);

// Local atoms per chunk of the row kernels' work, and the chunks of nlocal.
inline constexpr long kPosChunk = 64;
inline long pos_chunks(long nlocal) { return (nlocal + kPosChunk - 1) / kPosChunk; }

// The atoms' forces, energies and virials, and the pass's tensor and
// accumulate rule, as a kernel's outputs.
KernelOutputs kernel_outputs(AtomStore& atoms, const PassOptions& opt);

}  // namespace tessera
