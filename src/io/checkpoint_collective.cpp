#include "io/checkpoint_collective.hpp"

#include <fmt/format.h>
#include <sys/statvfs.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>

#include "comm/mpi_handle.hpp"
#include "core/error.hpp"
#include "io/checkpoint_contents.hpp"
#include "io/checkpoint_parts.hpp"
#include "io/checksum.hpp"
#include "io/durable_file.hpp"
#include "io/h5.hpp"

namespace tessera {

namespace {

// Each rank's rows of one dataset, with the per-rank checksums every reader
// can recompute from the row offsets stored next to them.
class RankRows final : public AtomRowsOf<RankRows> {
 public:
  RankRows(const Communicator& comm, hid_t xfer) : comm_(comm), xfer_(xfer) {}
  template <class T>
  void put(hid_t g, const std::string& name, const std::vector<T>& v, int cols) {
    const std::size_t width = cols ? static_cast<std::size_t>(cols) : 1;
    const std::vector<long long> counts = comm_.allgather(static_cast<long long>(v.size() / width));
    std::vector<std::int64_t> offsets(1, 0);
    for (long long c : counts) offsets.push_back(offsets.back() + c);
    const std::uint64_t mine = checksum64(v.data(), v.size() * sizeof(T));
    long long as_signed = 0;
    std::memcpy(&as_signed, &mine, sizeof mine);
    const std::vector<long long> all = comm_.allgather(as_signed);
    std::vector<std::uint64_t> parts(all.size());
    std::memcpy(parts.data(), all.data(), all.size() * sizeof(std::uint64_t));
    h5::write_rows(g, name, v, static_cast<hsize_t>(cols), static_cast<hsize_t>(offsets[comm_.rank()]),
                   static_cast<hsize_t>(offsets.back()), offsets, h5::combine_part_checksums(parts), xfer_);
  }

