#pragma once
// One checkpoint = one HDF5 file holding everything a run needs to continue
// bitwise exactly. Layout (format 3), all per-atom arrays in global-id order
// so that N ranks can write it and M ranks read it back:
//
//   userblock (512 B)   "TESSERA CHECKPOINT" header: format, file size, XXH3
//                       of every byte after the userblock (checked before
//                       HDF5 ever parses the file, so a torn or bit-flipped
//                       file is refused, never half-read)
//   /            attrs  format_version, creator
//   /state       attrs  step, time, natoms, ntypes, nranks, last_build_step,
//                       neighbor_builds; units (metal, real; absent: lj)
//   /deck/text          the full deck as read
//   /box/lo, /box/hi
//   /types/mass         per type (type 1 first)
//   /atoms/id, type, position[N,3], velocity[N,3], image[N,3], force[N,3]
//                       (forces as the next half kick uses them: with Langevin
//                       they include the random and friction terms)
//   /atoms/<quantity>   every further checkpointed quantity of the field
//                       registry, int64 or double, [N] or [N,width]
//   /neighbor/reference_position[N,3], rank_grid[3], rank_cuts, rank, storage_index
//                       list-build state: the grid of ranks, each atom's
//                       owner rank and its slot in that rank's arrays
//   /integrator  attrs  style; chain_position, chain_velocity (Nose-Hoover);
//                       chain_kinetic[1]: the chain's kinetic energy carried
//                       into the next step (Integrator::chain_kinetic), when
//                       one is; a checkpoint without it starts the next step
//                       from a fresh sum
//   /random      attrs  key (Langevin seed), counter (the step)
//   /analysis    attrs  msd_origin_step
//   /analysis/msd_origin[N,3]
//                       unwrapped positions the MSD (deck analysis.msd) is
//                       measured from, those of step msd_origin_step; 0 rows
//                       without an MSD. Format 2 is format 3 without
//                       /analysis, and is still read.
//
// Every dataset carries its own XXH3 checksum too: attribute xxh3_64, or,
// for a per-atom array written by N ranks at once (checkpoint_collective.hpp),
// xxh3_64_rows (the N+1 row offsets of the ranks' parts) and xxh3_64_parts
// (XXH3 of the N parts' XXH3 values). Format 3 is format 4 with xxh3_64 on
// every dataset.
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "domain/box.hpp"

namespace tessera {

// 2: adds the owner rank of each atom and the rank grid (several ranks).
// 3: adds /analysis/msd_origin.
// 4: a per-atom dataset written by several ranks at once carries one checksum
//    per rank (xxh3_64_rows, xxh3_64_parts) instead of xxh3_64.
constexpr int kCheckpointFormat = 4;
constexpr int kCheckpointOldestFormat = 2;  // the oldest one still read
constexpr std::uint64_t kCheckpointUserblock = 512;

// A checkpointed quantity of the field registry (atoms/atom_fields.hpp)
// that has no array of its own in CheckpointState: its values, `width` per
// atom in id order, go to /atoms/<name>. Integers travel as int64 and reals
// as double whatever the field's type in the stores, so a store's choice of
// int or float never changes the file format.
struct CheckpointQuantity {
  std::string name;
  int width = 1;
  bool integer = false;
  std::vector<std::int64_t> integers;  // when `integer`
  std::vector<double> reals;           // otherwise

  // The same quantity without its values.
  CheckpointQuantity declaration() const { return {name, width, integer, {}, {}}; }
};

// Whether CheckpointState holds registry quantity `name` in an array of its
// own (id, type, position, velocity, force, image): those kept the datasets
// they had before the registry existed, so older files still read.
bool has_dedicated_array(std::string_view name);

struct CheckpointState {
  int format_version = kCheckpointFormat;
  std::string creator;
  long step = 0;
  double time = 0;
  long long natoms = 0;
  int ntypes = 0;
  int nranks = 1;
  std::array<int, 3> rank_grid{1, 1, 1};
  // Load-balanced cut planes: rank_grid[d] + 1 fractions per axis, x then y
  // then z; empty for equal slabs.
  std::vector<double> rank_cuts;
  Box box;
  std::vector<double> mass;  // per type, type 1 first
  std::string deck_text;

  std::vector<std::int64_t> id;  // ascending
  std::vector<std::int32_t> type;
  std::vector<double> position, velocity, force;  // 3 per atom
  std::vector<std::int32_t> image;                // 3 per atom
  // Every other checkpointed quantity of the registry, in registry order.
  std::vector<CheckpointQuantity> quantities;
  // The file holds molecular topology (atoms/molecule and the other
  // kFieldMolecular quantities, read whatever this process simulates, so
  // that a deck without bonds can refuse it rather than drop them).
  bool molecular = false;
  // The special_bonds pair factors the stored special neighbours were
  // chosen for (molecular files only; /state attributes special_lj_1{2,3,4}).
  double special_lj[3] = {0, 0, 0};

  long last_build_step = 0;
  long neighbor_builds = 0;
  std::vector<double> reference_position;   // positions at the last list build
  std::vector<std::int32_t> rank;           // which rank owned each atom
  std::vector<std::int64_t> storage_index;  // where each atom sat in its rank's arrays

  std::string units = "lj";  // the deck's `units` (/state attr units, absent for lj)
  std::string integrator_style;
  std::vector<double> chain_position, chain_velocity;
  std::vector<double> chain_kinetic;  // 0 or 1 value (Integrator::chain_kinetic)
  // npt, nph and c-rescale only (empty otherwise, and then not in the
  // file): the barostat's state (NoseHooverMtk::state, CellRescale::state)
  // and the box the neighbour list was built in, which a moving box makes
  // differ from `box`.
  std::vector<double> barostat_state;
  std::vector<double> build_box;  // lo x y z, hi x y z
  std::uint64_t random_key = 0;
  std::uint64_t random_counter = 0;

  // Unwrapped positions (3 per atom, id order) the MSD is measured from,
  // and their step, kept by RunOutputs; empty without an MSD. Rank 0 only:
  // not part of the atoms that move between ranks.
  std::vector<double> msd_origin;
  long msd_origin_step = 0;
};

// Writes `s` to `path` crash-safely (temporary name, fsync, rename, folder
// fsync). IoError on failure; an existing file at `path` is then untouched.
void write_checkpoint(const std::string& path, const CheckpointState& s);

// Reads and verifies a checkpoint. Throws CheckpointError naming the file
// and what is wrong (truncated, corrupted, missing dataset, unknown format,
// inconsistent contents).
CheckpointState read_checkpoint(const std::string& path);
// The same, expecting the further per-atom quantities `expected` (their
// values are ignored) instead of the registry's: a file without one of them
// is refused by name. Tests pass their own list, so the registry need not
// grow for them.
CheckpointState read_checkpoint(const std::string& path, const std::vector<CheckpointQuantity>& expected);

// The registry's checkpointed quantities that have no dedicated array, values
// empty: what this build writes into every checkpoint and expects back.
std::vector<CheckpointQuantity> registered_checkpoint_quantities();

// The id of the first atom whose position, velocity or force is not finite,
// or -1. A checkpoint must never hold a NaN: it is what a restart trusts.
std::int64_t first_non_finite_atom(const CheckpointState& s);

// Only the header and whole-file checksum (fast: no HDF5 parsing).
void verify_checkpoint_seal(const std::string& path);

// Writes the userblock header (size and whole-file checksum) of a finished
// HDF5 file in place. write_checkpoint does this before publishing; tests use
// it to build files that pass the seal but are wrong inside.
void seal_checkpoint_file(const std::string& path, int format_version);

class CheckpointError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace tessera
