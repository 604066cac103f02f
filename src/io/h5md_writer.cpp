#include "io/h5md_writer.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <stdexcept>

#include "io/h5.hpp"

namespace tessera {

namespace {

using h5::check;
using h5::check_status;
using h5::H5Error;
using h5::Handle;

constexpr const char* kCreatorName = "Tessera";
// The particle group. MDAnalysis names it `trajectory` in the files it
// writes, and its H5MD reader (2.4) builds a topology from that name alone
// (mda.Universe("file.h5md"), where units allow it). Trajectories written
// before this name was chosen use `all`; a restart continues such a file in
// its own group.
constexpr const char* kParticles = "particles/trajectory";
constexpr const char* kLegacyParticles = "particles/all";
constexpr const char* kFields[] = {"position", "velocity", "force", "image"};
constexpr int kNumFields = 4;
constexpr const char* kObservables[] = {"temperature", "potential_energy", "kinetic_energy", "total_energy",
                                        "pressure"};
constexpr int kNumObservables = 5;

bool field_selected(const TrajectorySpec& s, int k) {
  switch (k) {
    case 0: return s.position;
    case 1: return s.velocity;
    case 2: return s.force;
    default: return s.image;
  }
}

hid_t field_type(int k) { return k == 3 ? H5T_NATIVE_INT32 : H5T_NATIVE_DOUBLE; }

std::string field_list(const std::vector<std::string>& names) {
  return names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", "));
}

Handle file_access() {
  Handle fapl(check(H5Pcreate(H5P_FILE_ACCESS), "H5Pcreate"), H5Pclose);
  // The 1.8 format: readable by every HDF5 >= 1.8 (VMD's and older analysis
  // tools included). 1.10's chunk indexes would lock those out for no gain.
  check_status(H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_V18), "cannot set format bounds");
  return fapl;
}

Handle open_dataset(hid_t parent, const std::string& name) {
  if (!h5::exists(parent, name)) throw H5Error("dataset '" + name + "' is missing");
  return Handle(check(H5Dopen2(parent, name.c_str(), H5P_DEFAULT), "cannot open dataset " + name), H5Dclose);
}

std::vector<hsize_t> dims_of(hid_t set, const std::string& name) {
  Handle space(check(H5Dget_space(set), "cannot get the shape of " + name), H5Sclose);
  const int rank = check(H5Sget_simple_extent_ndims(space), "cannot get the rank of " + name);
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  check(H5Sget_simple_extent_dims(space, dims.data(), nullptr), "cannot get the shape of " + name);
  return dims;
}

// A time series dataset: its first dimension counts samples and grows
// without bound; `row` is the shape of one sample.
Handle create_series(hid_t parent, const std::string& name, hid_t type, const std::vector<hsize_t>& row) {
  const int rank = static_cast<int>(row.size()) + 1;
  std::vector<hsize_t> dims(rank, 0), max(rank), chunk(rank);
  max[0] = H5S_UNLIMITED;
  hsize_t row_bytes = H5Tget_size(type);
  for (std::size_t d = 0; d < row.size(); ++d) {
    dims[d + 1] = max[d + 1] = row[d];
    chunk[d + 1] = std::max<hsize_t>(row[d], 1);
    row_bytes *= chunk[d + 1];
  }
  // Chunks of about 64 KiB: small samples many to a chunk, so a long run
  // does not pile up chunk records; a large frame alone in its chunks, so a
  // reader seeking one frame reads only that frame, split along the atoms
  // past 1 MiB to keep within HDF5's chunk cache.
  constexpr hsize_t kTarget = 64 * 1024, kMax = 1024 * 1024;
  chunk[0] = std::clamp<hsize_t>(kTarget / row_bytes, 1, 1024);
  if (row_bytes > kMax) chunk[1] = std::max<hsize_t>(1, chunk[1] * kMax / row_bytes);
  Handle space(check(H5Screate_simple(rank, dims.data(), max.data()), "H5Screate_simple"), H5Sclose);
  Handle dcpl(check(H5Pcreate(H5P_DATASET_CREATE), "H5Pcreate"), H5Pclose);
  check_status(H5Pset_chunk(dcpl, rank, chunk.data()), "cannot set the chunk shape of " + name);
  return Handle(check(H5Dcreate2(parent, name.c_str(), type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT),
                      "cannot create dataset " + name),
                H5Dclose);
}

