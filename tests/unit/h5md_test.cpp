#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <stdexcept>

#include <fmt/format.h>

#include "core/units.hpp"
#include "io/h5.hpp"
#include "io/h5md_writer.hpp"
#include "test_support.hpp"

using namespace tessera;
using tessera::test::Scratch;
namespace fs = std::filesystem;

namespace {

using test::Scratch;

constexpr long long kAtoms = 5;
const std::vector<std::int64_t> kIds = {3, 7, 10, 11, 20};
const std::vector<std::int32_t> kTypes = {1, 2, 1, 1, 2};
constexpr double kDt = 0.005;

TrajectorySpec all_fields(const std::string& path) {
  TrajectorySpec s;
  s.every = 10;
  s.file = path;
  s.position = s.velocity = s.force = s.image = true;
  return s;
}

// Per-frame data with every bit in play (no round numbers), so a lossy
// conversion anywhere would show. `salt` tells a rewritten frame apart.
struct FrameData {
  long step;
  Box box;
  std::vector<double> position, velocity, force;
  std::vector<std::int32_t> image;

  explicit FrameData(long s, double salt = 0) : step(s) {
    for (int d = 0; d < 3; ++d) {
      box.lo[d] = -0.25 * d;
      box.hi[d] = 5.039684199579493 + 0.001 * s + 0.1 * d + salt;
    }
    for (long long i = 0; i < 3 * kAtoms; ++i) {
      const double x = static_cast<double>(i) + 0.37 * static_cast<double>(s) + salt;
      position.push_back(std::fmod(std::abs(std::sin(x)) * 5.0, 5.0));
      velocity.push_back(std::cos(1.3 * x) / 3.0);
      force.push_back(std::exp(std::sin(x)) - 1.0 / 7.0);
      image.push_back(static_cast<std::int32_t>(i % 5) - 2 + static_cast<std::int32_t>(s / 10));
    }
  }
  TrajectoryFrame frame() const {
    TrajectoryFrame f;
    f.step = step;
    f.time = static_cast<double>(step) * kDt;
    f.box = box;
    f.position = &position;
    f.velocity = &velocity;
    f.force = &force;
    f.image = &image;
    return f;
  }
};

ThermoValues thermo_at(long step, double salt = 0) {
  ThermoValues v;
  v.step = step;
  v.temp = 1.44 + std::sin(0.1 * static_cast<double>(step)) + salt;
  v.pe = -5.123456789 + 0.01 * static_cast<double>(step) + salt;
  v.ke = 2.1 + std::cos(static_cast<double>(step)) + salt;
  v.etotal = v.pe + v.ke;
  v.press = 0.7 / 3.0 + salt;
  return v;
}

// Reading back with the plain HDF5 API, independently of the writer.
struct Reader {
  h5::Handle file;
  explicit Reader(const std::string& path) : file(h5::open_file(path, false)) {}

