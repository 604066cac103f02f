#include "io/checkpoint.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <sstream>

#include "atoms/atom_store.hpp"
#include "core/error.hpp"
#include "io/checkpoint_contents.hpp"
#include "io/checkpoint_fields.hpp"
#include "io/checksum.hpp"
#include "io/durable_file.hpp"
#include "io/h5.hpp"

namespace tessera {

namespace {

constexpr const char* kMagic = "TESSERA CHECKPOINT";

struct Seal {
  int format = 0;
  std::uint64_t bytes = 0;
  std::uint64_t hash = 0;
};

std::string seal_text(const Seal& s) {
  return fmt::format("{}\nformat {}\nbytes {}\nxxh3_64 {:016x}\n", kMagic, s.format, s.bytes, s.hash);
}

// Parses the userblock; an empty optional-like flag when it is not ours.
bool parse_seal(const std::string& block, Seal& out) {
  std::istringstream in(block.substr(0, block.find('\0')));
  std::string magic;
  std::getline(in, magic);
  if (magic != kMagic) return false;
  std::string key;
  std::string hex;
  if (!(in >> key >> out.format) || key != "format") return false;
  if (!(in >> key >> out.bytes) || key != "bytes") return false;
  if (!(in >> key >> hex) || key != "xxh3_64") return false;
  try {
    out.hash = std::stoull(hex, nullptr, 16);
  } catch (const std::exception&) {
    return false;
  }
  return true;
}

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
  throw CheckpointError(fmt::format("checkpoint {}: {}", path, why));
}

std::string format_refusal(int format) {
  return fmt::format("format version {}, but this build reads versions {} to {}", format, kCheckpointOldestFormat,
                     kCheckpointFormat);
}

Seal read_and_check_seal(const std::string& path) {
  Fd f;
  f.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (f.fd < 0) refuse(path, fmt::format("cannot open: {}", std::strerror(errno)));
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) refuse(path, fmt::format("cannot stat: {}", std::strerror(errno)));
  if (!S_ISREG(st.st_mode)) refuse(path, "not a regular file");
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size < kCheckpointUserblock)
    refuse(path, fmt::format("truncated: {} bytes, shorter than the {}-byte header", size, kCheckpointUserblock));
  std::string block(kCheckpointUserblock, '\0');
  if (::pread(f.fd, block.data(), block.size(), 0) != static_cast<ssize_t>(block.size()))
    refuse(path, "cannot read the header");
  Seal seal;
  if (!parse_seal(block, seal)) refuse(path, "not a Tessera checkpoint (no 'TESSERA CHECKPOINT' header)");
  if (seal.format < kCheckpointOldestFormat || seal.format > kCheckpointFormat)
    refuse(path, format_refusal(seal.format));
  if (seal.bytes != size)
    refuse(path, fmt::format("{}: the header records {} bytes but the file has {}",
                             size < seal.bytes ? "truncated" : "has extra bytes", seal.bytes, size));
  const std::uint64_t hash = checksum_file_tail(f.fd, kCheckpointUserblock, size, path);
  if (hash != seal.hash)
    refuse(path,
           fmt::format("corrupted: the whole-file checksum is {:016x}, the header records {:016x}", hash, seal.hash));
  return seal;
}

// One rank holds every atom: each per-atom array is one plain dataset.
struct WholeRows final : AtomRowsOf<WholeRows> {
  template <class T>
  static void put(hid_t g, const std::string& name, const std::vector<T>& v, int cols) {
    h5::write_array(g, name, v, static_cast<hsize_t>(cols));
  }
};

// A width-1 quantity is a rank-1 dataset, as id and type are.
int columns(const CheckpointQuantity& q) { return q.width == 1 ? 0 : q.width; }

void write_box(hid_t file, const Box& b) {
  h5::Handle g = h5::create_group(file, "box");
  h5::write_array(g, "lo", std::vector<double>(b.lo, b.lo + 3));
  h5::write_array(g, "hi", std::vector<double>(b.hi, b.hi + 3));
}

}  // namespace

