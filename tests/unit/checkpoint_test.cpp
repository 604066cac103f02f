#include <sys/resource.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>

#include "core/error.hpp"
#include "io/checkpoint.hpp"
#include "io/checkpoint_folder.hpp"
#include "io/checkpoint_parts.hpp"
#include "io/checksum.hpp"
#include "io/h5.hpp"
#include "run/simulation.hpp"
#include "test_support.hpp"

using namespace tessera;
namespace fs = std::filesystem;

namespace {

fs::path scratch(const std::string& name) {
  const fs::path p = fs::temp_directory_path() / fmt::format("tessera-ckpt-{}-{}", name, ::getpid());
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

const char* kIntegrators[] = {
    "{style: nve, dt: 0.005}",
    "{style: langevin, dt: 0.005, temperature: 1.0, damping: 0.5, seed: 99}",
    "{style: nose-hoover, dt: 0.005, temperature: 1.0, damping: 0.5, chain: 3}",
};

Deck small_deck(const std::string& integrator, long steps) {
  // 4x4x4 fcc cells at liquid density: 256 atoms, ~20 list rebuilds per 200 steps.
  return test::deck_from(test::lj_lattice_yaml(4, 1.44, steps, integrator));
}

void require_same_atoms(const Simulation& a, const Simulation& b) {
  const CheckpointState sa = a.capture_state(), sb = b.capture_state();
  REQUIRE(sa.id == sb.id);
  // Bitwise: the continuation must be the same trajectory, not a close one.
  CHECK(sa.position == sb.position);
  CHECK(sa.velocity == sb.velocity);
  CHECK(sa.image == sb.image);
  CHECK(sa.storage_index == sb.storage_index);
}

}  // namespace

TEST_CASE("a checkpoint holds the whole state and reads back bit for bit", "[checkpoint]") {
  const fs::path dir = scratch("roundtrip");
  Simulation sim(small_deck(kIntegrators[2], 60));
  sim.setup();
  sim.run(60, nullptr);
  const CheckpointState s = sim.capture_state();
  const std::string path = checkpoint_path(dir.string(), sim.step());
  write_checkpoint(path, s);
  const CheckpointState r = read_checkpoint(path);
  CHECK(r.step == 60);
  CHECK(r.time == 60 * 0.005);
  CHECK(r.natoms == 256);
  CHECK(r.deck_text == s.deck_text);
  CHECK(r.position == s.position);
  CHECK(r.velocity == s.velocity);
  CHECK(r.image == s.image);
  CHECK(r.reference_position == s.reference_position);
  CHECK(r.storage_index == s.storage_index);
  CHECK(r.chain_position == s.chain_position);
  CHECK(r.chain_velocity == s.chain_velocity);
  CHECK(r.last_build_step == s.last_build_step);
  CHECK(r.integrator_style == "nose-hoover");
  CHECK(r.creator.rfind("tessera ", 0) == 0);
  // Stored in id order, whatever the spatial sort did to the arrays.
  CHECK(std::is_sorted(r.id.begin(), r.id.end()));
  CHECK_FALSE(std::is_sorted(r.storage_index.begin(), r.storage_index.end()));
  // No temporary file is left beside it.
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);
  fs::remove_all(dir);
}

TEST_CASE("run N + restart + run N equals run 2N bitwise, for every integrator", "[checkpoint][restart]") {
  const fs::path dir = scratch("continue");
  for (const char* integrator : kIntegrators) {
    INFO(integrator);
    Simulation straight(small_deck(integrator, 200));
    straight.setup();
    straight.run(100, nullptr);
    const std::string path = checkpoint_path(dir.string(), straight.step());
    write_checkpoint(path, straight.capture_state());
    straight.run(100, nullptr);

    Simulation resumed(small_deck(integrator, 200));
    resumed.restore(read_checkpoint(path), path);
    CHECK(resumed.step() == 100);
    resumed.run(100, nullptr);
    REQUIRE(resumed.step() == 200);
    require_same_atoms(straight, resumed);
    const ThermoValues a = straight.thermo(), b = resumed.thermo();
    CHECK(a.etotal == b.etotal);
    CHECK(a.press == b.press);
    CHECK(a.econserve == b.econserve);
    CHECK(straight.integrator().chain_velocities() == resumed.integrator().chain_velocities());
  }
  fs::remove_all(dir);
}

