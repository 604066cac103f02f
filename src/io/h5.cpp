#include "io/h5.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "io/checksum.hpp"

namespace tessera::h5 {

namespace {

struct Collected {
  std::string os_error;  // the operating system's reason, when HDF5 got one
  std::string text;
};

herr_t collect(unsigned depth, const H5E_error2_t* e, void* out) {
  auto* c = static_cast<Collected*>(out);
  if (!e->desc || !*e->desc) return 0;
  const std::string desc = e->desc;
  // The file driver reports "... errno = 28, error message = 'No space left on device', ...".
  const std::string key = "error message = '";
  const auto at = desc.find(key);
  if (at != std::string::npos && c->os_error.empty()) {
    const auto end = desc.find('\'', at + key.size());
    c->os_error = desc.substr(at + key.size(), end == std::string::npos ? std::string::npos : end - at - key.size());
  } else if (depth < 3) {
    if (!c->text.empty()) c->text += "; ";
    c->text += desc;
  }
  return 0;
}

[[noreturn]] void fail(const std::string& what) {
  Collected c;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, collect, &c);
  H5Eclear2(H5E_DEFAULT);
  const std::string& detail = c.os_error.empty() ? c.text : c.os_error;
  throw H5Error(detail.empty() ? what : fmt::format("{}: {}", what, detail));
}

thread_local DeferredWriteErrors* deferred = nullptr;

}  // namespace

DeferredWriteErrors::DeferredWriteErrors() : outer_(deferred) { deferred = this; }
DeferredWriteErrors::~DeferredWriteErrors() { deferred = outer_; }

namespace {

// A raw-data write's status: thrown, or recorded under DeferredWriteErrors.
void check_data_write(herr_t status, const std::string& what) {
  if (!deferred) {
    check_status(status, what);
    return;
  }
  try {
    check_status(status, what);
  } catch (const H5Error& e) {
    deferred->note(e.what());
  }
}

}  // namespace

void quiet() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

void Handle::reset() {
  if (id_ >= 0 && close_) close_(id_);
  id_ = H5I_INVALID_HID;
}

void Handle::close(const std::string& what) {
  if (id_ < 0) return;
  const hid_t id = id_;
  id_ = H5I_INVALID_HID;
  if (close_(id) < 0) fail(what);
}

hid_t check(hid_t id, const std::string& what) {
  if (id < 0) fail(what);
  return id;
}

herr_t check_status(herr_t status, const std::string& what) {
  if (status < 0) fail(what);
  return status;
}

Handle create_file(const std::string& path, hsize_t userblock) {
  quiet();
  Handle fcpl(check(H5Pcreate(H5P_FILE_CREATE), "H5Pcreate"), H5Pclose);
  if (userblock) check_status(H5Pset_userblock(fcpl, userblock), "set userblock");
  Handle fapl(check(H5Pcreate(H5P_FILE_ACCESS), "H5Pcreate"), H5Pclose);
  // Newer object headers carry checksums of HDF5's own metadata too.
  check_status(H5Pset_libver_bounds(fapl, H5F_LIBVER_V110, H5F_LIBVER_V110), "set format bounds");
  return Handle(check(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, fcpl, fapl), "cannot create " + path), H5Fclose);
}

Handle create_memory_file(const std::string& name, hsize_t userblock, std::size_t expected_bytes) {
  quiet();
  Handle fcpl(check(H5Pcreate(H5P_FILE_CREATE), "H5Pcreate"), H5Pclose);
  if (userblock) check_status(H5Pset_userblock(fcpl, userblock), "set userblock");
  Handle fapl(check(H5Pcreate(H5P_FILE_ACCESS), "H5Pcreate"), H5Pclose);
  check_status(H5Pset_fapl_core(fapl, std::max<std::size_t>(expected_bytes, 1 << 20), 0), "set core driver");
  // Default (oldest) format bounds: HDF5 1.10.8 produces unreadable images of
  // files with version-3 superblocks. Our own whole-file checksum covers the
  // metadata that the newer format would have checksummed.
  return Handle(check(H5Fcreate(name.c_str(), H5F_ACC_TRUNC, fcpl, fapl), "cannot create in-memory file " + name),
                H5Fclose);
}

