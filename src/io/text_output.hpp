#pragma once
// Text outputs that a restarted run continues: the thermo CSV, the metrics
// lines, the LAMMPS dump and the extended XYZ trajectory. A run that dies
// after its last checkpoint leaves records past that checkpoint's step, and
// perhaps a half-written last one. The restarted run cuts the file after the
// last whole record at or before the checkpoint's step and appends from
// there, so an interrupted and resumed run leaves the same bytes as an
// uninterrupted one.
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

namespace tessera {

// Reads a file line by line and counts the bytes of the whole lines read, so
// that a scan can say where to cut. A missing file reads as empty.
class LineScanner {
 public:
  explicit LineScanner(const std::string& path);
  // The next line, without its '\n'. False at the end of the file, and for a
  // last line with no '\n' (a run killed mid-write left it).
  bool next(std::string& line);
  // Skips n lines; false if the file ends first. Per-atom lines are only
  // counted, not parsed, so a long trajectory is scanned at disk speed.
  bool skip(std::uint64_t n);
  std::uint64_t offset() const { return offset_; }  // bytes of the whole lines read so far
  long line() const { return line_; }               // whole lines read so far

 private:
  bool fill();
  std::ifstream in_;
  std::vector<char> buf_;
  std::size_t pos_ = 0, end_ = 0;
  std::uint64_t offset_ = 0;
  long line_ = 0;
};

// The bytes a restarted run keeps: the records, from the scanner's position
// on, up to the last with a step <= resume_step. `read_step(in)` reads one
// record and returns its step, or nothing when the file ends inside it; it
// throws for a record the run would not have written.
template <class ReadStep>
std::uint64_t bytes_through_step(LineScanner& in, long resume_step, ReadStep read_step) {
  std::uint64_t keep = in.offset();
  while (const std::optional<long> step = read_step(in)) {
    if (*step > resume_step) break;
    keep = in.offset();
  }
  return keep;
}

// Opens `path` for appending after cutting it to its first `keep` bytes (it
// is created if missing). Cutting in place, not rewriting, cannot lose the
// records kept, whenever the run dies. `what` (the deck key) names the file
// in errors (IoError).
std::FILE* append_after(const std::string& path, std::uint64_t keep, const std::string& what);
// Creates or truncates `path` (a fresh run).
std::FILE* create_text(const std::string& path, const std::string& what);

// A whole number with nothing else on the line (steps and counts in headers).
std::optional<long long> parse_whole(const std::string& text);

}  // namespace tessera
