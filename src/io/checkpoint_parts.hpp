#pragma once
// A checkpoint of a run on several ranks: each rank holds part of the atoms.
// These turn a CheckpointState into bytes the communicator can move and back,
// merge the ranks' parts into global-id order and split a state by owner rank.
#include <cstdint>
#include <vector>

#include "io/checkpoint.hpp"

namespace tessera {

// The per-atom arrays (id, type, position, velocity, force, image,
// reference_position, rank, storage_index, and the further quantities with
// their names, widths and kinds).
std::vector<char> pack_atoms(const CheckpointState& s);
// Replaces the per-atom arrays of `s` with those packed in `bytes`. Throws
// std::runtime_error when the bytes are not a whole packed set.
void unpack_atoms(const std::vector<char>& bytes, CheckpointState& s);

// Everything but the per-atom arrays, the deck text and the creator: what
// every rank needs to continue (step, box, integrator and list state, ...).
std::vector<char> pack_header(const CheckpointState& s);
void unpack_header(const std::vector<char>& bytes, CheckpointState& s);

// The atoms of all `parts` (each in id order), in global-id order, replacing
// those of `into`.
void merge_atoms(const std::vector<CheckpointState>& parts, CheckpointState& into);

// The atoms of `s` split by owner: part r holds the rows k with
// owner[k] == r, in their order in `s`. Header fields stay empty.
std::vector<CheckpointState> split_atoms(const CheckpointState& s, const std::vector<int>& owner, int nparts);

}  // namespace tessera