// Writes sample `index` (growing the dataset to index + 1 samples).
void write_sample(hid_t set, const std::string& name, hsize_t index, hid_t mem_type, const std::vector<hsize_t>& row,
                  const void* data) {
  const int rank = static_cast<int>(row.size()) + 1;
  std::vector<hsize_t> dims(rank), start(rank, 0), count(rank);
  dims[0] = index + 1;
  start[0] = index;
  count[0] = 1;
  hsize_t elements = 1;
  for (std::size_t d = 0; d < row.size(); ++d) {
    dims[d + 1] = count[d + 1] = row[d];
    elements *= row[d];
  }
  check_status(H5Dset_extent(set, dims.data()), "cannot extend " + name);
  if (elements == 0) return;
  Handle file_space(check(H5Dget_space(set), "H5Dget_space"), H5Sclose);
  check_status(H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr),
               "H5Sselect_hyperslab");
  Handle mem_space(check(H5Screate_simple(rank, count.data(), nullptr), "H5Screate_simple"), H5Sclose);
  check_status(H5Dwrite(set, mem_type, mem_space, file_space, H5P_DEFAULT, data), "cannot write " + name);
}

void set_samples(hid_t set, const std::string& name, hsize_t samples) {
  std::vector<hsize_t> dims = dims_of(set, name);
  if (dims[0] == samples) return;
  dims[0] = samples;
  check_status(H5Dset_extent(set, dims.data()), "cannot shrink " + name);
}

std::vector<std::int64_t> read_steps(hid_t set, const std::string& name) {
  const auto dims = dims_of(set, name);
  if (dims.size() != 1) throw H5Error(fmt::format("'{}' has rank {}, expected 1", name, dims.size()));
  std::vector<std::int64_t> steps(dims[0]);
  if (!steps.empty())
    check_status(H5Dread(set, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, steps.data()), "cannot read " + name);
  return steps;
}

std::vector<std::int32_t> read_attr_ints(hid_t obj, const std::string& name) {
  if (!h5::has_attr(obj, name)) throw H5Error("attribute '" + name + "' is missing");
  Handle attr(check(H5Aopen(obj, name.c_str(), H5P_DEFAULT), "cannot open attribute " + name), H5Aclose);
  Handle type(check(H5Aget_type(attr), "H5Aget_type"), H5Tclose);
  if (H5Tget_class(type) != H5T_INTEGER) throw H5Error("attribute '" + name + "' is not an integer");
  Handle space(check(H5Aget_space(attr), "H5Aget_space"), H5Sclose);
  const hssize_t n = H5Sget_simple_extent_npoints(space);
  if (n < 0) throw H5Error("cannot get the size of attribute " + name);
  std::vector<std::int32_t> values(static_cast<std::size_t>(n));
  check_status(H5Aread(attr, H5T_NATIVE_INT32, values.data()), "cannot read attribute " + name);
  return values;
}

// H5MD wants `boundary` as a 1-D array of fixed-length strings.
void write_attr_strings(hid_t obj, const std::string& name, const std::vector<std::string>& values) {
  std::size_t width = 1;
  for (const auto& v : values) width = std::max(width, v.size() + 1);
  std::string packed(width * values.size(), '\0');
  for (std::size_t k = 0; k < values.size(); ++k) packed.replace(k * width, values[k].size(), values[k]);
  Handle type(check(H5Tcopy(H5T_C_S1), "H5Tcopy"), H5Tclose);
  check_status(H5Tset_size(type, width), "H5Tset_size");
  check_status(H5Tset_strpad(type, H5T_STR_NULLTERM), "H5Tset_strpad");
  const hsize_t n = values.size();
  Handle space(check(H5Screate_simple(1, &n, nullptr), "H5Screate_simple"), H5Sclose);
  Handle attr(
      check(H5Acreate2(obj, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT), "cannot create attribute " + name),
      H5Aclose);
  check_status(H5Awrite(attr, type, packed.data()), "cannot write attribute " + name);
}

void hard_link(hid_t from_group, const std::string& from, hid_t to_group, const std::string& to) {
  check_status(H5Lcreate_hard(from_group, from.c_str(), to_group, to.c_str(), H5P_DEFAULT, H5P_DEFAULT),
               "cannot link " + to + " to " + from);
}