  std::vector<hsize_t> dims(const std::string& name) const {
    h5::Handle set(h5::check(H5Dopen2(file, name.c_str(), H5P_DEFAULT), "open " + name), H5Dclose);
    h5::Handle space(h5::check(H5Dget_space(set), "space"), H5Sclose);
    std::vector<hsize_t> d(static_cast<std::size_t>(H5Sget_simple_extent_ndims(space)));
    H5Sget_simple_extent_dims(space, d.data(), nullptr);
    return d;
  }
  template <class T>
  std::vector<T> read(const std::string& name) const {
    h5::Handle set(h5::check(H5Dopen2(file, name.c_str(), H5P_DEFAULT), "open " + name), H5Dclose);
    h5::Handle space(h5::check(H5Dget_space(set), "space"), H5Sclose);
    std::vector<T> out(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
    if (!out.empty())
      h5::check_status(H5Dread(set, h5::native_type<T>(), H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()), "read " + name);
    return out;
  }
  // Sample k of a time series `value` dataset.
  template <class T>
  std::vector<T> sample(const std::string& name, std::size_t k) const {
    const auto all = read<T>(name);
    const auto d = dims(name);
    const std::size_t per = d[0] ? all.size() / d[0] : 0;
    return std::vector<T>(all.begin() + k * per, all.begin() + (k + 1) * per);
  }
  h5::Handle object(const std::string& name) const {
    return h5::Handle(h5::check(H5Oopen(file, name.c_str(), H5P_DEFAULT), "open " + name), H5Oclose);
  }
  std::vector<std::int32_t> int_attr(const std::string& obj, const std::string& name) const {
    h5::Handle o = object(obj);
    h5::Handle a(h5::check(H5Aopen(o, name.c_str(), H5P_DEFAULT), "attr " + name), H5Aclose);
    h5::Handle space(h5::check(H5Aget_space(a), "space"), H5Sclose);
    std::vector<std::int32_t> v(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
    h5::check_status(H5Aread(a, H5T_NATIVE_INT32, v.data()), "read " + name);
    return v;
  }
  std::vector<std::string> strings_attr(const std::string& obj, const std::string& name) const {
    h5::Handle o = object(obj);
    h5::Handle a(h5::check(H5Aopen(o, name.c_str(), H5P_DEFAULT), "attr " + name), H5Aclose);
    h5::Handle type(h5::check(H5Aget_type(a), "type"), H5Tclose);
    REQUIRE(H5Tget_class(type) == H5T_STRING);
    REQUIRE(H5Tis_variable_str(type) == 0);
    h5::Handle space(h5::check(H5Aget_space(a), "space"), H5Sclose);
    const std::size_t n = static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)), w = H5Tget_size(type);
    std::string buf(n * w, '\0');
    h5::check_status(H5Aread(a, type, buf.data()), "read " + name);
    std::vector<std::string> out;
    for (std::size_t k = 0; k < n; ++k) out.push_back(std::string(buf.c_str() + k * w, strnlen(&buf[k * w], w)));
    return out;
  }
  std::string string_attr(const std::string& obj, const std::string& name) const {
    h5::Handle o = object(obj);
    return h5::read_attr_string(o, name);
  }
};

const char* kParticleSeries[] = {"position", "velocity", "force", "image", "box/edges"};
const char* kObservableSeries[] = {"temperature", "potential_energy", "kinetic_energy", "total_energy", "pressure"};

// Every time series in the file has exactly these steps, time = step * dt,
// and values of the same length.
void require_steps(const std::string& path, const std::vector<std::int64_t>& steps,
                   const std::vector<std::int64_t>& observable_steps) {
  Reader r(path);
  auto check_series = [&](const std::string& group, const std::vector<std::int64_t>& want) {
    INFO(group);
    REQUIRE(r.read<std::int64_t>(group + "/step") == want);
    const auto time = r.read<double>(group + "/time");
    REQUIRE(time.size() == want.size());
    for (std::size_t k = 0; k < want.size(); ++k) CHECK(time[k] == static_cast<double>(want[k]) * kDt);
    CHECK(r.dims(group + "/value")[0] == want.size());
  };
  for (const char* name : kParticleSeries) check_series(std::string("particles/trajectory/") + name, steps);
  for (const char* name : kObservableSeries) check_series(std::string("observables/") + name, observable_steps);
}

void write_frames(H5mdWriter& w, const std::vector<long>& steps, double salt = 0) {
  for (long s : steps) {
    w.write_frame(FrameData(s, salt).frame());
    w.write_observables(s, static_cast<double>(s) * kDt, thermo_at(s, salt));
  }
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const h5::H5Error& e) {
    return e.what();
  }
  FAIL("no H5Error thrown");
  return {};
}

}  // namespace

