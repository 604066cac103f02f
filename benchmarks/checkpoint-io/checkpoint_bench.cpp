// Checkpoint write/read throughput (issue 4, item 8). Writes and reads back a
// checkpoint of N synthetic atoms R times, each read from a cold page cache,
// and splits both directions into phases so the report can say whether the
// time goes to the disk or to building and checking the HDF5 image.
//
//   tessera_checkpoint_bench --atoms N --dir DIR [--repeats R] [--mem-dir TMPFS]
//
// The last two lines of output ("RESULT ..." and "PHASES ...", key=value
// medians) are what benchmarks/checkpoint-io/run.sh reads.
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "io/checkpoint.hpp"
#include "io/checkpoint_folder.hpp"
#include "io/checksum.hpp"
#include "io/durable_file.hpp"

namespace fs = std::filesystem;
using namespace tessera;

namespace {

constexpr long kFirstStep = 100000;
constexpr std::uint64_t kSeed = 20261121;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

template <class F>
double timed(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return seconds_since(t0);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// A liquid-like snapshot: fcc sites at LJ liquid density, jittered so the
// doubles use all their mantissa bits (a perfect lattice would be unrealistically
// regular if compression is ever switched on), storage order shuffled as a
// spatial sort leaves it.
CheckpointState make_state(long long n) {
  CheckpointState s;
  s.creator = "tessera_checkpoint_bench";
  s.step = kFirstStep;
  s.time = kFirstStep * 0.005;
  s.natoms = n;
  s.ntypes = 1;
  s.nranks = 1;
  s.mass = {1.0};
  s.deck_text =
      "# synthetic deck of tessera_checkpoint_bench\n"
      "system: {lattice: fcc, density: 0.8442}\n"
      "pair: {style: lj/cut, cutoff: 2.5}\n"
      "integrator: {style: nve, dt: 0.005}\n";
  s.integrator_style = "nve";
  s.random_key = kSeed;
  s.random_counter = static_cast<std::uint64_t>(kFirstStep);
  s.last_build_step = kFirstStep - 7;
  s.neighbor_builds = kFirstStep / 10;

  const double a = std::cbrt(4.0 / 0.8442);
  long long cells = 1;
  while (4 * cells * cells * cells < n) ++cells;
  const double edge = static_cast<double>(cells) * a;
  for (int d = 0; d < 3; ++d) {
    s.box.lo[d] = 0;
    s.box.hi[d] = edge;
  }

  const double basis[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
  std::mt19937_64 rng(kSeed);
  std::normal_distribution<double> gauss(0.0, 1.0);
  std::uniform_real_distribution<double> jitter(-0.05 * a, 0.05 * a);
  std::uniform_int_distribution<std::int32_t> image(-2, 2);
  const double sigma_v = std::sqrt(1.44);

  const auto un = static_cast<std::size_t>(n);
  s.id.resize(un);
  s.type.assign(un, 1);
  s.position.resize(3 * un);
  s.velocity.resize(3 * un);
  s.force.resize(3 * un);
  s.image.resize(3 * un);
  s.reference_position.resize(3 * un);
  for (std::size_t k = 0; k < un; ++k) {
    s.id[k] = static_cast<std::int64_t>(k) + 1;
    const long long cell = static_cast<long long>(k / 4);
    const long long site[3] = {cell % cells, (cell / cells) % cells, cell / (cells * cells)};
    for (int d = 0; d < 3; ++d) {
      double x = (static_cast<double>(site[d]) + basis[k % 4][d]) * a + jitter(rng);
      if (x < 0) x += edge;
      if (x >= edge) x -= edge;  // also catches -tiny + edge rounding to edge
      s.position[3 * k + d] = x;
      s.reference_position[3 * k + d] = x - 0.1 * jitter(rng);
      s.velocity[3 * k + d] = sigma_v * gauss(rng);
      s.force[3 * k + d] = 20.0 * gauss(rng);
      s.image[3 * k + d] = image(rng);
    }
  }
  s.storage_index.resize(un);
  std::iota(s.storage_index.begin(), s.storage_index.end(), std::int64_t{0});
  std::shuffle(s.storage_index.begin(), s.storage_index.end(), rng);
  return s;
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

std::string drop_caches_error;  // why /proc/sys/vm/drop_caches was not used, reported once

struct CacheDrop {
  std::string method;
  double resident = 0;  // fraction of the file's pages still cached afterwards
};

// fadvise only drops clean pages, hence the fsync first (write_checkpoint has
// synced already; this is cheap insurance). drop_caches is tried as well because
// fadvise is advisory; mincore then tells whether the read really starts cold.
CacheDrop drop_from_cache(const std::string& path) {
  CacheDrop out;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error(fmt::format("cannot open {}: {}", path, std::strerror(errno)));
  if (::fsync(fd) != 0) throw std::runtime_error(fmt::format("cannot fsync {}: {}", path, std::strerror(errno)));
  std::vector<std::string> used;
  const int adv = ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  if (adv == 0) used.push_back("fadvise");
  const int proc = ::open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
  if (proc >= 0) {
    if (::write(proc, "1", 1) == 1) {
      used.push_back("drop_caches");
    } else {
      drop_caches_error = fmt::format("write failed: {}", std::strerror(errno));
    }
    ::close(proc);
  } else {
    drop_caches_error = fmt::format("cannot open: {}", std::strerror(errno));
  }
  for (std::size_t i = 0; i < used.size(); ++i) out.method += (i ? "+" : "") + used[i];
  if (out.method.empty()) out.method = "none";

  struct stat st {};
  if (::fstat(fd, &st) == 0 && st.st_size > 0) {
    const auto bytes = static_cast<std::size_t>(st.st_size);
    void* map = ::mmap(nullptr, bytes, PROT_READ, MAP_SHARED, fd, 0);
    if (map != MAP_FAILED) {
      const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
      std::vector<unsigned char> in_core((bytes + page - 1) / page);
      if (::mincore(map, bytes, in_core.data()) == 0) {
        const auto cached = std::count_if(in_core.begin(), in_core.end(), [](unsigned char c) { return c & 1; });
        out.resident = static_cast<double>(cached) / static_cast<double>(in_core.size());
      } else {
        out.resident = -1;
      }
      ::munmap(map, bytes);
    } else {
      out.resident = -1;
    }
  }
  ::close(fd);
  return out;
}

std::vector<char> slurp(const std::string& path) {
  const std::uintmax_t bytes = fs::file_size(path);
  std::vector<char> data(static_cast<std::size_t>(bytes));
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error(fmt::format("cannot open {}", path));
  const std::size_t got = std::fread(data.data(), 1, data.size(), f);
  std::fclose(f);
  if (got != data.size()) throw std::runtime_error(fmt::format("short read of {}", path));
  return data;
}

struct Repeat {
  double mb = 0;
  double write_s = 0, read_s = 0;
  double mem_write_s = -1, mem_read_s = -1;  // same calls on a tmpfs; -1: not measured
  double hash_s = 0, alloc_s = 0, raw_write_s = 0, seal_cold_s = 0;
  CacheDrop drop;
};

// Owns the files this run creates so that every exit path removes them.
struct Cleanup {
  std::vector<std::string> files;
  std::vector<std::string> created_dirs;  // removed only if empty: never someone else's files
  ~Cleanup() {
    std::error_code ec;
    for (const auto& f : files) fs::remove(f, ec);
    for (auto d = created_dirs.rbegin(); d != created_dirs.rend(); ++d) fs::remove(*d, ec);
  }
  void folder(const std::string& dir, const std::string& what) {
    if (!fs::exists(dir)) created_dirs.push_back(dir);
    ensure_folder(dir, what);
  }
};

bool is_tmpfs(const std::string& dir) {
  struct statfs st {};
  return ::statfs(dir.c_str(), &st) == 0 && st.f_type == TMPFS_MAGIC;
}

bool same_atoms(const CheckpointState& a, const CheckpointState& b) {
  return same_bits(a.position, b.position) && same_bits(a.velocity, b.velocity) && same_bits(a.force, b.force) &&
         same_bits(a.image, b.image) && same_bits(a.reference_position, b.reference_position) &&
         same_bits(a.id, b.id) && same_bits(a.storage_index, b.storage_index);
}

int run(long long atoms, const std::string& dir, const std::string& mem_dir, int repeats) {
  Cleanup cleanup;
  cleanup.folder(dir, "--dir");
  std::string mem_sub;
  if (!mem_dir.empty()) {
    if (!is_tmpfs(mem_dir)) throw std::runtime_error(fmt::format("--mem-dir {} is not a tmpfs", mem_dir));
    mem_sub = (fs::path(mem_dir) / fmt::format("tessera-checkpoint-bench.{}", static_cast<long>(::getpid()))).string();
    cleanup.folder(mem_sub, "--mem-dir");
  }

  fmt::print("tessera_checkpoint_bench: {} atoms, {} repeats, folder {}, tmpfs comparison {}\n", atoms, repeats, dir,
             mem_sub.empty() ? "off" : mem_dir);
  CheckpointState state;
  const double make_s = timed([&] { state = make_state(atoms); });
  fmt::print("built the synthetic state in {:.2f} s\n", make_s);

  std::vector<Repeat> reps;
  for (int r = 0; r < repeats; ++r) {
    Repeat rep;
    // A fresh name per repeat, as a run's checkpoint folder gets one per step.
    const std::string path = checkpoint_path(dir, kFirstStep + r);
    cleanup.files.push_back(path);
    cleanup.files.push_back(temporary_name_for(path));
    rep.write_s = timed([&] { write_checkpoint(path, state); });
    const auto bytes = fs::file_size(path);
    rep.mb = static_cast<double>(bytes) / 1e6;

    rep.drop = drop_from_cache(path);
    {
      CheckpointState back;
      rep.read_s = timed([&] { back = read_checkpoint(path); });
      if (!same_atoms(back, state)) {
        fmt::print(stderr, "tessera_checkpoint_bench: repeat {}: the arrays read back differ from those written\n",
                   r + 1);
        return 1;
      }
    }

    // Phases, measured apart from the timed calls so they do not disturb them.
    // The file's bytes are exactly the image write_checkpoint built, so hashing
    // and rewriting them isolates the hash and the syscall cost.
    {
      const std::vector<char> image = slurp(path);
      volatile std::uint64_t sink = 0;
      rep.hash_s =
          timed([&] { sink = checksum64(image.data() + kCheckpointUserblock, image.size() - kCheckpointUserblock); });
      (void)sink;
      // The image build fills two fresh file-sized buffers (HDF5's in-memory
      // file and the copy taken of it); first-touch page faults can rival the
      // disk, so their cost is measured on its own.
      rep.alloc_s = timed([&] {
        std::vector<char> fresh(image.size());
        asm volatile("" : : "r"(fresh.data()) : "memory");  // keeps the zero fill from being optimised away
      });
      const std::string raw = (fs::path(dir) / "raw-write.bin").string();
      const std::string raw_tmp = temporary_name_for(raw);
      cleanup.files.push_back(raw);
      cleanup.files.push_back(raw_tmp);
      rep.raw_write_s = timed([&] {
        write_file_synced(raw_tmp, image.data(), image.size());
        publish(raw_tmp, raw);
      });
      fs::remove(raw);
    }
    drop_from_cache(path);
    rep.seal_cold_s = timed([&] { verify_checkpoint_seal(path); });
    fs::remove(path);

    // The same calls with no disk behind them: what is left is the CPU and
    // memory side (HDF5, checksums, copies, page faults).
    if (!mem_sub.empty()) {
      const std::string mpath = checkpoint_path(mem_sub, kFirstStep + r);
      cleanup.files.push_back(mpath);
      cleanup.files.push_back(temporary_name_for(mpath));
      rep.mem_write_s = timed([&] { write_checkpoint(mpath, state); });
      CheckpointState back;
      rep.mem_read_s = timed([&] { back = read_checkpoint(mpath); });
      fs::remove(mpath);
      if (!same_atoms(back, state)) {
        fmt::print(stderr, "tessera_checkpoint_bench: repeat {}: the tmpfs copy read back differs\n", r + 1);
        return 1;
      }
    }

    fmt::print(
        "repeat {}: {:.1f} MB  write {:.3f} s = {:.1f} MB/s  read {:.3f} s = {:.1f} MB/s  (cache dropped by {}, "
        "{:.1f}% of the file resident before the read)\n",
        r + 1, rep.mb, rep.write_s, rep.mb / rep.write_s, rep.read_s, rep.mb / rep.read_s, rep.drop.method,
        100 * rep.drop.resident);
    fmt::print(
        "  write phases: same call on tmpfs {:.3f} s; the bytes alone: write+fsync+rename {:.3f} s = {:.1f} MB/s, "
        "whole-file hash {:.3f} s; one zero-filled file-sized allocation {:.3f} s\n",
        rep.mem_write_s, rep.raw_write_s, rep.mb / rep.raw_write_s, rep.hash_s, rep.alloc_s);
    fmt::print(
        "  read phases:  same call on tmpfs {:.3f} s; cold seal pass (disk read + whole-file hash) {:.3f} s = {:.1f} "
        "MB/s\n",
        rep.mem_read_s, rep.seal_cold_s, rep.mb / rep.seal_cold_s);
    reps.push_back(rep);
  }

  auto med = [&](auto field) {
    std::vector<double> v;
    for (const auto& rep : reps) v.push_back(field(rep));
    return median(v);
  };
  const double mb = med([](const Repeat& x) { return x.mb; });
  const double write_mbs = med([](const Repeat& x) { return x.mb / x.write_s; });
  const double read_mbs = med([](const Repeat& x) { return x.mb / x.read_s; });
  const double write_s = med([](const Repeat& x) { return x.write_s; });
  const double read_s = med([](const Repeat& x) { return x.read_s; });
  const double mem_write_s = med([](const Repeat& x) { return x.mem_write_s; });
  const double mem_read_s = med([](const Repeat& x) { return x.mem_read_s; });
  const double hash_s = med([](const Repeat& x) { return x.hash_s; });
  const double alloc_s = med([](const Repeat& x) { return x.alloc_s; });
  const double raw_write_s = med([](const Repeat& x) { return x.raw_write_s; });
  const double raw_write_mbs = med([](const Repeat& x) { return x.mb / x.raw_write_s; });
  const double seal_s = med([](const Repeat& x) { return x.seal_cold_s; });
  const double seal_mbs = med([](const Repeat& x) { return x.mb / x.seal_cold_s; });
  double resident_max = 0;
  for (const auto& rep : reps) resident_max = std::max(resident_max, rep.drop.resident);
  const std::string method = reps.front().drop.method;

  fmt::print("median of {}: {:.1f} MB  write {:.1f} MB/s  read {:.1f} MB/s (cold cache)\n", repeats, mb, write_mbs,
             read_mbs);
  if (!drop_caches_error.empty()) fmt::print("note: /proc/sys/vm/drop_caches not used ({})\n", drop_caches_error);
  if (resident_max > 0.01)
    fmt::print("warning: up to {:.1f}% of the file was still cached before a read; read speeds are optimistic\n",
               100 * resident_max);
  fmt::print(
      "RESULT atoms={} repeats={} size_mb={:.1f} write_mbs={:.1f} read_mbs={:.1f} write_s={:.3f} read_s={:.3f} "
      "cache_drop={} resident_max_pct={:.2f}\n",
      atoms, repeats, mb, write_mbs, read_mbs, write_s, read_s, method, 100 * resident_max);
  fmt::print(
      "PHASES mem_write_s={:.3f} raw_write_s={:.3f} raw_write_mbs={:.1f} hash_s={:.3f} alloc_s={:.3f} "
      "mem_read_s={:.3f} seal_cold_s={:.3f} seal_cold_mbs={:.1f}\n",
      mem_write_s, raw_write_s, raw_write_mbs, hash_s, alloc_s, mem_read_s, seal_s, seal_mbs);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Checkpoint write/read throughput (cold-cache reads)"};
  long long atoms = 0;
  std::string dir;
  std::string mem_dir = is_tmpfs("/dev/shm") ? "/dev/shm" : "";
  int repeats = 3;
  app.add_option("--atoms", atoms, "number of atoms")->required()->check(CLI::PositiveNumber);
  app.add_option("--dir", dir, "folder on the disk to measure (files are removed at the end)")->required();
  app.add_option("--repeats", repeats, "write/read rounds; the median is reported")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--mem-dir", mem_dir,
                 "tmpfs folder where the same calls are timed without a disk (default /dev/shm when it is a tmpfs; "
                 "empty to skip)")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  try {
    return run(atoms, dir, mem_dir, repeats);
  } catch (const std::exception& e) {
    fmt::print(stderr, "tessera_checkpoint_bench: {}\n", e.what());
    return 1;
  }
}