std::string author_name() {
  for (const char* var : {"USER", "LOGNAME"})
    if (const char* v = std::getenv(var); v && *v) return v;
  return "unknown";
}

// One time axis (step and time) and the value datasets sampled on it.
struct Timeline {
  struct Series {
    std::string name;
    Handle value;
    hid_t mem_type;
    std::vector<hsize_t> row;
  };
  std::string name;  // the element that owns step and time
  Handle step, time;
  std::vector<Series> values;
  hsize_t samples = 0;
  long last_step = std::numeric_limits<long>::min();

  bool open() const { return step.valid(); }

  // Creates `parent/<names[k]>` with value shape rows[k]; the first owns step
  // and time, the others hard-link them.
  void create(hid_t parent, const std::string& parent_name, const std::vector<std::string>& names,
              const std::vector<hid_t>& types, const std::vector<std::vector<hsize_t>>& rows) {
    name = parent_name + "/" + names[0];
    for (std::size_t k = 0; k < names.size(); ++k) {
      const std::string full = parent_name + "/" + names[k];
      Handle group = h5::create_group(parent, names[k]);
      if (k == 0) {
        step = create_series(group, "step", H5T_NATIVE_INT64, {});
        time = create_series(group, "time", H5T_NATIVE_DOUBLE, {});
      } else {
        hard_link(parent, names[0] + "/step", group, "step");
        hard_link(parent, names[0] + "/time", group, "time");
      }
      values.push_back({full + "/value", create_series(group, "value", types[k], rows[k]), types[k], rows[k]});
    }
  }

  // Opens what create() made, checks the shapes, and drops the samples past
  // `keep_through` and any a killed run left half written.
  void open_existing(hid_t parent, const std::string& parent_name, const std::vector<std::string>& names,
                     const std::vector<hid_t>& types, const std::vector<std::vector<hsize_t>>& rows,
                     long keep_through) {
    name = parent_name + "/" + names[0];
    step = open_dataset(parent, names[0] + "/step");
    time = open_dataset(parent, names[0] + "/time");
    const auto steps = read_steps(step, name + "/step");
    const auto time_dims = dims_of(time, name + "/time");
    if (time_dims.size() != 1) throw H5Error(fmt::format("'{}/time' has rank {}, expected 1", name, time_dims.size()));
    hsize_t complete = std::min<hsize_t>(steps.size(), time_dims[0]);
    for (std::size_t k = 0; k < names.size(); ++k) {
      const std::string full = parent_name + "/" + names[k] + "/value";
      Handle value = open_dataset(parent, names[k] + "/value");
      const auto dims = dims_of(value, full);
      std::vector<hsize_t> want = rows[k];
      want.insert(want.begin(), dims.empty() ? 0 : dims[0]);
      if (dims != want) {
        std::vector<hsize_t> shown(dims.begin() + (dims.empty() ? 0 : 1), dims.end());
        throw H5Error(fmt::format("'{}' holds samples of shape [{}], this run writes [{}]", full,
                                  fmt::join(shown, ", "), fmt::join(rows[k], ", ")));
      }
      Handle type(check(H5Dget_type(value), "H5Dget_type"), H5Tclose);
      if (H5Tget_class(type) != (types[k] == H5T_NATIVE_INT32 ? H5T_INTEGER : H5T_FLOAT))
        throw H5Error(fmt::format("'{}' has the wrong number type", full));
      complete = std::min(complete, dims[0]);
      values.push_back({full, std::move(value), types[k], rows[k]});
    }
    // A step not past its predecessor can only be a torn write (the dataset
    // grown, the value not yet on disk, read back as 0): the end of the data.
    samples = 0;
    while (samples < complete && steps[samples] <= keep_through &&
           (samples == 0 || steps[samples] > steps[samples - 1]))
      ++samples;
    set_samples(step, name + "/step", samples);
    set_samples(time, name + "/time", samples);
    for (auto& v : values) set_samples(v.value, v.name, samples);
    if (samples > 0) last_step = static_cast<long>(steps[samples - 1]);
  }