 private:
  const Communicator& comm_;
  hid_t xfer_;
};

// Sends every atom to the rank owning its slice of [smallest id, largest id]
// (equal slices: ids are nearly always dense), then sorts by id. Afterwards
// rank r's rows come right after rank r-1's in global-id order.
CheckpointState atoms_in_id_slices(const CheckpointState& mine, const Communicator& comm) {
  const int nranks = comm.size();
  const auto firsts = comm.allgather(mine.id.empty() ? -1LL : static_cast<long long>(mine.id.front()));
  const auto lasts = comm.allgather(mine.id.empty() ? -1LL : static_cast<long long>(mine.id.back()));
  long long lo = -1, hi = -1;
  for (int r = 0; r < nranks; ++r) {
    if (firsts[r] < 0) continue;
    lo = lo < 0 ? firsts[r] : std::min(lo, firsts[r]);
    hi = std::max(hi, lasts[r]);
  }
  // Ids are positive (readers refuse others), so the span fits in 64 bits and
  // the product in 128.
  const auto span = static_cast<unsigned __int128>(hi - lo + 1);
  std::vector<int> owner(mine.id.size());
  for (std::size_t k = 0; k < owner.size(); ++k)
    owner[k] = static_cast<int>(static_cast<unsigned __int128>(mine.id[k] - lo) * nranks / span);
  std::vector<std::vector<char>> out;
  for (const CheckpointState& part : split_atoms(mine, owner, nranks)) out.push_back(pack_atoms(part));
  const std::vector<std::vector<char>> in = comm.exchange(out);
  std::vector<CheckpointState> parts(in.size());
  for (std::size_t r = 0; r < in.size(); ++r) unpack_atoms(in[r], parts[r]);
  CheckpointState slice;
  merge_atoms(parts, slice);
  return slice;
}

// Every rank's error text (empty: it went well); the first one found, or "".
std::string first_failure(const Communicator& comm, const std::string& mine) {
  const auto failed = comm.allgather(mine.empty() ? -1LL : static_cast<long long>(comm.rank()));
  int who = -1;
  for (long long r : failed)
    if (r >= 0) {
      who = static_cast<int>(r);
      break;
    }
  if (who < 0) return "";
  const auto texts = comm.gather_to_root(std::vector<char>(mine.begin(), mine.end()));
  std::string text;
  if (comm.rank() == 0) text = fmt::format("rank {}: {}", who, std::string(texts[who].begin(), texts[who].end()));
  return comm.broadcast_text(text);
}

// Why the folder of `path` cannot take a file of about `bytes`, or "".
// HDF5 1.10's parallel close hangs when a write fails on one rank only
// (ranks part ways inside its metadata flush), so a disk too full for the
// file is refused before HDF5 starts. Another process can still fill the disk
// in between; docs/checkpoints.md says so.
std::string space_problem(const std::string& path, unsigned long long bytes) {
  const auto slash = path.find_last_of('/');
  const std::string folder = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  struct statvfs fs {};
  if (::statvfs(folder.c_str(), &fs) != 0) return fmt::format("cannot stat {}: {}", folder, std::strerror(errno));
  const unsigned long long free = static_cast<unsigned long long>(fs.f_bavail) * fs.f_frsize;
  if (free >= bytes) return "";
  return fmt::format("No space left on device: {} has {} bytes free, the checkpoint needs about {}", folder, free,
                     bytes);
}

// The file's size to within HDF5's metadata: 132 bytes per atom, 24 more with
// an MSD origin, those of the further quantities, the deck, and room for the
// metadata (under 20 KB measured).
unsigned long long expected_bytes(const CheckpointState& s) {
  const unsigned long long per_atom = 132 + (s.msd_origin.empty() ? 0 : 24) + quantity_bytes_per_atom(s);
  return per_atom * static_cast<unsigned long long>(s.natoms) + s.deck_text.size() + (64u << 10);
}

}  // namespace

void write_checkpoint_collective(const std::string& path, const CheckpointState& mine, const Communicator& comm) {
  // Rank 0's header, deck and MSD origin are the ones written.
  CheckpointState s = atoms_in_id_slices(mine, comm);
  std::vector<char> header = pack_header(mine);
  comm.broadcast(header);
  unpack_header(header, s);
  s.deck_text = comm.broadcast_text(mine.deck_text);
  s.creator = comm.broadcast_text(mine.creator);
  s.msd_origin_step = static_cast<long>(comm.allgather(static_cast<long long>(mine.msd_origin_step))[0]);
  if (comm.rank() == 0) s.msd_origin = mine.msd_origin;

  // temporary_name_for is unique per process: rank 0 picks it for all.
  const std::string tmp = comm.broadcast_text(comm.rank() == 0 ? temporary_name_for(path) : std::string());
  const std::string no_room = comm.broadcast_text(comm.rank() == 0 ? space_problem(path, expected_bytes(s)) : "");
  if (!no_room.empty())
    throw IoError(comm.rank() == 0 ? fmt::format("cannot write checkpoint {}: {}", path, no_room) : std::string());
  std::string error;
  try {
    h5::quiet();
    h5::Handle fcpl(h5::check(H5Pcreate(H5P_FILE_CREATE), "H5Pcreate"), H5Pclose);
    h5::check_status(H5Pset_userblock(fcpl, kCheckpointUserblock), "set userblock");
    h5::Handle fapl(h5::check(H5Pcreate(H5P_FILE_ACCESS), "H5Pcreate"), H5Pclose);
    h5::check_status(H5Pset_fapl_mpio(fapl, mpi_handle(comm), MPI_INFO_NULL), "set MPI-IO driver");
    h5::Handle xfer(h5::check(H5Pcreate(H5P_DATASET_XFER), "H5Pcreate"), H5Pclose);
    h5::check_status(H5Pset_dxpl_mpio(xfer, H5FD_MPIO_COLLECTIVE), "set collective transfer");
    h5::Handle file(h5::check(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, fcpl, fapl), "cannot create " + tmp), H5Fclose);
    h5::DeferredWriteErrors write_errors;
    RankRows rows(comm, xfer);
    write_checkpoint_contents(file, s, rows);
    file.close("cannot close " + tmp);
    error = write_errors.first();
  } catch (const std::exception& e) {
    error = e.what();
  }
  std::string failure = first_failure(comm, error);
  if (failure.empty()) {
    std::string sealed;
    if (comm.rank() == 0) {
      try {
        seal_checkpoint_file(tmp, s.format_version);
        publish(tmp, path);
      } catch (const std::exception& e) {
        sealed = e.what();
      }
    }
    failure = comm.broadcast_text(sealed);
  }
  if (!failure.empty()) {
    if (comm.rank() == 0) std::remove(tmp.c_str());
    // Rank 0 alone reports it (the others throw an empty IoError).
    throw IoError(comm.rank() == 0 ? fmt::format("cannot write checkpoint {}: {}", path, failure) : std::string());
  }
}

}  // namespace tessera
