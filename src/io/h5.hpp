#pragma once
// Thin RAII layer over the HDF5 C API. Every call is checked; a failure
// becomes an H5Error carrying HDF5's own error stack (which includes the
// operating system's errno text, e.g. "No space left on device").
#include <hdf5.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace tessera::h5 {

class H5Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Turns off HDF5's automatic error printing (we report errors ourselves).
void quiet();

// Owns one hid_t and closes it with the matching H5*close.
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Handle() = default;
  Handle(hid_t id, Closer close) : id_(id), close_(close) {}
  ~Handle() { reset(); }
  Handle(Handle&& o) noexcept : id_(o.id_), close_(o.close_) { o.id_ = H5I_INVALID_HID; }
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = o.id_;
      close_ = o.close_;
      o.id_ = H5I_INVALID_HID;
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  hid_t id() const { return id_; }
  operator hid_t() const { return id_; }
  bool valid() const { return id_ >= 0; }
  // Closes now and reports a failure (closing a file flushes it).
  void close(const std::string& what);
  void reset();

 private:
  hid_t id_ = H5I_INVALID_HID;
  Closer close_ = nullptr;
};

// While one of these lives on this thread, a raw-data write that fails in
// write_array or write_rows is recorded instead of thrown. Every rank of a
// parallel file must go on making the same HDF5 calls, or MPI-IO hangs in the
// next collective one; the writer checks first() once all are made.
class DeferredWriteErrors {
 public:
  DeferredWriteErrors();
  ~DeferredWriteErrors();
  DeferredWriteErrors(const DeferredWriteErrors&) = delete;
  DeferredWriteErrors& operator=(const DeferredWriteErrors&) = delete;
  const std::string& first() const { return first_; }
  void note(const std::string& failure) {
    if (first_.empty()) first_ = failure;
  }

 private:
  std::string first_;
  DeferredWriteErrors* outer_;
};

// Checks an HDF5 return value (negative means failure).
hid_t check(hid_t id, const std::string& what);
herr_t check_status(herr_t status, const std::string& what);

Handle create_file(const std::string& path, hsize_t userblock);
// A file built in memory only (HDF5 core driver); take its bytes with
// file_image(), which leaves `userblock` bytes (zeros) in front. Nothing touches the disk, so a full disk can only fail
// our own write of the image, never leave HDF5 holding a half-closed file.
// `expected_bytes`: about how large the file will grow; the buffer grows in
// steps of that size (at least 1 MiB), so a small file costs little memory.
Handle create_memory_file(const std::string& name, hsize_t userblock, std::size_t expected_bytes);
std::vector<char> file_image(hid_t file, hsize_t userblock);
Handle open_file(const std::string& path, bool writable);
Handle create_group(hid_t parent, const std::string& name);
Handle open_group(hid_t parent, const std::string& name);
bool exists(hid_t parent, const std::string& path);

// The HDF5 file type that stores a C++ scalar type.
template <class T>
hid_t native_type();

// Datasets of rank 1 (cols == 0) or rank 2 (rows x cols), row-major.
// Each carries an "xxh3_64" attribute: the checksum of its bytes as stored
// in memory, verified by read_array.
template <class T>
void write_array(hid_t parent, const std::string& name, const std::vector<T>& data, hsize_t cols = 0);
// Reads a whole dataset; `expect_rows`/`expect_cols` (when >= 0) are checked.
template <class T>
std::vector<T> read_array(hid_t parent, const std::string& name, long long expect_rows = -1,
                          long long expect_cols = -1);

// A dataset written in parts, one per rank, each a contiguous run of rows,
// carries instead "xxh3_64_rows" (the parts' first rows, then the row count)
// and "xxh3_64_parts": the checksum of the parts' own checksums, see
// combine_part_checksums. No rank ever sees the whole dataset, yet any reader
// recomputes the value from the stored rows alone. read_array checks either.
std::uint64_t combine_part_checksums(const std::vector<std::uint64_t>& part_checksums);

// Creates a total_rows x cols dataset (cols == 0: rank 1) and writes `mine`
// at rows [first_row, first_row + its rows): every rank of a parallel file
// calls it at once, in the same order, with the same name, sizes,
// row_offsets and combined checksum; `xfer` is the transfer property list
// (collective MPI-IO there, H5P_DEFAULT in a plain file).
template <class T>
void write_rows(hid_t parent, const std::string& name, const std::vector<T>& mine, hsize_t cols, hsize_t first_row,
                hsize_t total_rows, const std::vector<std::int64_t>& row_offsets, std::uint64_t combined, hid_t xfer);

void write_string(hid_t parent, const std::string& name, const std::string& text);
std::string read_string(hid_t parent, const std::string& name);

template <class T>
void write_attr(hid_t obj, const std::string& name, T value);
template <class T>
T read_attr(hid_t obj, const std::string& name);
void write_attr_string(hid_t obj, const std::string& name, const std::string& value);
// A variable-length UTF-8 string, which Python readers (h5py) get as str, not
// bytes: MDAnalysis compares H5MD `unit` attributes with str keys.
void write_attr_vlen_string(hid_t obj, const std::string& name, const std::string& value);
std::string read_attr_string(hid_t obj, const std::string& name);
bool has_attr(hid_t obj, const std::string& name);
template <class T>
void write_attr_array(hid_t obj, const std::string& name, const std::vector<T>& values);
// Refuses (H5Error) an attribute of more than max_values values before
// allocating: a crafted file may claim any size.
std::vector<std::int64_t> read_attr_array(hid_t obj, const std::string& name, std::size_t max_values);

}  // namespace tessera::h5