void write_checkpoint_contents(hid_t file, const CheckpointState& s, AtomRows& rows) {
  h5::write_attr<std::int32_t>(file, "format_version", s.format_version);
  h5::write_attr_string(file, "creator", s.creator);
  {
    h5::Handle g = h5::create_group(file, "state");
    h5::write_attr<std::int64_t>(g, "step", s.step);
    h5::write_attr<double>(g, "time", s.time);
    h5::write_attr<std::int64_t>(g, "natoms", s.natoms);
    h5::write_attr<std::int32_t>(g, "ntypes", s.ntypes);
    h5::write_attr<std::int32_t>(g, "nranks", s.nranks);
    // Only physical units are named: lj checkpoints stay as they were.
    if (s.units != "lj") h5::write_attr_string(g, "units", s.units);
    // Only molecular runs have special neighbours: other files stay as they were.
    for (int k = 0; k < 3 && s.molecular; ++k)
      h5::write_attr<double>(g, fmt::format("special_lj_1{}", k + 2), s.special_lj[k]);
    h5::write_attr<std::int64_t>(g, "last_build_step", s.last_build_step);
    h5::write_attr<std::int64_t>(g, "neighbor_builds", s.neighbor_builds);
  }
  {
    h5::Handle g = h5::create_group(file, "deck");
    h5::write_string(g, "text", s.deck_text);
  }
  write_box(file, s.box);
  {
    h5::Handle g = h5::create_group(file, "types");
    h5::write_array(g, "mass", s.mass);
  }
  {
    h5::Handle g = h5::create_group(file, "atoms");
    rows.write(g, "id", s.id, 0);
    rows.write(g, "type", s.type, 0);
    rows.write(g, "position", s.position, 3);
    rows.write(g, "velocity", s.velocity, 3);
    rows.write(g, "image", s.image, 3);
    rows.write(g, "force", s.force, 3);
    for (const CheckpointQuantity& q : s.quantities) {
      if (q.integer)
        rows.write(g, q.name, q.integers, columns(q));
      else
        rows.write(g, q.name, q.reals, columns(q));
    }
  }
  {
    h5::Handle g = h5::create_group(file, "neighbor");
    rows.write(g, "reference_position", s.reference_position, 3);
    h5::write_array(g, "rank_grid", std::vector<std::int32_t>(s.rank_grid.begin(), s.rank_grid.end()));
    h5::write_array(g, "rank_cuts", s.rank_cuts);
    rows.write(g, "rank", s.rank, 0);
    rows.write(g, "storage_index", s.storage_index, 0);
  }
  {
    h5::Handle g = h5::create_group(file, "integrator");
    h5::write_attr_string(g, "style", s.integrator_style);
    h5::write_array(g, "chain_position", s.chain_position);
    h5::write_array(g, "chain_velocity", s.chain_velocity);
    if (!s.chain_kinetic.empty()) h5::write_array(g, "chain_kinetic", s.chain_kinetic);
    // Only a run with a barostat has these: other checkpoints stay as they were.
    if (!s.barostat_state.empty()) {
      h5::write_array(g, "barostat_state", s.barostat_state);
      h5::write_array(g, "build_box", s.build_box);
    }
  }
  {
    h5::Handle g = h5::create_group(file, "random");
    h5::write_attr<std::uint64_t>(g, "key", s.random_key);
    h5::write_attr<std::uint64_t>(g, "counter", s.random_counter);
  }
  {
    h5::Handle g = h5::create_group(file, "analysis");
    h5::write_attr<std::int64_t>(g, "msd_origin_step", s.msd_origin_step);
    rows.write(g, "msd_origin", s.msd_origin, 3);
  }
}