  // Values first, step last: a run killed in between leaves a step dataset
  // no longer than any value, which open_existing() trims to.
  void append(long s, double t, const std::vector<const void*>& data) {
    for (std::size_t k = 0; k < values.size(); ++k)
      write_sample(values[k].value, values[k].name, samples, values[k].mem_type, values[k].row, data[k]);
    write_sample(time, name + "/time", samples, H5T_NATIVE_DOUBLE, {}, &t);
    const std::int64_t s64 = s;
    write_sample(step, name + "/step", samples, H5T_NATIVE_INT64, {}, &s64);
    ++samples;
    last_step = s;
  }
};

}  // namespace

struct H5mdWriter::Impl {
  std::string path;
  TrajectorySpec spec;
  std::string unit_system;  // Units::name
  UnitNames h5md_units;     // Units::h5md: empty strings write no attribute
  long long natoms = 0;
  Handle file;  // declared before the timelines, so it closes after the objects in it
  Timeline particles;
  Timeline observables;
  std::vector<int> fields;  // indices into kFields, in storage order
  long resume_step = -1;
  struct Series {
    ObservableSeries spec;
    Timeline line;
  };
  std::vector<Series> series;

  template <class F>
  auto guarded(F&& f) -> decltype(f()) {
    try {
      return f();
    } catch (const H5Error& e) {
      throw H5Error(fmt::format("trajectory {}: {}", path, e.what()));
    }
  }

  std::vector<std::string> particle_names() const {
    std::vector<std::string> names;
    for (int k : fields) names.push_back(kFields[k]);
    names.push_back("box/edges");
    return names;
  }
  std::vector<hid_t> particle_types() const {
    std::vector<hid_t> types;
    for (int k : fields) types.push_back(field_type(k));
    types.push_back(H5T_NATIVE_DOUBLE);
    return types;
  }
  std::vector<std::vector<hsize_t>> particle_rows() const {
    std::vector<std::vector<hsize_t>> rows(fields.size(), {static_cast<hsize_t>(natoms), 3});
    rows.push_back({3, 3});
    return rows;
  }
  // The H5MD units module's `unit` attribute of each value series, and of
  // the shared time, where the unit system has strings for them.
  std::string field_unit(const std::string& name) const {
    const UnitNames& u = h5md_units;
    const auto per = [](const std::string& a, const std::string& b) {
      return a.empty() || b.empty() ? std::string() : a + " " + b + "-1";
    };
    if (name == "position" || name == "box/edges") return u.length;
    if (name == "velocity") return per(u.length, u.time);
    if (name == "force") return per(u.energy, u.length);
    if (name == "temperature") return u.temperature;
    if (name == "pressure") return u.pressure;
    if (name.size() > 7 && name.compare(name.size() - 7, 7, "_energy") == 0) return u.energy;
    return "";
  }
  void write_units(hid_t parent, const std::vector<std::string>& names) const {
    if (!h5md_units.time.empty())
      h5::write_attr_vlen_string(open_dataset(parent, names[0] + "/time"), "unit", h5md_units.time);
    for (const std::string& n : names)
      if (const std::string u = field_unit(n); !u.empty())
        h5::write_attr_vlen_string(open_dataset(parent, n + "/value"), "unit", u);
  }
  static std::vector<std::string> observable_names() { return {kObservables, kObservables + kNumObservables}; }
  static std::vector<hid_t> observable_types() { return std::vector<hid_t>(kNumObservables, H5T_NATIVE_DOUBLE); }
  static std::vector<std::vector<hsize_t>> observable_rows() {
    return std::vector<std::vector<hsize_t>>(kNumObservables);
  }

