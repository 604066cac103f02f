#pragma once
// The groups and datasets of a checkpoint, shared by its two writers: one
// rank building the file in memory (checkpoint.cpp) and every rank writing
// its own rows of one file through MPI-IO (checkpoint_collective.cpp).
#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "io/checkpoint.hpp"

namespace tessera {

// Writes one per-atom array (`cols` values per row, 0 for a rank-1 array).
// The writer decides whose rows `v` holds and how they are checksummed.
struct AtomRows {
  virtual ~AtomRows() = default;
  virtual void write(hid_t g, const std::string& name, const std::vector<double>& v, int cols) = 0;
  virtual void write(hid_t g, const std::string& name, const std::vector<std::int32_t>& v, int cols) = 0;
  virtual void write(hid_t g, const std::string& name, const std::vector<std::int64_t>& v, int cols) = 0;
};

// An AtomRows whose three writes all go to one template,
// Derived::put(g, name, v, cols), for every element type.
template <class Derived>
struct AtomRowsOf : AtomRows {
  void write(hid_t g, const std::string& name, const std::vector<double>& v, int cols) override {
    static_cast<Derived&>(*this).put(g, name, v, cols);
  }
  void write(hid_t g, const std::string& name, const std::vector<std::int32_t>& v, int cols) override {
    static_cast<Derived&>(*this).put(g, name, v, cols);
  }
  void write(hid_t g, const std::string& name, const std::vector<std::int64_t>& v, int cols) override {
    static_cast<Derived&>(*this).put(g, name, v, cols);
  }
};

// Bytes per atom of the further quantities (s.quantities) in the file, for
// the writers' size estimates: 8 per value, int64 or double.
inline std::size_t quantity_bytes_per_atom(const CheckpointState& s) {
  std::size_t bytes = 0;
  for (const CheckpointQuantity& q : s.quantities) bytes += 8 * static_cast<std::size_t>(q.width);
  return bytes;
}

// Everything but the userblock seal. The per-atom arrays of `s` go through
// `rows`; the rest (attributes, deck, box, masses, chains) is written as
// plain datasets, which in a parallel file every rank does with the same
// values.
void write_checkpoint_contents(hid_t file, const CheckpointState& s, AtomRows& rows);

}  // namespace tessera