namespace {

// Checks that the arrays describe one consistent system; a checkpoint that
// passed its checksums can still have been written by a broken tool.
void check_contents(const std::string& path, const CheckpointState& s) {
  if (s.natoms < 0) refuse(path, fmt::format("negative atom count {}", s.natoms));
  if (s.ntypes < 1) refuse(path, fmt::format("type count {} (must be at least 1)", s.ntypes));
  if (static_cast<long long>(s.mass.size()) != s.ntypes)
    refuse(path, fmt::format("types/mass has {} entries for {} types", s.mass.size(), s.ntypes));
  for (int d = 0; d < 3; ++d)
    if (!(s.box.hi[d] > s.box.lo[d]) || !std::isfinite(s.box.hi[d] - s.box.lo[d]))
      refuse(path, "the box has a non-positive or non-finite edge");
  for (long long k = 0; k < s.natoms; ++k) {
    if (k > 0 && s.id[k] <= s.id[k - 1])
      refuse(path,
             fmt::format("atoms/id is not strictly ascending at row {} (id {} after {})", k, s.id[k], s.id[k - 1]));
    if (s.type[k] < 1 || s.type[k] > s.ntypes)
      refuse(path, fmt::format("atom {} has type {}, outside 1..{}", s.id[k], s.type[k], s.ntypes));
  }
  const std::int64_t bad = first_non_finite_atom(s);
  if (bad >= 0) refuse(path, fmt::format("atom {} has a non-finite position, velocity or force", bad));
  if (!s.msd_origin.empty()) {
    if (static_cast<long long>(s.msd_origin.size()) != 3 * s.natoms)
      refuse(path, fmt::format("analysis/msd_origin has {} rows for {} atoms", s.msd_origin.size() / 3, s.natoms));
    if (s.msd_origin_step < 0 || s.msd_origin_step > s.step)
      refuse(path, fmt::format("analysis/msd_origin is of step {}, outside 0..{}", s.msd_origin_step, s.step));
    for (std::size_t k = 0; k < s.msd_origin.size(); ++k)
      if (!std::isfinite(s.msd_origin[k]))
        refuse(path, fmt::format("atom {} has a non-finite MSD origin", s.id[k / 3]));
  }
  constexpr int kMaxRanks = 1 << 22;
  const bool grid_ok = s.rank_grid[0] >= 1 && s.rank_grid[1] >= 1 && s.rank_grid[2] >= 1;
  if (s.nranks < 1 || s.nranks > kMaxRanks || !grid_ok ||
      static_cast<long long>(s.rank_grid[0]) * s.rank_grid[1] * s.rank_grid[2] != s.nranks)
    refuse(path, fmt::format("neighbor/rank_grid {}x{}x{} does not hold nranks = {} ranks", s.rank_grid[0],
                             s.rank_grid[1], s.rank_grid[2], s.nranks));
  if (!s.rank_cuts.empty()) {
    const std::size_t want = static_cast<std::size_t>(s.rank_grid[0]) + s.rank_grid[1] + s.rank_grid[2] + 3;
    bool ok = s.rank_cuts.size() == want;
    for (std::size_t d = 0, at = 0; ok && d < 3; at += s.rank_grid[d] + 1, ++d) {
      ok = s.rank_cuts[at] == 0 && s.rank_cuts[at + s.rank_grid[d]] == 1;
      for (int c = 0; ok && c < s.rank_grid[d]; ++c) ok = s.rank_cuts[at + c] < s.rank_cuts[at + c + 1];
    }
    if (!ok)
      refuse(path, fmt::format("neighbor/rank_cuts is not {} increasing planes from 0 to 1 per axis for the {}x{}x{} "
                               "grid",
                               "n + 1", s.rank_grid[0], s.rank_grid[1], s.rank_grid[2]));
  }
  // Each rank's slots are a permutation of 0..(its atom count - 1).
  std::vector<long long> per_rank(static_cast<std::size_t>(s.nranks), 0);
  for (long long k = 0; k < s.natoms; ++k) {
    if (s.rank[k] < 0 || s.rank[k] >= s.nranks)
      refuse(path, fmt::format("atom {} belongs to rank {}, outside 0..{}", s.id[k], s.rank[k], s.nranks - 1));
    ++per_rank[s.rank[k]];
  }
  std::vector<long long> first(per_rank.size() + 1, 0);
  for (std::size_t r = 0; r < per_rank.size(); ++r) first[r + 1] = first[r] + per_rank[r];
  std::vector<char> seen(static_cast<std::size_t>(s.natoms), 0);
  for (long long k = 0; k < s.natoms; ++k) {
    const auto i = s.storage_index[k];
    const int r = s.rank[k];
    if (i < 0 || i >= per_rank[r] || seen[first[r] + i]++)
      refuse(path, fmt::format("neighbor/storage_index is not a permutation of rank {}'s slots (atom {} -> {})", r,
                               s.id[k], i));
  }
}

// The further quantity `q` from group /atoms. A file without it was written
// by a build that did not checkpoint it: refused by name, since restoring
// the rest would leave that field zero.
void read_quantity(const std::string& path, hid_t atoms, long long n, CheckpointQuantity& q) {
  if (!h5::exists(atoms, q.name))
    refuse(path, fmt::format("atoms/{} is missing: this build checkpoints the per-atom quantity '{}' "
                             "(atoms/atom_fields.hpp), the build that wrote the file did not",
                             q.name, q.name));
  {
    h5::Handle set(h5::check(H5Dopen2(atoms, q.name.c_str(), H5P_DEFAULT), "cannot open dataset " + q.name), H5Dclose);
    h5::Handle type(h5::check(H5Dget_type(set), "H5Dget_type"), H5Tclose);
    // HDF5 would convert integers to reals (or back) silently on reading.
    const bool integer = H5Tget_class(type) == H5T_INTEGER;
    if (integer != q.integer)
      refuse(path, fmt::format("atoms/{} holds {}, this build stores the quantity '{}' as {}", q.name,
                               integer ? "integers" : "reals", q.name, q.integer ? "integers" : "reals"));
  }
  if (q.integer)
    q.integers = h5::read_array<std::int64_t>(atoms, q.name, n, columns(q));
  else
    q.reals = h5::read_array<double>(atoms, q.name, n, columns(q));
}

}  // namespace

