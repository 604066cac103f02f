#pragma once
// Helpers shared by the fuzz targets: a scratch file per process for the
// readers that only take a path.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace tessera_fuzz {

// A private path in $TMPDIR (else /dev/shm, which keeps the per-input write
// off the disk, else /tmp); one per process so parallel fuzz jobs do not
// race. `suffix` keeps the name recognisable in a crash report.
// The file is removed at a normal exit; after a crash it stays, holding the
// input as the reader saw it (for the sealed target: already re-sealed).
inline std::string g_scratch;
inline const std::string& scratch_path(const char* suffix) {
  if (g_scratch.empty()) {
    const char* dir = std::getenv("TMPDIR");
    std::string d = dir && *dir ? dir : (access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
    g_scratch = d + "/tessera-fuzz-" + std::to_string(getpid()) + suffix;
    std::atexit([] { std::remove(g_scratch.c_str()); });
  }
  return g_scratch;
}

// Writes the input to the scratch file; false only when the file system
// fails, which is no finding of ours.
inline bool write_scratch(const std::string& path, const std::uint8_t* data, std::size_t size) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return false;
  const bool ok = std::fwrite(data, 1, size, f) == size;
  return std::fclose(f) == 0 && ok;
}

}  // namespace tessera_fuzz
