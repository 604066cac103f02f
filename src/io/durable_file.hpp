#pragma once
// Crash-safe file publication: data goes to a temporary name in the target's
// folder, is fsync'ed, renamed over the final name, and the folder is
// fsync'ed, so after a crash the final name holds either the old file or the
// complete new one. Failures throw IoError with the path and errno text.
#include <cstddef>
#include <cstdint>
#include <string>

namespace tessera {

// A temporary name next to `final_path`, unique to this process.
std::string temporary_name_for(const std::string& final_path);
void fsync_file(const std::string& path);
// Creates (truncates) `path`, writes the bytes, fsyncs and closes it.
void write_file_synced(const std::string& path, const char* data, std::size_t bytes);
void fsync_folder(const std::string& folder);
// rename(tmp, final) then fsync of the folder.
void publish(const std::string& tmp, const std::string& final_path);
// Creates the folder (and parents); IoError naming `what` if that fails or
// the path exists and is not a folder.
void ensure_folder(const std::string& folder, const std::string& what);

// Streaming XXH3-64 of the bytes [offset, end) of an open file.
std::uint64_t checksum_file_tail(int fd, std::uint64_t offset, std::uint64_t end, const std::string& path);

}  // namespace tessera