  void create(const std::vector<std::int64_t>& ids, const std::vector<std::int32_t>& types,
              const std::string& creator_version) {
    Handle fapl = file_access();
    file = Handle(check(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl), "cannot create the file"), H5Fclose);
    {
      Handle meta = h5::create_group(file, "h5md");
      h5::write_attr_array<std::int32_t>(meta, "version", {1, 1});
      Handle author = h5::create_group(meta, "author");
      h5::write_attr_string(author, "name", author_name());
      Handle creator = h5::create_group(meta, "creator");
      h5::write_attr_string(creator, "name", kCreatorName);
      h5::write_attr_string(creator, "version", creator_version);
      // H5MD's units module names the unit system. In reduced LJ units every
      // quantity is a pure number in that system (lengths in sigma, times in
      // tau), so the per-dataset `unit` attributes, optional in the module,
      // are left out: H5MD has no symbol for sigma or tau (Units::h5md is
      // empty), and MDAnalysis refuses any unit string it does not know. In
      // metal and real units the series get the attributes Units::h5md has
      // strings for (write_units).
      Handle modules = h5::create_group(meta, "modules");
      Handle units = h5::create_group(modules, "units");
      h5::write_attr_array<std::int32_t>(units, "version", {1, 0});
      h5::write_attr_string(units, "system", unit_system);
    }
    Handle particles_group = h5::create_group(file, "particles");
    Handle all = h5::create_group(particles_group, "trajectory");
    {
      Handle box = h5::create_group(all, "box");
      h5::write_attr<std::int32_t>(box, "dimension", 3);
      write_attr_strings(box, "boundary", {"periodic", "periodic", "periodic"});
    }
    h5::write_array(all, "species", types);
    h5::write_array(all, "id", ids);
    particles.create(all, kParticles, particle_names(), particle_types(), particle_rows());
    write_units(all, particle_names());
    Handle parameters = h5::create_group(file, "parameters");
    // What the attribute-free values are measured in (see the header).
    h5::write_attr_string(parameters, "units", unit_system);
    flush();
  }

  void open_existing(const std::vector<std::int64_t>& ids, const std::vector<std::int32_t>& types, long resume_step) {
    // Default bounds: bounds of V18 would refuse a newer file before we could
    // say what it is; objects added to ours still come out readable by 1.8.
    file = Handle(check(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT),
                        "cannot open the existing file as HDF5 (to start a new trajectory, move it away)"),
                  H5Fclose);
    const std::string not_ours = " (to start a new trajectory, move it away)";
    if (!h5::exists(file, "h5md")) throw H5Error("not an H5MD file: it has no 'h5md' group" + not_ours);
    {
      Handle meta = h5::open_group(file, "h5md");
      const auto version = read_attr_ints(meta, "version");
      if (version.size() != 2 || version[0] != 1)
        throw H5Error(fmt::format("H5MD version [{}], expected 1.x", fmt::join(version, ", ")) + not_ours);
      Handle creator = h5::open_group(meta, "creator");
      const std::string by = h5::read_attr_string(creator, "name");
      if (by != kCreatorName)
        throw H5Error(fmt::format("written by '{}', not by {}, so it cannot be continued", by, kCreatorName) +
                      not_ours);
    }
    const char* group = h5::exists(file, kParticles) ? kParticles : kLegacyParticles;
    if (!h5::exists(file, group))
      throw H5Error(fmt::format("it has neither a '{}' nor a '{}' group", kParticles, kLegacyParticles) + not_ours);
    Handle all = h5::open_group(file, group);
    const auto stored_types = h5::read_array<std::int32_t>(all, "species", -1, 0);
    if (static_cast<long long>(stored_types.size()) != natoms)
      throw H5Error(fmt::format("it holds {} atoms, this run has {}", stored_types.size(), natoms) + not_ours);
    if (stored_types != types) throw H5Error("its atom types (species) differ from this run's" + not_ours);
    if (h5::exists(all, "id") && h5::read_array<std::int64_t>(all, "id", natoms, 0) != ids)
      throw H5Error("its atom ids differ from this run's" + not_ours);
    std::vector<std::string> stored, wanted;
    for (int k = 0; k < kNumFields; ++k) {
      if (h5::exists(all, kFields[k])) stored.push_back(kFields[k]);
      if (field_selected(spec, k)) wanted.push_back(kFields[k]);
    }
    if (stored != wanted)
      throw H5Error(
          fmt::format("it stores the fields [{}], this run writes [{}]", field_list(stored), field_list(wanted)) +
          not_ours);
    particles.open_existing(all, group, particle_names(), particle_types(), particle_rows(), resume_step);
    // The thermo group may be missing where analysis series exist: a run
    // that stopped before its first frame.
    if (h5::exists(file, "observables/temperature")) {
      Handle obs = h5::open_group(file, "observables");
      observables.open_existing(obs, "observables", observable_names(), observable_types(), observable_rows(),
                                resume_step);
    }
    flush();
  }

  void flush() { check_status(H5Fflush(file, H5F_SCOPE_LOCAL), "cannot flush"); }

  Handle observables_group() {
    return h5::exists(file, "observables") ? h5::open_group(file, "observables")
                                           : h5::create_group(file, "observables");
  }

  static std::vector<std::vector<hsize_t>> series_rows(const ObservableSeries& s) {
    return {std::vector<hsize_t>(s.shape.begin(), s.shape.end())};
  }

  // A resumed series must describe the same axes, or its old and new samples
  // would mean different things under one name.
  static void check_axes(hid_t group, const ObservableSeries& s) {
    for (const auto& axis : s.axes) {
      const std::string full = "observables/" + s.name + "/" + axis.name;
      const auto cols = static_cast<long long>(axis.cols);
      const bool same = axis.integer.empty() ? h5::read_array<double>(group, axis.name, -1, cols) == axis.real
                                             : h5::read_array<std::int64_t>(group, axis.name, -1, cols) == axis.integer;
      if (!same)
        throw H5Error(fmt::format("'{}' differs from this run's (to start a new trajectory, move it away)", full));
    }
  }
};