TEST_CASE("H5MD trajectory frames, box, species and metadata read back bit-exact", "[h5md]") {
  Scratch scratch("frames");
  const std::string path = scratch.file("traj.h5");
  {
    H5mdWriter w(all_fields(path), units_for("lj"), kAtoms, kIds, kTypes, "9.8.7 (test)", -1);
    CHECK(w.frames() == 0);
    write_frames(w, {0, 10, 20});
    CHECK(w.frames() == 3);
    // A frame not past the last stored step is skipped, not appended.
    w.write_frame(FrameData(20, 1.0).frame());
    w.write_frame(FrameData(10).frame());
    w.write_observables(20, 20 * kDt, thermo_at(20, 1.0));
    CHECK(w.frames() == 3);
    CHECK(w.observable_samples() == 3);
  }
  Reader r(path);
  CHECK(r.int_attr("h5md", "version") == std::vector<std::int32_t>{1, 1});
  CHECK(r.string_attr("h5md/creator", "name") == "Tessera");
  CHECK(r.string_attr("h5md/creator", "version") == "9.8.7 (test)");
  CHECK_FALSE(r.string_attr("h5md/author", "name").empty());
  CHECK(r.int_attr("particles/trajectory/box", "dimension") == std::vector<std::int32_t>{3});
  CHECK(r.strings_attr("particles/trajectory/box", "boundary") ==
        std::vector<std::string>{"periodic", "periodic", "periodic"});
  CHECK(r.string_attr("parameters", "units") == "lj");
  CHECK(r.string_attr("h5md/modules/units", "system") == "lj");
  CHECK(r.read<std::int32_t>("particles/trajectory/species") == kTypes);
  CHECK(r.read<std::int64_t>("particles/trajectory/id") == kIds);
  CHECK(r.dims("particles/trajectory/position/value") == std::vector<hsize_t>{3, kAtoms, 3});
  CHECK(r.dims("particles/trajectory/image/value") == std::vector<hsize_t>{3, kAtoms, 3});
  CHECK(r.dims("particles/trajectory/box/edges/value") == std::vector<hsize_t>{3, 3, 3});
  CHECK(r.dims("observables/temperature/value") == std::vector<hsize_t>{3});
  {
    h5::Handle image = r.object("particles/trajectory/image/value");
    h5::Handle type(H5Dget_type(image), H5Tclose);
    CHECK(H5Tget_class(type) == H5T_INTEGER);
  }
  require_steps(path, {0, 10, 20}, {0, 10, 20});
  const std::vector<long> steps = {0, 10, 20};
  for (std::size_t k = 0; k < steps.size(); ++k) {
    INFO("frame " << k);
    const FrameData want(steps[k]);
    CHECK(r.sample<double>("particles/trajectory/position/value", k) == want.position);
    CHECK(r.sample<double>("particles/trajectory/velocity/value", k) == want.velocity);
    CHECK(r.sample<double>("particles/trajectory/force/value", k) == want.force);
    CHECK(r.sample<std::int32_t>("particles/trajectory/image/value", k) == want.image);
    const std::vector<double> edges = {want.box.length(0), 0, 0, 0, want.box.length(1), 0, 0, 0, want.box.length(2)};
    CHECK(r.sample<double>("particles/trajectory/box/edges/value", k) == edges);
    const ThermoValues v = thermo_at(steps[k]);
    CHECK(r.sample<double>("observables/temperature/value", k) == std::vector<double>{v.temp});
    CHECK(r.sample<double>("observables/potential_energy/value", k) == std::vector<double>{v.pe});
    CHECK(r.sample<double>("observables/kinetic_energy/value", k) == std::vector<double>{v.ke});
    CHECK(r.sample<double>("observables/total_energy/value", k) == std::vector<double>{v.etotal});
    CHECK(r.sample<double>("observables/pressure/value", k) == std::vector<double>{v.press});
  }
}

TEST_CASE("H5MD stores only the selected fields", "[h5md]") {
  Scratch scratch("fields");
  const std::string path = scratch.file("traj.h5");
  TrajectorySpec spec = all_fields(path);
  spec.velocity = spec.force = spec.image = false;
  {
    H5mdWriter w(spec, units_for("lj"), kAtoms, kIds, kTypes, "v", -1);
    FrameData d(0);
    TrajectoryFrame f;
    f.box = d.box;
    f.position = &d.position;
    w.write_frame(f);
    // A selected field missing from a frame is the caller's bug.
    TrajectoryFrame bad = f;
    bad.step = 10;
    bad.position = nullptr;
    CHECK_THROWS_AS(w.write_frame(bad), std::invalid_argument);
    std::vector<double> short_positions(3);
    bad.position = &short_positions;
    CHECK_THROWS_AS(w.write_frame(bad), std::invalid_argument);
    CHECK(w.frames() == 1);
  }
  Reader r(path);
  CHECK(h5::exists(r.file, "particles/trajectory/position/value"));
  CHECK_FALSE(h5::exists(r.file, "particles/trajectory/velocity"));
  CHECK_FALSE(h5::exists(r.file, "particles/trajectory/force"));
  CHECK_FALSE(h5::exists(r.file, "particles/trajectory/image"));
  // No thermo sample written: no observables group that readers would index by frame.
  CHECK_FALSE(h5::exists(r.file, "observables"));
  CHECK(r.read<std::int64_t>("particles/trajectory/box/edges/step") == std::vector<std::int64_t>{0});
}