std::vector<char> file_image(hid_t file, hsize_t userblock) {
  check_status(H5Fflush(file, H5F_SCOPE_GLOBAL), "flush in-memory file");
  const ssize_t size = H5Fget_file_image(file, nullptr, 0);
  if (size < 0) fail("size of in-memory file");
  // The image leaves out the userblock; its superblock already records the
  // base address past it, so the bytes on disk are userblock + image.
  std::vector<char> image(userblock + static_cast<std::size_t>(size), '\0');
  if (H5Fget_file_image(file, image.data() + userblock, static_cast<std::size_t>(size)) != size)
    fail("copy of in-memory file");
  return image;
}

Handle open_file(const std::string& path, bool writable) {
  quiet();
  return Handle(check(H5Fopen(path.c_str(), writable ? H5F_ACC_RDWR : H5F_ACC_RDONLY, H5P_DEFAULT),
                      "cannot open " + path + " as HDF5"),
                H5Fclose);
}

Handle create_group(hid_t parent, const std::string& name) {
  return Handle(
      check(H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "cannot create group " + name),
      H5Gclose);
}

Handle open_group(hid_t parent, const std::string& name) {
  if (!exists(parent, name)) throw H5Error("group '" + name + "' is missing");
  return Handle(check(H5Gopen2(parent, name.c_str(), H5P_DEFAULT), "cannot open group " + name), H5Gclose);
}

bool exists(hid_t parent, const std::string& path) {
  // H5Lexists needs every intermediate link to exist, so walk the path.
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t slash = path.find('/', start);
    const std::string prefix = path.substr(0, slash);
    if (H5Lexists(parent, prefix.c_str(), H5P_DEFAULT) <= 0) return false;
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return true;
}

template <>
hid_t native_type<double>() {
  return H5T_NATIVE_DOUBLE;
}
template <>
hid_t native_type<float>() {
  return H5T_NATIVE_FLOAT;
}
template <>
hid_t native_type<std::int32_t>() {
  return H5T_NATIVE_INT32;
}
template <>
hid_t native_type<std::int64_t>() {
  return H5T_NATIVE_INT64;
}
template <>
hid_t native_type<std::uint64_t>() {
  return H5T_NATIVE_UINT64;
}
template <>
hid_t native_type<std::uint8_t>() {
  return H5T_NATIVE_UINT8;
}