H5mdWriter::H5mdWriter(const TrajectorySpec& spec, const Units& units, long long natoms,
                       const std::vector<std::int64_t>& ids, const std::vector<std::int32_t>& types,
                       const std::string& creator_version, long resume_step)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.path = spec.file;
  m.spec = spec;
  m.unit_system = units.name;
  m.h5md_units = units.h5md;
  m.natoms = natoms;
  m.resume_step = resume_step;
  if (natoms < 0 || static_cast<long long>(ids.size()) != natoms || static_cast<long long>(types.size()) != natoms)
    throw std::invalid_argument(
        fmt::format("trajectory {}: {} atoms but {} ids and {} types", m.path, natoms, ids.size(), types.size()));
  for (int k = 0; k < kNumFields; ++k)
    if (field_selected(spec, k)) m.fields.push_back(k);
  if (m.fields.empty()) throw std::invalid_argument(fmt::format("trajectory {}: no field selected", m.path));
  h5::quiet();
  m.guarded([&] {
    std::error_code ec;
    if (resume_step >= 0 && std::filesystem::exists(m.path, ec))
      m.open_existing(ids, types, resume_step);
    else
      m.create(ids, types, creator_version);
  });
}

H5mdWriter::~H5mdWriter() = default;

void H5mdWriter::write_frame(const TrajectoryFrame& f) {
  Impl& m = *impl_;
  if (f.step <= m.particles.last_step) return;
  const std::vector<double>* doubles[3] = {f.position, f.velocity, f.force};
  std::vector<const void*> data;
  const std::size_t want = 3 * static_cast<std::size_t>(m.natoms);
  for (int k : m.fields) {
    const std::size_t size = k == 3 ? (f.image ? f.image->size() : 0) : (doubles[k] ? doubles[k]->size() : 0);
    const bool given = k == 3 ? f.image != nullptr : doubles[k] != nullptr;
    if (!given || size != want)
      throw std::invalid_argument(
          fmt::format("trajectory {}: frame at step {}: {} {}", m.path, f.step, kFields[k],
                      given ? fmt::format("has {} values, expected {}", size, want) : std::string("is missing")));
    data.push_back(k == 3 ? static_cast<const void*>(f.image->data()) : doubles[k]->data());
  }
  // A diagonal matrix rather than the spec's equally valid cuboid vector:
  // MDAnalysis (2.4) reads box edges only in matrix form.
  const double edges[9] = {f.box.length(0), 0, 0, 0, f.box.length(1), 0, 0, 0, f.box.length(2)};
  data.push_back(edges);
  m.guarded([&] {
    m.particles.append(f.step, f.time, data);
    m.flush();
  });
}

void H5mdWriter::write_observables(long step, double time, const ThermoValues& v) {
  Impl& m = *impl_;
  if (step <= m.observables.last_step) return;
  m.guarded([&] {
    if (!m.observables.open()) {
      // Made on first use: an observables group shorter than the trajectory
      // trips up readers that index it by frame (MDAnalysis does).
      Handle obs = m.observables_group();
      m.observables.create(obs, "observables", Impl::observable_names(), Impl::observable_types(),
                           Impl::observable_rows());
      m.write_units(obs, Impl::observable_names());
    }
    const double values[kNumObservables] = {v.temp, v.pe, v.ke, v.etotal, v.press};
    std::vector<const void*> data;
    for (const double& x : values) data.push_back(&x);
    m.observables.append(step, time, data);
    m.flush();
  });
}