TEST_CASE("restarting without the stored list-build state would not be exact", "[checkpoint][restart]") {
  // The control for the test above: rebuilding the list from the current
  // positions (what a checkpoint without neighbour state must do) changes the
  // summation order, and the chaotic dynamics amplify that within 100 steps.
  Simulation straight(small_deck(kIntegrators[0], 200));
  straight.setup();
  straight.run(100, nullptr);
  CheckpointState s = straight.capture_state();
  straight.run(100, nullptr);
  s.reference_position = s.position;
  s.last_build_step = s.step;
  Simulation resumed(small_deck(kIntegrators[0], 200));
  resumed.restore(s, "edited");
  resumed.run(100, nullptr);
  CHECK(straight.capture_state().position != resumed.capture_state().position);
}

namespace {

// Writes a good checkpoint, lets `edit` change it, and returns the error
// that reading it gives ("" if it reads fine).
std::string refusal(const std::string& name, const std::function<void(const std::string&)>& edit,
                    int format_version = kCheckpointFormat) {
  const fs::path dir = scratch(name);
  Simulation sim(small_deck(kIntegrators[0], 10));
  sim.setup();
  CheckpointState s = sim.capture_state();
  s.format_version = format_version;
  const std::string path = checkpoint_path(dir.string(), 0);
  write_checkpoint(path, s);
  edit(path);
  std::string what;
  try {
    read_checkpoint(path);
  } catch (const CheckpointError& e) {
    what = e.what();
  }
  fs::remove_all(dir);
  return what;
}

void flip_byte(const std::string& path, std::uintmax_t at) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(static_cast<std::streamoff>(at));
  char c = 0;
  f.read(&c, 1);
  c = static_cast<char>(c ^ 0x10);
  f.seekp(static_cast<std::streamoff>(at));
  f.write(&c, 1);
}

// Edits the HDF5 contents and reseals, so the whole-file checksum passes and
// the inner checks are what must catch the damage.
void edit_inside(const std::string& path, const std::function<void(hid_t)>& edit) {
  {
    h5::Handle f = h5::open_file(path, true);
    edit(f);
    f.close("close");
  }
  seal_checkpoint_file(path, kCheckpointFormat);
}

}  // namespace

TEST_CASE("damaged or foreign checkpoints are refused with the file and the reason", "[checkpoint][errors]") {
  CHECK(refusal("ok", [](const std::string&) {}).empty());

  const std::string truncated =
      refusal("trunc", [](const std::string& p) { fs::resize_file(p, fs::file_size(p) / 2); });
  CHECK_THAT(truncated, Catch::Contains("ckpt-000000000000.h5") && Catch::Contains("truncated"));

  CHECK_THAT(refusal("tiny", [](const std::string& p) { fs::resize_file(p, 100); }),
             Catch::Contains("truncated: 100 bytes"));

  const std::string flipped = refusal("flip", [](const std::string& p) { flip_byte(p, fs::file_size(p) - 4000); });
  CHECK_THAT(flipped, Catch::Contains("corrupted: the whole-file checksum"));

  CHECK_THAT(refusal("magic", [](const std::string& p) { flip_byte(p, 0); }),
             Catch::Contains("not a Tessera checkpoint"));

  CHECK_THAT(refusal(
                 "version", [](const std::string&) {}, 99),
             Catch::Contains("format version 99, but this build reads versions 2 to 4"));

  CHECK_THAT(refusal("missing",
                     [](const std::string& p) {
                       edit_inside(p, [](hid_t f) { H5Ldelete(f, "atoms/velocity", H5P_DEFAULT); });
                     }),
             Catch::Contains("dataset 'velocity' is missing"));

  CHECK_THAT(refusal("dataset",
                     [](const std::string& p) {
                       edit_inside(p, [](hid_t f) {
                         // New values written over the data, without updating its checksum.
                         h5::Handle set(H5Dopen2(f, "atoms/position", H5P_DEFAULT), H5Dclose);
                         std::vector<double> junk(256 * 3, 1.0);
                         H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, junk.data());
                       });
                     }),
             Catch::Contains("dataset 'position' fails its checksum"));

  const fs::path dir = scratch("foreign");
  const std::string junk = (dir / "ckpt-000000000007.h5").string();
  std::ofstream(junk) << std::string(4096, 'x');
  CHECK_THROWS_WITH(read_checkpoint(junk), Catch::Contains("not a Tessera checkpoint"));
  CHECK_THROWS_WITH(read_checkpoint((dir / "absent.h5").string()), Catch::Contains("cannot open"));
  fs::remove_all(dir);
}