template <class T>
void write_array(hid_t parent, const std::string& name, const std::vector<T>& data, hsize_t cols) {
  hsize_t dims[2] = {cols ? data.size() / cols : data.size(), cols};
  Handle space(check(H5Screate_simple(cols ? 2 : 1, dims, nullptr), "H5Screate_simple"), H5Sclose);
  Handle set(check(H5Dcreate2(parent, name.c_str(), native_type<T>(), space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                   "cannot create dataset " + name),
             H5Dclose);
  if (!data.empty())
    check_data_write(H5Dwrite(set, native_type<T>(), H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()),
                     "cannot write dataset " + name);
  write_attr<std::uint64_t>(set, "xxh3_64", checksum64(data.data(), data.size() * sizeof(T)));
}

namespace {
const char* type_class_name(H5T_class_t kind) {
  switch (kind) {
    case H5T_INTEGER: return "integer";
    case H5T_FLOAT: return "floating-point";
    case H5T_STRING: return "string";
    default: return "non-numeric";
  }
}
}  // namespace

template <class T>
std::vector<T> read_array(hid_t parent, const std::string& name, long long expect_rows, long long expect_cols) {
  if (!exists(parent, name)) throw H5Error("dataset '" + name + "' is missing");
  Handle set(check(H5Dopen2(parent, name.c_str(), H5P_DEFAULT), "cannot open dataset " + name), H5Dclose);
  Handle space(check(H5Dget_space(set), "H5Dget_space"), H5Sclose);
  const int rank = H5Sget_simple_extent_ndims(space);
  hsize_t dims[2] = {0, 0};
  if (rank < 1 || rank > 2) throw H5Error(fmt::format("dataset '{}' has rank {}, expected 1 or 2", name, rank));
  H5Sget_simple_extent_dims(space, dims, nullptr);
  const long long rows = static_cast<long long>(dims[0]);
  const long long cols = rank == 2 ? static_cast<long long>(dims[1]) : 0;
  if (expect_rows >= 0 && rows != expect_rows)
    throw H5Error(fmt::format("dataset '{}' has {} rows, expected {}", name, rows, expect_rows));
  if (expect_cols >= 0 && cols != expect_cols)
    throw H5Error(fmt::format("dataset '{}' has {} columns, expected {}", name, cols, expect_cols));
  // Every dataset of ours holds the native type it is read as. A crafted
  // file may declare any element type: a 20 kB checkpoint whose deck text
  // claimed 3.2 GB per byte made HDF5 allocate and zero a conversion buffer
  // of that size before it found the read past the end of the file (10.8 s
  // and 3.1 GB resident, 22 s under ASan).
  {
    Handle type(check(H5Dget_type(set), "H5Dget_type"), H5Tclose);
    const std::size_t bytes = H5Tget_size(type);
    const H5T_class_t kind = H5Tget_class(type), want_kind = H5Tget_class(native_type<T>());
    if (bytes != sizeof(T) || kind != want_kind)
      throw H5Error(fmt::format("dataset '{}' holds {}-byte {} values, expected {}-byte {}", name, bytes,
                                type_class_name(kind), sizeof(T), type_class_name(want_kind)));
  }
  // A damaged or crafted file can claim any shape: never allocate more than
  // the bytes the dataset really stores.
  const double claimed = static_cast<double>(rows) * static_cast<double>(cols ? cols : 1) * sizeof(T);
  const double stored = static_cast<double>(H5Dget_storage_size(set));
  if (claimed > stored)
    throw H5Error(fmt::format("dataset '{}' claims {:.0f} bytes but stores {:.0f}", name, claimed, stored));
  std::vector<T> out(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols ? cols : 1));
  if (!out.empty())
    check_status(H5Dread(set, native_type<T>(), H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()),
                 "cannot read dataset " + name);
  std::uint64_t want = 0, got = 0;
  if (has_attr(set, "xxh3_64")) {
    want = read_attr<std::uint64_t>(set, "xxh3_64");
    got = checksum64(out.data(), out.size() * sizeof(T));
  } else if (has_attr(set, "xxh3_64_parts")) {
    want = read_attr<std::uint64_t>(set, "xxh3_64_parts");
    // One offset per writing rank, and one more; no run has a million ranks.
    const auto offsets = read_attr_array(set, "xxh3_64_rows", std::size_t{1} << 20);
    bool ok = offsets.size() >= 2 && offsets.front() == 0 && offsets.back() == rows;
    for (std::size_t p = 1; ok && p < offsets.size(); ++p) ok = offsets[p - 1] <= offsets[p];
    if (!ok) throw H5Error(fmt::format("dataset '{}': xxh3_64_rows does not split its {} rows into parts", name, rows));
    const std::size_t width = static_cast<std::size_t>(cols ? cols : 1);
    std::vector<std::uint64_t> parts;
    for (std::size_t p = 0; p + 1 < offsets.size(); ++p)
      parts.push_back(checksum64(out.data() + width * static_cast<std::size_t>(offsets[p]),
                                 width * static_cast<std::size_t>(offsets[p + 1] - offsets[p]) * sizeof(T)));
    got = combine_part_checksums(parts);
  } else {
    throw H5Error("dataset '" + name + "' has no checksum");
  }
  if (want != got)
    throw H5Error(
        fmt::format("dataset '{}' fails its checksum (stored {:016x}, computed {:016x}): corrupted", name, want, got));
  return out;
}

std::uint64_t combine_part_checksums(const std::vector<std::uint64_t>& part_checksums) {
  return checksum64(part_checksums.data(), part_checksums.size() * sizeof(std::uint64_t));
}