int H5mdWriter::add_series(const ObservableSeries& series) {
  Impl& m = *impl_;
  Impl::Series added{series, {}};
  m.guarded([&] {
    if (m.resume_step < 0 || !h5::exists(m.file, "observables/" + series.name)) return;
    Handle obs = h5::open_group(m.file, "observables");
    Impl::check_axes(h5::open_group(obs, series.name), series);
    added.line.open_existing(obs, "observables", {series.name}, {H5T_NATIVE_DOUBLE}, Impl::series_rows(series),
                             m.resume_step);
  });
  m.series.push_back(std::move(added));
  return static_cast<int>(m.series.size()) - 1;
}

void H5mdWriter::write_series(int k, long step, double time, const std::vector<double>& value) {
  Impl& m = *impl_;
  Impl::Series& s = m.series.at(static_cast<std::size_t>(k));
  if (step <= s.line.last_step) return;
  std::size_t want = 1;
  for (std::size_t d : s.spec.shape) want *= d;
  if (value.size() != want)
    throw std::invalid_argument(fmt::format("trajectory {}: observables/{} at step {}: {} values, expected {}", m.path,
                                            s.spec.name, step, value.size(), want));
  m.guarded([&] {
    if (!s.line.open()) {
      // Made at the first sample, as the thermo observables are.
      Handle obs = m.observables_group();
      s.line.create(obs, "observables", {s.spec.name}, {H5T_NATIVE_DOUBLE}, Impl::series_rows(s.spec));
      Handle group = h5::open_group(obs, s.spec.name);
      for (const auto& axis : s.spec.axes) {
        if (axis.integer.empty())
          h5::write_array(group, axis.name, axis.real, axis.cols);
        else
          h5::write_array(group, axis.name, axis.integer, axis.cols);
      }
    }
    s.line.append(step, time, {value.data()});
    m.flush();
  });
}

void H5mdWriter::write_connectivity(const std::vector<std::int64_t>& bond_pairs,
                                    const std::vector<std::int64_t>& angle_triples) {
  Impl& m = *impl_;
  if (bond_pairs.size() % 2 != 0 || angle_triples.size() % 3 != 0)
    throw std::invalid_argument(
        fmt::format("trajectory {}: {} bond and {} angle ids", m.path, bond_pairs.size(), angle_triples.size()));
  if (bond_pairs.empty() && angle_triples.empty()) return;
  m.guarded([&] {
    const char* group = h5::exists(m.file, kParticles) ? kParticles : kLegacyParticles;
    const std::string particles_group = std::string(group).substr(std::strlen("particles/"));
    Handle c = h5::exists(m.file, "connectivity") ? h5::open_group(m.file, "connectivity")
                                                  : h5::create_group(m.file, "connectivity");
    const std::pair<const char*, const std::vector<std::int64_t>*> lists[] = {{"bonds", &bond_pairs},
                                                                              {"angles", &angle_triples}};
    for (const auto& [name, ids] : lists) {
      if (ids->empty()) continue;
      const hsize_t cols = name == std::string("bonds") ? 2 : 3;
      if (h5::exists(c, name)) {
        if (h5::read_array<std::int64_t>(c, name, -1, static_cast<long long>(cols)) != *ids)
          throw H5Error(
              fmt::format("its connectivity/{} differ from this run's (to start a new trajectory, move it "
                          "away)",
                          name));
        continue;
      }
      h5::write_array(c, name, *ids, cols);
      h5::write_attr_vlen_string(open_dataset(c, name), "particles_group", particles_group);
    }
    m.flush();
  });
}

long H5mdWriter::series_samples(int k) const {
  return static_cast<long>(impl_->series.at(static_cast<std::size_t>(k)).line.samples);
}

void H5mdWriter::flush() {
  impl_->guarded([&] { impl_->flush(); });
}

long H5mdWriter::frames() const { return static_cast<long>(impl_->particles.samples); }

long H5mdWriter::observable_samples() const { return static_cast<long>(impl_->observables.samples); }

}  // namespace tessera
