#include "io/durable_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <vector>

#include "core/error.hpp"

namespace tessera {

namespace {
[[noreturn]] void fail(const std::string& what, const std::string& path, int err) {
  throw IoError(fmt::format("{} {}: {}", what, path, std::strerror(err)));
}

std::string folder_of(const std::string& path) {
  const std::string parent = std::filesystem::path(path).parent_path().string();
  return parent.empty() ? "." : parent;
}
}  // namespace

std::string temporary_name_for(const std::string& final_path) {
  const std::filesystem::path p(final_path);
  return (p.parent_path() / fmt::format(".{}.tmp.{}", p.filename().string(), static_cast<long>(getpid()))).string();
}

void fsync_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail("cannot open", path, errno);
  if (::fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    fail("cannot fsync", path, err);
  }
  if (::close(fd) != 0) fail("cannot close", path, errno);
}

void write_file_synced(const std::string& path, const char* data, std::size_t bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("cannot create", path, errno);
  std::size_t done = 0;
  while (done < bytes) {
    const ssize_t n = ::write(fd, data + done, std::min<std::size_t>(bytes - done, std::size_t{1} << 30));
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      fail("cannot write", path, err);
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    fail("cannot fsync", path, err);
  }
  if (::close(fd) != 0) fail("cannot close", path, errno);
}

void fsync_folder(const std::string& folder) {
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) fail("cannot open folder", folder, errno);
  // Some file systems refuse fsync on folders (EINVAL); the rename is then as
  // durable as they make it.
  if (::fsync(fd) != 0 && errno != EINVAL) {
    const int err = errno;
    ::close(fd);
    fail("cannot fsync folder", folder, err);
  }
  ::close(fd);
}

void publish(const std::string& tmp, const std::string& final_path) {
  if (std::rename(tmp.c_str(), final_path.c_str()) != 0) fail("cannot rename " + tmp + " to", final_path, errno);
  fsync_folder(folder_of(final_path));
}

void ensure_folder(const std::string& folder, const std::string& what) {
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  if (ec) throw IoError(fmt::format("{}: cannot create folder {}: {}", what, folder, ec.message()));
  if (!std::filesystem::is_directory(folder, ec))
    throw IoError(fmt::format("{}: {} exists and is not a folder", what, folder));
}

std::uint64_t checksum_file_tail(int fd, std::uint64_t offset, std::uint64_t end, const std::string& path) {
  std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)> st(XXH3_createState(), XXH3_freeState);
  if (!st || XXH3_64bits_reset(st.get()) != XXH_OK) throw std::runtime_error("xxhash state allocation failed");
  // Small files (most checkpoints of small systems, every refused fragment)
  // need no 8 MiB buffer; allocating one per call dominated the read time.
  const std::uint64_t span = end > offset ? end - offset : 0;
  std::vector<char> buf(
      static_cast<std::size_t>(std::min<std::uint64_t>(std::uint64_t{8} << 20, std::max<std::uint64_t>(span, 1))));
  std::uint64_t at = offset;
  while (at < end) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(buf.size(), end - at));
    const ssize_t got = ::pread(fd, buf.data(), want, static_cast<off_t>(at));
    if (got < 0) {
      if (errno == EINTR) continue;
      fail("cannot read", path, errno);
    }
    if (got == 0) throw IoError(fmt::format("{}: ended early while reading at byte {}", path, at));
    XXH3_64bits_update(st.get(), buf.data(), static_cast<std::size_t>(got));
    at += static_cast<std::uint64_t>(got);
  }
  return XXH3_64bits_digest(st.get());
}

}  // namespace tessera