template <class T>
void write_rows(hid_t parent, const std::string& name, const std::vector<T>& mine, hsize_t cols, hsize_t first_row,
                hsize_t total_rows, const std::vector<std::int64_t>& row_offsets, std::uint64_t combined, hid_t xfer) {
  const hsize_t width = cols ? cols : 1;
  const hsize_t my_rows = mine.size() / width;
  const int rank = cols ? 2 : 1;
  hsize_t dims[2] = {total_rows, cols};
  Handle space(check(H5Screate_simple(rank, dims, nullptr), "H5Screate_simple"), H5Sclose);
  Handle set(check(H5Dcreate2(parent, name.c_str(), native_type<T>(), space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                   "cannot create dataset " + name),
             H5Dclose);
  if (total_rows > 0) {
    // A rank with no rows still joins the collective write, selecting nothing.
    hsize_t mem_dims[2] = {std::max<hsize_t>(my_rows, 1), cols};
    Handle mem(check(H5Screate_simple(rank, mem_dims, nullptr), "H5Screate_simple"), H5Sclose);
    if (my_rows == 0) {
      check_status(H5Sselect_none(mem), "H5Sselect_none");
      check_status(H5Sselect_none(space), "H5Sselect_none");
    } else {
      const hsize_t start[2] = {first_row, 0}, count[2] = {my_rows, cols};
      check_status(H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, count, nullptr), "select rows");
    }
    const T none{};
    check_data_write(H5Dwrite(set, native_type<T>(), mem, space, xfer, my_rows ? mine.data() : &none),
                     "cannot write dataset " + name);
  }
  write_attr_array(set, "xxh3_64_rows", row_offsets);
  write_attr<std::uint64_t>(set, "xxh3_64_parts", combined);
}

void write_string(hid_t parent, const std::string& name, const std::string& text) {
  write_array(parent, name, std::vector<std::uint8_t>(text.begin(), text.end()));
  Handle set(check(H5Dopen2(parent, name.c_str(), H5P_DEFAULT), "H5Dopen2"), H5Dclose);
  write_attr_string(set, "encoding", "utf-8");
}

std::string read_string(hid_t parent, const std::string& name) {
  const auto bytes = read_array<std::uint8_t>(parent, name);
  return std::string(bytes.begin(), bytes.end());
}

template <class T>
void write_attr(hid_t obj, const std::string& name, T value) {
  Handle space(check(H5Screate(H5S_SCALAR), "H5Screate"), H5Sclose);
  Handle attr(check(H5Acreate2(obj, name.c_str(), native_type<T>(), space, H5P_DEFAULT, H5P_DEFAULT),
                    "cannot create attribute " + name),
              H5Aclose);
  check_status(H5Awrite(attr, native_type<T>(), &value), "cannot write attribute " + name);
}

template <class T>
T read_attr(hid_t obj, const std::string& name) {
  if (!has_attr(obj, name)) throw H5Error("attribute '" + name + "' is missing");
  Handle attr(check(H5Aopen(obj, name.c_str(), H5P_DEFAULT), "cannot open attribute " + name), H5Aclose);
  Handle space(check(H5Aget_space(attr), "H5Aget_space"), H5Sclose);
  if (H5Sget_simple_extent_npoints(space) != 1) throw H5Error("attribute '" + name + "' is not a scalar");
  T value{};
  check_status(H5Aread(attr, native_type<T>(), &value), "cannot read attribute " + name);
  return value;
}

void write_attr_string(hid_t obj, const std::string& name, const std::string& value) {
  Handle type(check(H5Tcopy(H5T_C_S1), "H5Tcopy"), H5Tclose);
  check_status(H5Tset_size(type, value.empty() ? 1 : value.size()), "H5Tset_size");
  check_status(H5Tset_cset(type, H5T_CSET_UTF8), "H5Tset_cset");
  Handle space(check(H5Screate(H5S_SCALAR), "H5Screate"), H5Sclose);
  Handle attr(
      check(H5Acreate2(obj, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT), "cannot create attribute " + name),
      H5Aclose);
  check_status(H5Awrite(attr, type, value.empty() ? "" : value.data()), "cannot write attribute " + name);
}