bool has_dedicated_array(std::string_view name) {
  CheckpointState none;
  return with_dedicated_array(none, name, [](auto&) {});
}

std::vector<CheckpointQuantity> registered_checkpoint_quantities() { return further_quantities(AtomStore{}); }

std::int64_t first_non_finite_atom(const CheckpointState& s) {
  for (std::size_t k = 0; k < s.id.size(); ++k)
    for (std::size_t d = 3 * k; d < 3 * k + 3; ++d)
      if (!std::isfinite(s.position[d]) || !std::isfinite(s.velocity[d]) || !std::isfinite(s.force[d]) ||
          !std::isfinite(s.reference_position[d]))
        return s.id[k];
  return -1;
}

void seal_checkpoint_file(const std::string& path, int format_version) {
  Fd f;
  f.fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (f.fd < 0) throw IoError(fmt::format("cannot open {}: {}", path, std::strerror(errno)));
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) throw IoError(fmt::format("cannot stat {}: {}", path, std::strerror(errno)));
  Seal seal;
  seal.format = format_version;
  seal.bytes = static_cast<std::uint64_t>(st.st_size);
  seal.hash = checksum_file_tail(f.fd, kCheckpointUserblock, seal.bytes, path);
  std::string block = seal_text(seal);
  block.resize(kCheckpointUserblock, '\0');
  if (::pwrite(f.fd, block.data(), block.size(), 0) != static_cast<ssize_t>(block.size()))
    throw IoError(fmt::format("cannot write the header of {}: {}", path, std::strerror(errno)));
  if (::fsync(f.fd) != 0) throw IoError(fmt::format("cannot fsync {}: {}", path, std::strerror(errno)));
  const int fd = f.fd;
  f.fd = -1;
  if (::close(fd) != 0) throw IoError(fmt::format("cannot close {}: {}", path, std::strerror(errno)));
}

