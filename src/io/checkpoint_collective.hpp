#pragma once
// A checkpoint written by every rank at once into one file, through parallel
// HDF5 (MPI-IO). Each rank sends its atoms to the rank that owns their slice
// of the id range, so every rank then holds one contiguous run of rows in
// global-id order and writes it straight into the shared file: no rank ever
// holds the whole system. The file is the same format as the one-rank writer's
// except that each per-atom dataset carries one checksum per writing rank
// (h5::write_rows), and it is published just as crash-safely: temporary name,
// seal, fsync, rename, folder fsync, all by rank 0 once every rank has written.
#include <string>

#include "comm/communicator.hpp"
#include "io/checkpoint.hpp"

namespace tessera {

// Collective: every rank of `comm` calls it with its own atoms in `mine`
// (any order). The header fields, deck text, creator and MSD origin are taken
// from rank 0. IoError on every rank when any rank fails; an existing file at
// `path` is then untouched. Only rank 0's IoError carries the message; the
// others' are empty, so the error is printed once.
void write_checkpoint_collective(const std::string& path, const CheckpointState& mine, const Communicator& comm);

}  // namespace tessera