TEST_CASE("a restarted run continues the H5MD trajectory without duplicate or missing frames", "[h5md]") {
  Scratch scratch("resume");
  const std::string path = scratch.file("traj.h5");
  const TrajectorySpec spec = all_fields(path);
  auto first_run = [&] {
    H5mdWriter w(spec, units_for("lj"), kAtoms, kIds, kTypes, "v", -1);
    write_frames(w, {0, 10, 20});
  };

  SECTION("resuming at the last stored frame keeps everything") {
    first_run();
    H5mdWriter w(spec, units_for("lj"), kAtoms, kIds, kTypes, "v", 20);
    CHECK(w.frames() == 3);
    write_frames(w, {20, 30}, 1.0);  // step 20 is already stored: skipped
    CHECK(w.frames() == 4);
  }
  SECTION("resuming at an earlier checkpoint drops the frames after it") {
    first_run();
    // The first run died after writing step 20 but its last checkpoint was at 10.
    H5mdWriter w(spec, units_for("lj"), kAtoms, kIds, kTypes, "v", 10);
    CHECK(w.frames() == 2);
    CHECK(w.observable_samples() == 2);
    write_frames(w, {10, 20, 30}, 1.0);
    CHECK(w.frames() == 4);
  }
  require_steps(path, {0, 10, 20, 30}, {0, 10, 20, 30});
  Reader r(path);
  // The continuation's frames, not the dead run's, whichever was stored.
  const bool replaced = FrameData(20).position != r.sample<double>("particles/trajectory/position/value", 2);
  const double salt = replaced ? 1.0 : 0.0;
  CHECK(r.sample<double>("particles/trajectory/position/value", 2) == FrameData(20, salt).position);
  CHECK(r.sample<double>("particles/trajectory/position/value", 3) == FrameData(30, 1.0).position);
  CHECK(r.sample<double>("observables/temperature/value", 2) == std::vector<double>{thermo_at(20, salt).temp});
  CHECK(r.sample<double>("particles/trajectory/position/value", 0) == FrameData(0).position);
  CHECK(r.sample<double>("particles/trajectory/position/value", 1) == FrameData(10).position);
}

TEST_CASE("a trajectory with the old particle group name (particles/all) is continued in that group", "[h5md]") {
  // Written before the group was renamed `trajectory` (for MDAnalysis): a
  // restart must extend it where it is, not start a second group.
  Scratch scratch("legacy");
  const std::string path = scratch.file("traj.h5");
  const TrajectorySpec spec = all_fields(path);
  {
    H5mdWriter w(spec, units_for("lj"), kAtoms, kIds, kTypes, "v", -1);
    write_frames(w, {0, 10});
  }
  {
    h5::Handle file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
    REQUIRE(H5Lmove(file, "particles/trajectory", file, "particles/all", H5P_DEFAULT, H5P_DEFAULT) >= 0);
  }
  {
    H5mdWriter w(spec, units_for("lj"), kAtoms, kIds, kTypes, "v", 10);
    CHECK(w.frames() == 2);
    write_frames(w, {10, 20});
    CHECK(w.frames() == 3);
  }
  Reader r(path);
  CHECK_FALSE(h5::exists(r.file, "particles/trajectory"));
  CHECK(r.dims("particles/all/position/value") == std::vector<hsize_t>{3, kAtoms, 3});
  CHECK(r.read<std::int64_t>("particles/all/position/step") == std::vector<std::int64_t>{0, 10, 20});
  CHECK(r.sample<double>("particles/all/position/value", 2) == FrameData(20).position);
}

TEST_CASE("resuming between stored frames truncates the later ones", "[h5md]") {
  Scratch scratch("truncate");
  const std::string path = scratch.file("traj.h5");
  const TrajectorySpec spec = all_fields(path);
  {
    H5mdWriter w(spec, units_for("lj"), kAtoms, kIds, kTypes, "v", -1);
    write_frames(w, {0, 10, 20});
  }
  { H5mdWriter w(spec, units_for("lj"), kAtoms, kIds, kTypes, "v", 15); }
  require_steps(path, {0, 10}, {0, 10});
  {
    H5mdWriter w(spec, units_for("lj"), kAtoms, kIds, kTypes, "v", 15);
    CHECK(w.frames() == 2);
    write_frames(w, {15, 25});
  }
  require_steps(path, {0, 10, 15, 25}, {0, 10, 15, 25});
  // Before the first frame: nothing left, and the file is still ours to append to.
  {
    H5mdWriter w(spec, units_for("lj"), kAtoms, kIds, kTypes, "v", 0);
    CHECK(w.frames() == 1);
  }
  require_steps(path, {0}, {0});
}