void write_checkpoint(const std::string& path, const CheckpointState& s) {
  const std::string tmp = temporary_name_for(path);
  try {
    std::vector<char> image;
    {
      // ~132 bytes per atom in the datasets (156 with an MSD origin, more
      // with further quantities), plus the deck and HDF5's metadata.
      const std::size_t expected =
          (184 + quantity_bytes_per_atom(s)) * static_cast<std::size_t>(s.id.size()) + s.deck_text.size() + (256 << 10);
      h5::Handle file = h5::create_memory_file(path, kCheckpointUserblock, expected);
      WholeRows rows;
      write_checkpoint_contents(file, s, rows);
      image = h5::file_image(file, kCheckpointUserblock);
    }
    if (image.size() < kCheckpointUserblock) throw IoError("HDF5 produced an image shorter than its userblock");
    Seal seal;
    seal.format = s.format_version;
    seal.bytes = image.size();
    seal.hash = checksum64(image.data() + kCheckpointUserblock, image.size() - kCheckpointUserblock);
    const std::string header = seal_text(seal);
    std::fill(image.begin(), image.begin() + kCheckpointUserblock, '\0');
    std::copy(header.begin(), header.end(), image.begin());
    write_file_synced(tmp, image.data(), image.size());
    publish(tmp, path);
  } catch (const std::exception& e) {
    std::remove(tmp.c_str());
    throw IoError(fmt::format("cannot write checkpoint {}: {}", path, e.what()));
  }
}

void verify_checkpoint_seal(const std::string& path) { read_and_check_seal(path); }

CheckpointState read_checkpoint(const std::string& path) {
  return read_checkpoint(path, registered_checkpoint_quantities());
}