TEST_CASE("a checkpoint from another system is refused by the deck check", "[checkpoint][errors]") {
  const fs::path dir = scratch("mismatch");
  Simulation sim(small_deck(kIntegrators[0], 10));
  sim.setup();
  const std::string path = checkpoint_path(dir.string(), 0);
  write_checkpoint(path, sim.capture_state());
  Simulation other(test::deck_from(test::lj_lattice_yaml(5, 1.44, 10, kIntegrators[0])));
  CHECK_THROWS_WITH(other.restore(read_checkpoint(path), path),
                    Catch::Contains(path) && Catch::Contains("it holds 256 atoms, the deck builds 500"));
  Simulation nh(small_deck("{style: nose-hoover, dt: 0.005, temperature: 1.0, damping: 0.5, chain: 3}", 10));
  nh.setup();
  write_checkpoint(path, nh.capture_state());
  Simulation nh5(small_deck("{style: nose-hoover, dt: 0.005, temperature: 1.0, damping: 0.5, chain: 5}", 10));
  CHECK_THROWS_WITH(nh5.restore(read_checkpoint(path), path), Catch::Contains("chain of length 3"));
  fs::remove_all(dir);
}

TEST_CASE("auto restart picks the newest checkpoint that verifies and says what it skipped", "[checkpoint]") {
  const fs::path dir = scratch("auto");
  Simulation sim(small_deck(kIntegrators[0], 30));
  sim.setup();
  for (int k = 0; k < 3; ++k) {
    sim.run(10, nullptr);
    write_checkpoint(checkpoint_path(dir.string(), sim.step()), sim.capture_state());
  }
  CHECK(list_checkpoints(dir.string()).size() == 3);
  fs::resize_file(checkpoint_path(dir.string(), 30), 1000);
  const NewestGood pick = newest_good_checkpoint(dir.string());
  REQUIRE(pick.found);
  CHECK(pick.state.step == 20);
  REQUIRE(pick.skipped.size() == 1);
  CHECK_THAT(pick.skipped[0], Catch::Contains("ckpt-000000000030.h5") && Catch::Contains("truncated"));
  CHECK(prune_checkpoints(dir.string(), 1).size() == 2);
  CHECK(list_checkpoints(dir.string()).size() == 1);
  CHECK_FALSE(newest_good_checkpoint((dir / "none").string()).found);
  fs::remove_all(dir);
}

TEST_CASE("a failed checkpoint write leaves the previous file intact and no temporary", "[checkpoint][errors]") {
  const fs::path dir = scratch("full");
  Simulation sim(small_deck(kIntegrators[0], 10));
  sim.setup();
  const std::string path = checkpoint_path(dir.string(), 0);
  const CheckpointState good = sim.capture_state();
  write_checkpoint(path, good);
  const auto size = fs::file_size(path);

  // A file-size limit makes writes fail with EFBIG, as a full disk fails them
  // with ENOSPC: the same error path. (The e2e test fills a real tmpfs.)
  CheckpointState bigger = good;
  bigger.deck_text.assign(4 * size, '#');
  struct rlimit old {};
  getrlimit(RLIMIT_FSIZE, &old);
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit lim = old;
  lim.rlim_cur = 2 * size;
  setrlimit(RLIMIT_FSIZE, &lim);
  std::string what;
  try {
    write_checkpoint(path, bigger);
  } catch (const IoError& e) {
    what = e.what();
  }
  setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, old_handler);
  CHECK_THAT(what, Catch::Contains("cannot write checkpoint") && Catch::Contains(path));
  CHECK(read_checkpoint(path).position == good.position);
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);

  // A folder that is not there.
  CHECK_THROWS_AS(write_checkpoint((dir / "no" / "such" / "ckpt.h5").string(), good), IoError);
  fs::remove_all(dir);
}