TEST_CASE("a half-written frame left by a killed run is dropped on resume", "[h5md]") {
  Scratch scratch("killed");
  const std::string path = scratch.file("traj.h5");
  const TrajectorySpec spec = all_fields(path);
  {
    H5mdWriter w(spec, units_for("lj"), kAtoms, kIds, kTypes, "v", -1);
    write_frames(w, {0, 10});
  }
  {
    h5::Handle f = h5::open_file(path, true);
    auto grow = [&](const char* name, std::vector<hsize_t> dims) {
      h5::Handle set(H5Dopen2(f, name, H5P_DEFAULT), H5Dclose);
      REQUIRE(H5Dset_extent(set, dims.data()) >= 0);
    };
    // Values are written before step, so a kill in between leaves longer values...
    grow("particles/trajectory/position/value", {3, kAtoms, 3});
    SECTION("values longer than step") {}
    // ...or, with HDF5's cache half flushed, a step grown but not yet written (read back as 0).
    SECTION("a step grown but not written") {
      grow("particles/trajectory/velocity/value", {3, kAtoms, 3});
      grow("particles/trajectory/force/value", {3, kAtoms, 3});
      grow("particles/trajectory/image/value", {3, kAtoms, 3});
      grow("particles/trajectory/box/edges/value", {3, 3, 3});
      grow("particles/trajectory/position/time", {3});
      grow("particles/trajectory/position/step", {3});
    }
  }
  {
    H5mdWriter w(spec, units_for("lj"), kAtoms, kIds, kTypes, "v", 100);
    CHECK(w.frames() == 2);
    write_frames(w, {20});
  }
  require_steps(path, {0, 10, 20}, {0, 10, 20});
  Reader r(path);
  CHECK(r.sample<double>("particles/trajectory/position/value", 2) == FrameData(20).position);
}

TEST_CASE("resume creates a missing trajectory, and a fresh run truncates an existing one", "[h5md]") {
  Scratch scratch("create");
  const std::string path = scratch.file("traj.h5");
  const TrajectorySpec spec = all_fields(path);
  {
    H5mdWriter w(spec, units_for("lj"), kAtoms, kIds, kTypes, "v", 50);
    CHECK(w.frames() == 0);
    write_frames(w, {50, 60});
  }
  require_steps(path, {50, 60}, {50, 60});
  {
    H5mdWriter w(spec, units_for("lj"), kAtoms, kIds, kTypes, "v", -1);
    CHECK(w.frames() == 0);
    write_frames(w, {0});
  }
  require_steps(path, {0}, {0});
}

TEST_CASE("an H5MD file that does not fit the run is refused with a clear message", "[h5md]") {
  Scratch scratch("refuse");
  const std::string path = scratch.file("traj.h5");
  const TrajectorySpec spec = all_fields(path);
  {
    H5mdWriter w(spec, units_for("lj"), kAtoms, kIds, kTypes, "v", -1);
    write_frames(w, {0, 10});
  }
  const auto resume = [&](const TrajectorySpec& s, long long n, const std::vector<std::int64_t>& ids,
                          const std::vector<std::int32_t>& types) {
    return error_of([&] { H5mdWriter w(s, units_for("lj"), n, ids, types, "v", 10); });
  };

  std::vector<std::int64_t> ids6 = kIds;
  ids6.push_back(30);
  std::vector<std::int32_t> types6 = kTypes;
  types6.push_back(1);
  std::string msg = resume(spec, 6, ids6, types6);
  CHECK_THAT(msg, Catch::Contains("trajectory " + path) && Catch::Contains("holds 5 atoms, this run has 6"));

  std::vector<std::int32_t> other_types = kTypes;
  other_types[2] = 2;
  CHECK_THAT(resume(spec, kAtoms, kIds, other_types), Catch::Contains("atom types"));
  std::vector<std::int64_t> other_ids = kIds;
  other_ids[4] = 21;
  CHECK_THAT(resume(spec, kAtoms, other_ids, kTypes), Catch::Contains("atom ids"));

  TrajectorySpec fewer = spec;
  fewer.force = false;
  CHECK_THAT(resume(fewer, kAtoms, kIds, kTypes),
             Catch::Contains("stores the fields [position, velocity, force, image], this run writes "
                             "[position, velocity, image]"));
  // None of the refusals touched the file.
  require_steps(path, {0, 10}, {0, 10});

  const std::string plain = scratch.file("plain.h5");
  { h5::Handle f = h5::create_file(plain, 0); }
  TrajectorySpec other = spec;
  other.file = plain;
  CHECK_THAT(resume(other, kAtoms, kIds, kTypes),
             Catch::Contains("trajectory " + plain) && Catch::Contains("not an H5MD file"));

  const std::string text = scratch.file("text.h5");
  std::ofstream(text) << "not HDF5 at all\n";
  other.file = text;
  CHECK_THAT(resume(other, kAtoms, kIds, kTypes),
             Catch::Contains("trajectory " + text) && Catch::Contains("cannot open the existing file"));

  other.file = scratch.file("no-such-folder/traj.h5");
  CHECK_THAT(error_of([&] { H5mdWriter w(other, units_for("lj"), kAtoms, kIds, kTypes, "v", -1); }),
             Catch::Contains("trajectory " + other.file) && Catch::Contains("cannot create the file"));
}
