#include "io/text_output.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "core/error.hpp"

namespace tessera {

namespace {
constexpr std::size_t kBuffer = 1 << 20;
}  // namespace

LineScanner::LineScanner(const std::string& path) : in_(path, std::ios::binary), buf_(kBuffer) {}

bool LineScanner::fill() {
  if (!in_) return false;
  in_.read(buf_.data(), static_cast<std::streamsize>(buf_.size()));
  pos_ = 0;
  end_ = static_cast<std::size_t>(in_.gcount());
  return end_ > 0;
}

bool LineScanner::next(std::string& line) {
  line.clear();
  std::uint64_t taken = 0;
  for (;;) {
    if (pos_ == end_ && !fill()) return false;
    const char* start = buf_.data() + pos_;
    const char* nl = static_cast<const char*>(std::memchr(start, '\n', end_ - pos_));
    const std::size_t n = nl ? static_cast<std::size_t>(nl - start) : end_ - pos_;
    // Lines we write are short; a file without newlines is not ours, and
    // its first megabyte is enough to say so.
    if (line.size() < kBuffer) line.append(start, std::min(n, kBuffer - line.size()));
    taken += n + (nl ? 1 : 0);
    pos_ += n + (nl ? 1 : 0);
    if (nl) {
      offset_ += taken;
      ++line_;
      return true;
    }
  }
}

bool LineScanner::skip(std::uint64_t n) {
  std::uint64_t taken = 0;
  while (n > 0) {
    if (pos_ == end_ && !fill()) return false;
    const char* start = buf_.data() + pos_;
    const char* nl = static_cast<const char*>(std::memchr(start, '\n', end_ - pos_));
    if (!nl) {
      taken += end_ - pos_;
      pos_ = end_;
      continue;
    }
    const std::size_t len = static_cast<std::size_t>(nl - start) + 1;
    pos_ += len;
    offset_ += taken + len;
    taken = 0;
    ++line_;
    --n;
  }
  return true;
}

std::FILE* append_after(const std::string& path, std::uint64_t keep, const std::string& what) {
  std::FILE* f = std::fopen(path.c_str(), "a");
  if (!f) throw IoError(fmt::format("{}: {}: cannot open for appending: {}", path, what, std::strerror(errno)));
  // Appending mode writes at the end whatever the cut did to it. Nothing to
  // cut leaves the file alone (it may be a device that cannot be cut).
  struct stat st {};
  const bool whole = ::fstat(::fileno(f), &st) == 0 && static_cast<std::uint64_t>(st.st_size) == keep;
  if (!whole && ::ftruncate(::fileno(f), static_cast<off_t>(keep)) != 0) {
    const int err = errno;
    std::fclose(f);
    throw IoError(fmt::format("{}: {}: cannot cut after byte {}: {}", path, what, keep, std::strerror(err)));
  }
  return f;
}

std::FILE* create_text(const std::string& path, const std::string& what) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw IoError(fmt::format("{}: {}: cannot open for writing: {}", path, what, std::strerror(errno)));
  return f;
}

std::optional<long long> parse_whole(const std::string& text) {
  if (text.empty() || text.size() > 20) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || end == text.c_str()) return std::nullopt;
  return v;
}

}  // namespace tessera