void write_attr_vlen_string(hid_t obj, const std::string& name, const std::string& value) {
  Handle type(check(H5Tcopy(H5T_C_S1), "H5Tcopy"), H5Tclose);
  check_status(H5Tset_size(type, H5T_VARIABLE), "H5Tset_size");
  check_status(H5Tset_cset(type, H5T_CSET_UTF8), "H5Tset_cset");
  Handle space(check(H5Screate(H5S_SCALAR), "H5Screate"), H5Sclose);
  Handle attr(
      check(H5Acreate2(obj, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT), "cannot create attribute " + name),
      H5Aclose);
  const char* text = value.c_str();
  check_status(H5Awrite(attr, type, &text), "cannot write attribute " + name);
}

std::string read_attr_string(hid_t obj, const std::string& name) {
  if (!has_attr(obj, name)) throw H5Error("attribute '" + name + "' is missing");
  Handle attr(check(H5Aopen(obj, name.c_str(), H5P_DEFAULT), "cannot open attribute " + name), H5Aclose);
  Handle type(check(H5Aget_type(attr), "H5Aget_type"), H5Tclose);
  if (H5Tget_class(type) != H5T_STRING || H5Tis_variable_str(type) > 0)
    throw H5Error("attribute '" + name + "' is not a fixed-length string");
  const std::size_t size = H5Tget_size(type);
  std::string value(size, '\0');
  check_status(H5Aread(attr, type, value.data()), "cannot read attribute " + name);
  while (!value.empty() && value.back() == '\0') value.pop_back();
  return value;
}

bool has_attr(hid_t obj, const std::string& name) { return H5Aexists(obj, name.c_str()) > 0; }

template <class T>
void write_attr_array(hid_t obj, const std::string& name, const std::vector<T>& values) {
  const hsize_t n = values.size();
  Handle space(check(H5Screate_simple(1, &n, nullptr), "H5Screate_simple"), H5Sclose);
  Handle attr(check(H5Acreate2(obj, name.c_str(), native_type<T>(), space, H5P_DEFAULT, H5P_DEFAULT),
                    "cannot create attribute " + name),
              H5Aclose);
  if (n) check_status(H5Awrite(attr, native_type<T>(), values.data()), "cannot write attribute " + name);
}

std::vector<std::int64_t> read_attr_array(hid_t obj, const std::string& name, std::size_t max_values) {
  if (!has_attr(obj, name)) throw H5Error("attribute '" + name + "' is missing");
  Handle attr(check(H5Aopen(obj, name.c_str(), H5P_DEFAULT), "cannot open attribute " + name), H5Aclose);
  Handle space(check(H5Aget_space(attr), "H5Aget_space"), H5Sclose);
  const hssize_t n = H5Sget_simple_extent_npoints(space);
  if (n < 0 || static_cast<std::size_t>(n) > max_values)
    throw H5Error(fmt::format("attribute '{}' has {} values, at most {} expected", name, n, max_values));
  std::vector<std::int64_t> values(static_cast<std::size_t>(n));
  if (n) check_status(H5Aread(attr, H5T_NATIVE_INT64, values.data()), "cannot read attribute " + name);
  return values;
}

#define TESSERA_H5_INSTANTIATE(T)                                                          \
  template void write_array<T>(hid_t, const std::string&, const std::vector<T>&, hsize_t); \
  template std::vector<T> read_array<T>(hid_t, const std::string&, long long, long long);  \
  template void write_rows<T>(hid_t, const std::string&, const std::vector<T>&, hsize_t, hsize_t, hsize_t, \
                              const std::vector<std::int64_t>&, std::uint64_t, hid_t);                   \
  template void write_attr<T>(hid_t, const std::string&, T);                               \
  template void write_attr_array<T>(hid_t, const std::string&, const std::vector<T>&);     \
  template T read_attr<T>(hid_t, const std::string&);
TESSERA_H5_INSTANTIATE(double)
TESSERA_H5_INSTANTIATE(float)
TESSERA_H5_INSTANTIATE(std::int32_t)
TESSERA_H5_INSTANTIATE(std::int64_t)
TESSERA_H5_INSTANTIATE(std::uint64_t)
TESSERA_H5_INSTANTIATE(std::uint8_t)
#undef TESSERA_H5_INSTANTIATE

}  // namespace tessera::h5
