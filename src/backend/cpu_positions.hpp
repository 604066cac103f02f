#pragma once
// What the CPU lane kernels (cpu_pair_kernel.hpp, cpu_eam_kernel.hpp) get
// from the atoms: packed positions, so that a neighbour's coordinates and
// type are one 32-byte read, and the outputs.
#include <vector>

#include "backend/cpu_pair_kernel.hpp"
#include "core/large_pages.hpp"

namespace tessera {

struct AtomStore;
struct PassOptions;

// x, y, z and type (as a double) of every atom, local and ghost, into pos;
// returns whether every atom has type 1. Thread t packs the local atoms of
// chunks share_of(pos_chunks(nlocal), t) (backend/cpu_shares.hpp): the
// atoms it then computes first.
bool pack_positions(const AtomStore& atoms, LargeVector<double>& pos);

// Mixed precision's rows (PairKernelArgs::mixed): per atom, local and
// ghost, 4 ints into rec: x, y and z as multiples of `quantum` (rounded to
// nearest), kept modulo 2^32, and the type; returns whether every atom has
// type 1. Only differences are read, as 32-bit differences, which are
// exact for any two atoms closer than 2^31 quanta along each axis however
// far from the origin they are; fixed_quantum makes that 8 cutoffs, where
// no listed pair can be before the motion guard stops a run, so a
// separation's only errors are the two roundings of its ends (at most one
// quantum, 1.5e-8 sigma at the LJ cutoff of 2.5) and the float conversion
// of the difference. The quantum depends on the cutoff alone, so every
// rank count, atom order and restart quantises alike. Threads pack as
// pack_positions.
bool pack_fixed_positions(const AtomStore& atoms, double quantum, LargeVector<int>& rec);
// The power of two for which 2^31 quanta first reach 8 cutoffs.
double fixed_quantum(double cutoff);

// Local atoms per chunk of the row kernels' work, and the chunks of nlocal.
inline constexpr long kPosChunk = 64;
inline long pos_chunks(long nlocal) { return (nlocal + kPosChunk - 1) / kPosChunk; }

// The atoms' forces, energies and virials, and the pass's tensor and
// accumulate rule, as a kernel's outputs.
KernelOutputs kernel_outputs(AtomStore& atoms, const PassOptions& opt);

}  // namespace tessera