TEST_CASE("a state with a NaN is recognised and a checkpoint holding one is refused", "[checkpoint][errors]") {
  const fs::path dir = scratch("nan");
  Simulation sim(small_deck(kIntegrators[0], 10));
  sim.setup();
  CheckpointState s = sim.capture_state();
  CHECK(first_non_finite_atom(s) == -1);
  s.force[3 * 17 + 1] = std::numeric_limits<double>::quiet_NaN();
  CHECK(first_non_finite_atom(s) == s.id[17]);
  const std::string path = checkpoint_path(dir.string(), 0);
  write_checkpoint(path, s);
  CHECK_THROWS_WITH(read_checkpoint(path), Catch::Contains(fmt::format("atom {} has a non-finite", s.id[17])));
  fs::remove_all(dir);
}

TEST_CASE("a state split among ranks and merged again is the same state", "[checkpoint][ranks]") {
  Simulation sim(small_deck(kIntegrators[1], 20));
  sim.setup();
  sim.run(20, nullptr);
  const CheckpointState s = sim.capture_state();

  // Rows dealt to 3 parts in a scrambled pattern, each part through bytes.
  std::vector<int> owner(s.id.size());
  for (std::size_t k = 0; k < owner.size(); ++k) owner[k] = static_cast<int>((k * 7 + k / 5) % 3);
  const std::vector<CheckpointState> parts = split_atoms(s, owner, 3);
  REQUIRE(parts.size() == 3);
  std::vector<CheckpointState> moved(3);
  std::size_t total = 0;
  for (int r = 0; r < 3; ++r) {
    CHECK(std::is_sorted(parts[r].id.begin(), parts[r].id.end()));
    unpack_atoms(pack_atoms(parts[r]), moved[r]);
    total += moved[r].id.size();
  }
  CHECK(total == s.id.size());
  CheckpointState merged;
  unpack_header(pack_header(s), merged);
  merge_atoms(moved, merged);
  CHECK(merged.step == s.step);
  CHECK(merged.chain_velocity == s.chain_velocity);
  CHECK(merged.box.hi[2] == s.box.hi[2]);
  CHECK(merged.id == s.id);
  CHECK(merged.position == s.position);
  CHECK(merged.velocity == s.velocity);
  CHECK(merged.force == s.force);
  CHECK(merged.image == s.image);
  CHECK(merged.reference_position == s.reference_position);
  CHECK(merged.storage_index == s.storage_index);

  std::vector<char> bytes = pack_atoms(s);
  bytes.resize(bytes.size() - 1);
  CHECK_THROWS_WITH(unpack_atoms(bytes, merged), Catch::Contains("truncated"));
  bytes = pack_atoms(s);
  bytes.push_back(0);
  CHECK_THROWS_WITH(unpack_atoms(bytes, merged), Catch::Contains("trailing bytes"));
}

