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
#include "io/checkpoint_contents.hpp"
#include "io/checkpoint_fields.hpp"
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
  // Sorted at every rebuild, so that the storage order is not the id order.
  Deck deck = small_deck(kIntegrators[2], 60);
  deck.neighbor.sort_every = 1;
  Simulation sim(deck);
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

// Further per-atom quantities: checkpointed fields of the registry with no
// dedicated array. The registry has none today, and adding one would change
// every output, so these tests make their own: an integer one of width 1 and
// a real one of width 3.
namespace {

// Values no other atom or component has, and that are not round in binary.
std::int64_t molecule_of(std::int64_t id) { return 1000 + 7 * id; }
double dipole_of(std::int64_t id, int d) { return -0.1 * static_cast<double>(id) + d / 3.0; }

// The declarations (no values) that a build with these two fields would pass.
std::vector<CheckpointQuantity> further_declared() {
  CheckpointQuantity molecule, dipole;
  molecule.name = "molecule";
  molecule.integer = true;
  dipole.name = "dipole";
  dipole.width = 3;
  return {molecule, dipole};
}

CheckpointState with_further_quantities(CheckpointState s) {
  std::vector<CheckpointQuantity> q = further_declared();
  for (std::int64_t id : s.id) {
    q[0].integers.push_back(molecule_of(id));
    for (int d = 0; d < 3; ++d) q[1].reals.push_back(dipole_of(id, d));
  }
  s.quantities = q;
  return s;
}

CheckpointState small_state() {
  Simulation sim(small_deck(kIntegrators[1], 20));
  sim.setup();
  sim.run(20, nullptr);
  return sim.capture_state();
}

// The quantities of `s` are those of with_further_quantities, for its atoms.
void check_further_quantities(const CheckpointState& s) {
  REQUIRE(s.quantities.size() == 2);
  const CheckpointQuantity &molecule = s.quantities[0], &dipole = s.quantities[1];
  CHECK(molecule.name == "molecule");
  CHECK(molecule.integer);
  CHECK(molecule.width == 1);
  CHECK(molecule.reals.empty());
  CHECK(dipole.name == "dipole");
  CHECK_FALSE(dipole.integer);
  CHECK(dipole.width == 3);
  CHECK(dipole.integers.empty());
  REQUIRE(molecule.integers.size() == s.id.size());
  REQUIRE(dipole.reals.size() == 3 * s.id.size());
  for (std::size_t k = 0; k < s.id.size(); ++k) {
    CHECK(molecule.integers[k] == molecule_of(s.id[k]));
    for (int d = 0; d < 3; ++d) CHECK(dipole.reals[3 * k + d] == dipole_of(s.id[k], d));
  }
}

// What write_checkpoint_collective puts in a file, in one process: every
// per-atom dataset in three parts, the last one empty, each checksummed on
// its own (h5::write_rows; the MPI-IO side needs several ranks and is run by
// tests/e2e/mpi_restart.sh).
struct ThreePartRows final : AtomRowsOf<ThreePartRows> {
  template <class T>
  static void put(hid_t g, const std::string& name, const std::vector<T>& v, int cols) {
    const std::size_t width = cols ? static_cast<std::size_t>(cols) : 1;
    const auto rows = static_cast<std::int64_t>(v.size() / width);
    const std::vector<std::int64_t> offsets = {0, rows / 3, rows, rows};
    std::vector<std::uint64_t> sums;
    for (std::size_t p = 0; p + 1 < offsets.size(); ++p)
      sums.push_back(checksum64(v.data() + width * offsets[p], width * (offsets[p + 1] - offsets[p]) * sizeof(T)));
    h5::write_rows(g, name, v, static_cast<hsize_t>(cols), 0, static_cast<hsize_t>(rows), offsets,
                   h5::combine_part_checksums(sums), H5P_DEFAULT);
  }
};

void write_in_parts(const std::string& path, const CheckpointState& s) {
  {
    h5::Handle file = h5::create_file(path, kCheckpointUserblock);
    ThreePartRows rows;
    write_checkpoint_contents(file, s, rows);
    file.close("close");
  }
  seal_checkpoint_file(path, s.format_version);
}

// The error reading `path` expecting `expected` gives ("" if it reads fine).
std::string read_refusal(const std::string& path, const std::vector<CheckpointQuantity>& expected) {
  try {
    read_checkpoint(path, expected);
  } catch (const CheckpointError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("further per-atom quantities round-trip through a checkpoint file, whole or in parts",
          "[checkpoint][quantities]") {
  const fs::path dir = scratch("quantities");
  const CheckpointState s = with_further_quantities(small_state());
  const std::string whole = (dir / "whole.h5").string(), parts = (dir / "parts.h5").string();
  write_checkpoint(whole, s);
  write_in_parts(parts, s);
  for (const std::string& path : {whole, parts}) {
    INFO(path);
    const CheckpointState r = read_checkpoint(path, further_declared());
    CHECK(r.id == s.id);
    CHECK(r.position == s.position);
    check_further_quantities(r);
    // Stored as /atoms/<quantity>: int64[N] and double[N][3].
    h5::Handle file = h5::open_file(path, false);
    h5::Handle atoms = h5::open_group(file, "atoms");
    CHECK(h5::read_array<std::int64_t>(atoms, "molecule", 256, 0) == s.quantities[0].integers);
    CHECK(h5::read_array<double>(atoms, "dipole", 256, 3) == s.quantities[1].reals);
    // A build that does not checkpoint them reads the file without them.
    CHECK(read_checkpoint(path, {}).quantities.empty());
  }
  {
    h5::Handle file = h5::open_file(parts, false);
    h5::Handle dipole(H5Dopen2(file, "atoms/dipole", H5P_DEFAULT), H5Dclose);
    CHECK(h5::has_attr(dipole, "xxh3_64_rows"));
  }
  fs::remove_all(dir);
}

TEST_CASE("a checkpoint without a declared quantity, or with it damaged, is refused by name",
          "[checkpoint][quantities][errors]") {
  const fs::path dir = scratch("quantities-refused");
  const std::string path = (dir / "ckpt.h5").string();
  CheckpointState only_molecule = with_further_quantities(small_state());
  only_molecule.quantities.pop_back();
  write_checkpoint(path, only_molecule);
  CHECK_THAT(read_refusal(path, further_declared()), Catch::Contains(path) &&
                                                         Catch::Contains("atoms/dipole is missing") &&
                                                         Catch::Contains("per-atom quantity 'dipole'"));

  const CheckpointState s = with_further_quantities(small_state());
  write_checkpoint(path, s);
  CHECK(read_refusal(path, further_declared()).empty());
  std::vector<CheckpointQuantity> as_integers = further_declared();
  as_integers[1].integer = true;
  CHECK_THAT(read_refusal(path, as_integers), Catch::Contains("atoms/dipole holds reals"));
  std::vector<CheckpointQuantity> narrower = further_declared();
  narrower[1].width = 2;
  CHECK_THAT(read_refusal(path, narrower), Catch::Contains("dataset 'dipole' has 3 columns, expected 2"));

  // One flipped bit in its values: the whole-file checksum covers them.
  {
    std::ifstream in(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const double* first_row = s.quantities[1].reals.data();
    const auto at = bytes.find(std::string(reinterpret_cast<const char*>(first_row), 3 * sizeof(double)));
    REQUIRE(at != std::string::npos);
    flip_byte(path, at);
  }
  CHECK_THAT(read_refusal(path, further_declared()), Catch::Contains("corrupted: the whole-file checksum"));

  // Rewritten inside and resealed: its own checksum catches it.
  write_checkpoint(path, s);
  edit_inside(path, [](hid_t f) {
    h5::Handle set(H5Dopen2(f, "atoms/dipole", H5P_DEFAULT), H5Dclose);
    std::vector<double> junk(256 * 3, 1.0);
    H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, junk.data());
  });
  CHECK_THAT(read_refusal(path, further_declared()), Catch::Contains("dataset 'dipole' fails its checksum"));
  fs::remove_all(dir);
}

TEST_CASE("further quantities survive a split over 3 ranks rejoined for 2, in id order",
          "[checkpoint][quantities][ranks]") {
  const CheckpointState s = with_further_quantities(small_state());
  // Written on 3 ranks: each holds a scrambled share, sent as bytes and
  // gathered into id order.
  std::vector<int> owner(s.id.size());
  for (std::size_t k = 0; k < owner.size(); ++k) owner[k] = static_cast<int>((k * 7 + k / 5) % 3);
  std::vector<CheckpointState> three(3);
  for (int r = 0; r < 3; ++r) unpack_atoms(pack_atoms(split_atoms(s, owner, 3)[r]), three[r]);
  CheckpointState gathered;
  merge_atoms(three, gathered);
  CHECK(gathered.id == s.id);
  check_further_quantities(gathered);

  // Restarted on 2: rows dealt by another pattern, each rank's in id order.
  for (std::size_t k = 0; k < owner.size(); ++k) owner[k] = static_cast<int>((k / 3) % 2);
  std::vector<CheckpointState> two(2);
  std::size_t total = 0;
  for (int r = 0; r < 2; ++r) {
    unpack_atoms(pack_atoms(split_atoms(gathered, owner, 2)[r]), two[r]);
    CHECK(std::is_sorted(two[r].id.begin(), two[r].id.end()));
    check_further_quantities(two[r]);
    total += two[r].id.size();
  }
  CHECK(total == s.id.size());
  CheckpointState rejoined;
  merge_atoms(two, rejoined);
  CHECK(rejoined.id == s.id);
  check_further_quantities(rejoined);

  // A rank with no atoms still knows which quantities there are: every rank
  // writes every dataset of a collective file.
  const std::vector<CheckpointState> none_on_2 = split_atoms(s, std::vector<int>(s.id.size(), 0), 3);
  CheckpointState empty;
  unpack_atoms(pack_atoms(none_on_2[2]), empty);
  CHECK(empty.id.empty());
  REQUIRE(empty.quantities.size() == 2);
  CHECK(empty.quantities[1].name == "dipole");
  CHECK(empty.quantities[1].width == 3);

  CheckpointState other = three[1];
  other.quantities.pop_back();
  CHECK_THROWS_WITH(merge_atoms({three[0], other}, rejoined), Catch::Contains("different per-atom quantities"));
}

namespace {

// A store with the registry's fields and two more: what AtomStore would be
// with a molecule id (int, state) and a dipole (float components, derived,
// like forces) registered as checkpointed.
struct MoreStore : AtomStore {
  std::vector<int> molecule;
  std::vector<float> mux, muy, muz;
};

struct MoreFields {
  template <class Store, class F>
  void operator()(Store& s, unsigned mask, F&& f) const {
    for_each_field(s, mask, f);
    if ((mask & kFieldCheckpointed) == 0) return;
    f(s.molecule, FieldInfo{"molecule", "molecule", 0, 1, kFieldCheckpointed | kFieldMigrates});
    f(s.mux, FieldInfo{"mux", "dipole", 0, 3, kFieldCheckpointed | kFieldDerived});
    f(s.muy, FieldInfo{"muy", "dipole", 1, 3, kFieldCheckpointed | kFieldDerived});
    f(s.muz, FieldInfo{"muz", "dipole", 2, 3, kFieldCheckpointed | kFieldDerived});
  }
};

MoreStore more_store(std::size_t n) {
  MoreStore a;
  a.resize_local(n);
  a.molecule.resize(n);
  a.mux.resize(n);
  a.muy.resize(n);
  a.muz.resize(n);
  return a;
}

}  // namespace

TEST_CASE("a checkpointed field without a dedicated array is captured and restored by the registry walk",
          "[checkpoint][quantities]") {
  const fs::path dir = scratch("quantities-walk");
  // Atom k of the checkpoint (id k + 1) sits in slot n - 1 - k of the store.
  const std::size_t n = 5;
  MoreStore a = more_store(n);
  const auto slot = [&](std::size_t k) { return n - 1 - k; };
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = slot(k);
    a.id[i] = static_cast<AtomId>(k + 1);
    a.type[i] = 1;
    a.x[i] = 0.5 + static_cast<double>(k);
    a.vx[i] = 0.25 * static_cast<double>(k);
    a.fz[i] = -1.5 * static_cast<double>(k);
    a.molecule[i] = static_cast<int>(molecule_of(a.id[i]));
    a.mux[i] = static_cast<float>(dipole_of(a.id[i], 0));
    a.muy[i] = static_cast<float>(dipole_of(a.id[i], 1));
    a.muz[i] = static_cast<float>(dipole_of(a.id[i], 2));
  }
  CheckpointState s;
  capture_fields(a, n, slot, s, MoreFields{});
  const std::vector<CheckpointQuantity> declared = further_quantities(a, MoreFields{});
  REQUIRE(declared.size() == 2);
  CHECK(declared[0].name == "molecule");
  CHECK(declared[0].integer);
  CHECK(declared[1].name == "dipole");
  CHECK(declared[1].width == 3);
  CHECK_FALSE(declared[1].integer);
  REQUIRE(s.quantities.size() == 2);
  CHECK(s.quantities[0].integers == std::vector<std::int64_t>{1007, 1014, 1021, 1028, 1035});
  CHECK(s.quantities[1].reals[3 * 2 + 1] == static_cast<double>(static_cast<float>(dipole_of(3, 1))));
  CHECK(s.id == std::vector<std::int64_t>{1, 2, 3, 4, 5});
  CHECK(s.force[3 * 4 + 2] == -6.0);

  // Through a file, then back into a store whose slots are the identity.
  s.natoms = static_cast<long long>(n);
  s.ntypes = 1;
  s.mass = {1.0};
  s.box.lo[0] = s.box.lo[1] = s.box.lo[2] = 0;
  s.box.hi[0] = s.box.hi[1] = s.box.hi[2] = 10;
  s.reference_position = s.position;
  s.rank.assign(n, 0);
  for (std::size_t k = 0; k < n; ++k) s.storage_index.push_back(static_cast<std::int64_t>(k));
  const std::string path = (dir / "walk.h5").string();
  write_checkpoint(path, s);
  const CheckpointState r = read_checkpoint(path, declared);
  MoreStore b = more_store(n);
  const auto same = [](std::size_t k) { return k; };
  restore_fields(r, r.position, n, same, false, b, MoreFields{});
  CHECK(b.mux == std::vector<float>(n, 0.0f));  // derived: not yet
  restore_fields(r, r.position, n, same, true, b, MoreFields{});
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = slot(k);
    CHECK(b.id[k] == a.id[i]);
    CHECK(b.x[k] == a.x[i]);
    CHECK(b.vx[k] == a.vx[i]);
    CHECK(b.fz[k] == a.fz[i]);
    CHECK(b.molecule[k] == a.molecule[i]);
    CHECK(b.mux[k] == a.mux[i]);
    CHECK(b.muy[k] == a.muy[i]);
    CHECK(b.muz[k] == a.muz[i]);
  }

  // A state without them cannot fill the store: read_checkpoint refuses such
  // a file first, so this is a programming error.
  CheckpointState without = r;
  without.quantities.clear();
  CHECK_THROWS_WITH(restore_fields(without, without.position, n, same, false, b, MoreFields{}),
                    Catch::Contains("no array for the per-atom quantity molecule"));
  fs::remove_all(dir);
}

TEST_CASE("every registered checkpointed quantity without a dedicated array is captured", "[checkpoint][quantities]") {
  const CheckpointState s = small_state();
  const std::vector<CheckpointQuantity> registered = registered_checkpoint_quantities();
  REQUIRE(s.quantities.size() == registered.size());
  for (std::size_t q = 0; q < registered.size(); ++q) {
    CHECK(s.quantities[q].name == registered[q].name);
    CHECK_FALSE(has_dedicated_array(registered[q].name));
  }
  for (const char* name : {"id", "type", "position", "velocity", "force", "image"}) CHECK(has_dedicated_array(name));
}