CheckpointState read_checkpoint(const std::string& path, const std::vector<CheckpointQuantity>& expected) {
  read_and_check_seal(path);
  CheckpointState s;
  try {
    h5::Handle file = h5::open_file(path, false);
    s.format_version = h5::read_attr<std::int32_t>(file, "format_version");
    if (s.format_version < kCheckpointOldestFormat || s.format_version > kCheckpointFormat)
      refuse(path, format_refusal(s.format_version));
    s.creator = h5::read_attr_string(file, "creator");
    {
      h5::Handle g = h5::open_group(file, "state");
      s.step = static_cast<long>(h5::read_attr<std::int64_t>(g, "step"));
      s.time = h5::read_attr<double>(g, "time");
      s.natoms = h5::read_attr<std::int64_t>(g, "natoms");
      s.ntypes = h5::read_attr<std::int32_t>(g, "ntypes");
      s.nranks = h5::read_attr<std::int32_t>(g, "nranks");
      s.units = h5::has_attr(g, "units") ? h5::read_attr_string(g, "units") : "lj";
      for (int k = 0; k < 3; ++k)
        if (const std::string a = fmt::format("special_lj_1{}", k + 2); h5::has_attr(g, a))
          s.special_lj[k] = h5::read_attr<double>(g, a);
      s.last_build_step = static_cast<long>(h5::read_attr<std::int64_t>(g, "last_build_step"));
      s.neighbor_builds = static_cast<long>(h5::read_attr<std::int64_t>(g, "neighbor_builds"));
    }
    if (s.natoms < 0 || s.ntypes < 1) refuse(path, fmt::format("bad counts: {} atoms, {} types", s.natoms, s.ntypes));
    const long long n = s.natoms;
    {
      h5::Handle g = h5::open_group(file, "deck");
      s.deck_text = h5::read_string(g, "text");
    }
    {
      h5::Handle g = h5::open_group(file, "box");
      const auto lo = h5::read_array<double>(g, "lo", 3, 0);
      const auto hi = h5::read_array<double>(g, "hi", 3, 0);
      std::copy(lo.begin(), lo.end(), s.box.lo);
      std::copy(hi.begin(), hi.end(), s.box.hi);
    }
    {
      h5::Handle g = h5::open_group(file, "types");
      s.mass = h5::read_array<double>(g, "mass", s.ntypes, 0);
    }
    {
      h5::Handle g = h5::open_group(file, "atoms");
      s.id = h5::read_array<std::int64_t>(g, "id", n, 0);
      s.type = h5::read_array<std::int32_t>(g, "type", n, 0);
      s.position = h5::read_array<double>(g, "position", n, 3);
      s.velocity = h5::read_array<double>(g, "velocity", n, 3);
      s.image = h5::read_array<std::int32_t>(g, "image", n, 3);
      s.force = h5::read_array<double>(g, "force", n, 3);
      // Molecular quantities (kFieldMolecular): read whenever the file has
      // them, whether or not this process simulates molecules, and not
      // asked of a file without them (Simulation::misfit refuses either
      // mismatch with the deck). bond_atom marks a molecular file.
      s.molecular = h5::exists(g, "bond_atom");
      std::vector<CheckpointQuantity> molecular;
#define TESSERA_MOLECULAR_QUANTITY(member, T, name, component, width, roles) \
  if ((component) == 0) molecular.push_back(CheckpointQuantity{name, width, std::is_integral_v<T>, {}, {}});
      TESSERA_MOLECULAR_FIELDS(TESSERA_MOLECULAR_QUANTITY)
#undef TESSERA_MOLECULAR_QUANTITY
      const auto listed = [](const std::vector<CheckpointQuantity>& in, const std::string& name) {
        for (const auto& q : in)
          if (q.name == name) return true;
        return false;
      };
      std::vector<CheckpointQuantity> wanted;
      for (const CheckpointQuantity& q : expected)
        if (s.molecular || !listed(molecular, q.name) || h5::exists(g, q.name)) wanted.push_back(q);
      for (const CheckpointQuantity& q : molecular)
        if (s.molecular && !listed(wanted, q.name)) wanted.push_back(q);
      for (const CheckpointQuantity& want : wanted) {
        CheckpointQuantity q = want.declaration();
        read_quantity(path, g, n, q);
        s.quantities.push_back(std::move(q));
      }
    }
    {
      h5::Handle g = h5::open_group(file, "neighbor");
      s.reference_position = h5::read_array<double>(g, "reference_position", n, 3);
      const auto grid = h5::read_array<std::int32_t>(g, "rank_grid", 3, 0);
      std::copy(grid.begin(), grid.end(), s.rank_grid.begin());
      s.rank_cuts = h5::read_array<double>(g, "rank_cuts");
      s.rank = h5::read_array<std::int32_t>(g, "rank", n, 0);
      s.storage_index = h5::read_array<std::int64_t>(g, "storage_index", n, 0);
    }
    {
      h5::Handle g = h5::open_group(file, "integrator");
      s.integrator_style = h5::read_attr_string(g, "style");
      s.chain_position = h5::read_array<double>(g, "chain_position");
      s.chain_velocity = h5::read_array<double>(g, "chain_velocity", static_cast<long long>(s.chain_position.size()));
      if (h5::exists(g, "chain_kinetic")) s.chain_kinetic = h5::read_array<double>(g, "chain_kinetic", 1);
      if (h5::exists(g, "barostat_state")) {
        s.barostat_state = h5::read_array<double>(g, "barostat_state");
        s.build_box = h5::read_array<double>(g, "build_box", 6);
      }
    }
    {
      h5::Handle g = h5::open_group(file, "random");
      s.random_key = h5::read_attr<std::uint64_t>(g, "key");
      s.random_counter = h5::read_attr<std::uint64_t>(g, "counter");
    }
    if (s.format_version >= 3) {
      h5::Handle g = h5::open_group(file, "analysis");
      s.msd_origin_step = static_cast<long>(h5::read_attr<std::int64_t>(g, "msd_origin_step"));
      s.msd_origin = h5::read_array<double>(g, "msd_origin", -1, 3);
    }
  } catch (const h5::H5Error& e) {
    refuse(path, e.what());
  }
  check_contents(path, s);
  return s;
}

}  // namespace tessera