TEST_CASE("a checkpoint whose rank layout is inconsistent is refused", "[checkpoint][ranks][errors]") {
  const fs::path dir = scratch("layout");
  Simulation sim(small_deck(kIntegrators[0], 10));
  sim.setup();
  const CheckpointState good = sim.capture_state();
  CHECK(good.nranks == 1);
  CHECK(good.rank_grid == std::array<int, 3>{1, 1, 1});
  const std::string path = checkpoint_path(dir.string(), 0);
  auto refused = [&](const CheckpointState& s) {
    write_checkpoint(path, s);
    try {
      read_checkpoint(path);
    } catch (const CheckpointError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(refused(good).empty());

  CheckpointState two = good;  // two ranks, atoms dealt alternately, slots per rank
  two.nranks = 2;
  two.rank_grid = {2, 1, 1};
  std::int64_t next[2] = {0, 0};
  for (std::size_t k = 0; k < two.id.size(); ++k) {
    two.rank[k] = static_cast<int>(k % 2);
    two.storage_index[k] = next[k % 2]++;
  }
  CHECK(refused(two).empty());
  CHECK(read_checkpoint(path).rank == two.rank);

  CheckpointState s = two;
  s.rank[5] = 2;
  CHECK_THAT(refused(s), Catch::Contains(fmt::format("atom {} belongs to rank 2, outside 0..1", s.id[5])));
  s = two;
  s.storage_index[4] = s.storage_index[6];  // two atoms of rank 0 in one slot
  CHECK_THAT(refused(s), Catch::Contains("not a permutation of rank 0's slots"));
  s = two;
  s.rank_grid = {1, 1, 3};
  CHECK_THAT(refused(s), Catch::Contains("rank_grid 1x1x3 does not hold nranks = 2"));
  s = two;
  s.rank_grid = {-1, -2, 1};
  CHECK_THAT(refused(s), Catch::Contains("does not hold nranks"));
  fs::remove_all(dir);
}

TEST_CASE("a dataset written in parts verifies part by part, whoever reads it", "[checkpoint][ranks][errors]") {
  // What three ranks write into one file (checkpoint_collective.cpp), written
  // here by one process part by part: rows 0-1, 2-4 and none.
  const fs::path dir = scratch("parts");
  const std::string path = (dir / "parts.h5").string();
  const std::vector<double> all = {0, 1, 2, 10, 11, 12, 20, 21, 22, 30, 31, 32, 40, 41, 42};
  const std::vector<std::int64_t> offsets = {0, 2, 5, 5};
  const auto part = [&](int p) {
    return std::vector<double>(all.begin() + 3 * offsets[p], all.begin() + 3 * offsets[p + 1]);
  };
  std::vector<std::uint64_t> sums;
  for (int p = 0; p < 3; ++p) sums.push_back(checksum64(part(p).data(), part(p).size() * sizeof(double)));
  const std::uint64_t combined = h5::combine_part_checksums(sums);
  const auto write = [&](const std::vector<std::int64_t>& stored_offsets, std::uint64_t stored_sum) {
    h5::Handle file = h5::create_file(path, 0);
    // The dataset exists once; the parts after the first only fill rows in.
    h5::write_rows(file, "v", part(0), 3, 0, 5, stored_offsets, stored_sum, H5P_DEFAULT);
    h5::Handle set(H5Dopen2(file, "v", H5P_DEFAULT), H5Dclose);
    h5::Handle space(H5Dget_space(set), H5Sclose);
    const hsize_t start[2] = {2, 0}, count[2] = {3, 3};
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, count, nullptr);
    h5::Handle mem(H5Screate_simple(2, count, nullptr), H5Sclose);
    REQUIRE(H5Dwrite(set, H5T_NATIVE_DOUBLE, mem, space, H5P_DEFAULT, part(1).data()) >= 0);
  };
  const auto read = [&] {
    h5::Handle file = h5::open_file(path, false);
    return h5::read_array<double>(file, "v", 5, 3);
  };

  write(offsets, combined);
  CHECK(read() == all);
  // Another split of the same rows is another checksum.
  write({0, 1, 5, 5}, combined);
  CHECK_THROWS_WITH(read(), Catch::Contains("dataset 'v' fails its checksum"));
  write({0, 2, 5}, combined);
  CHECK_THROWS_WITH(read(), Catch::Contains("dataset 'v' fails its checksum"));
  write(offsets, combined ^ 1);
  CHECK_THROWS_WITH(read(), Catch::Contains("dataset 'v' fails its checksum"));
  write({0, 3, 2, 5}, combined);
  CHECK_THROWS_WITH(read(), Catch::Contains("xxh3_64_rows does not split its 5 rows into parts"));
  write({0, 2, 6}, combined);
  CHECK_THROWS_WITH(read(), Catch::Contains("xxh3_64_rows does not split its 5 rows into parts"));
  fs::remove_all(dir);
}
