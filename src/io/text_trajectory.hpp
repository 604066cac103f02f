#pragma once
// What the LAMMPS dump and extended XYZ writers share: the file (fresh,
// or continued after a restart), one text frame per call with the per-atom
// columns the deck selects, and flushing.
//
// Numbers are written in the shortest form that reads back to the same
// double (fmt's "{}"), so a reader gets back the engine's values bit for
// bit; %.17g would too, with about a third more bytes per number, and text
// trajectories are often the largest files of a run.
#include <fmt/format.h>

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "deck/deck.hpp"
#include "io/h5md_writer.hpp"  // TrajectoryFrame
#include "io/text_output.hpp"

namespace tessera {

class TextTrajectory {
 public:
  virtual ~TextTrajectory();
  TextTrajectory(const TextTrajectory&) = delete;
  TextTrajectory& operator=(const TextTrajectory&) = delete;

  // Appends a frame; a step <= the last one written is skipped (after a
  // restart the first frame due may coincide with the last one kept). The
  // frame needs the arrays the spec selects (position and image for
  // `unwrapped`). Flushed to the OS afterwards: a run killed later keeps it.
  void write_frame(const TrajectoryFrame& f);
  // On disk, before a checkpoint vouches for the frames written so far.
  void sync();
  long frames() const { return frames_; }  // in the file, kept ones included
  const std::string& path() const { return spec_.file; }

 protected:
  // `key`: the deck key of the file ("output.dump.file"), for messages.
  TextTrajectory(const ExportSpec& spec, std::string key, const std::vector<std::int64_t>& ids,
                 const std::vector<std::int32_t>& types);
  // Creates the file, or for a restarted run (resume_step >= 0) keeps the
  // frames up to resume_step and appends after them. Called by the derived
  // constructor, as it uses read_frame().
  void open(long resume_step);
  // One frame as the derived format writes it; rows in id order.
  virtual void format_frame(const TrajectoryFrame& f) = 0;
  // Reads one frame of an existing file and returns its step; nothing when
  // the file ends inside it. Throws refuse() for a frame this run would not
  // write (another atom count or other columns).
  virtual std::optional<long> read_frame(LineScanner& in) const = 0;
  [[noreturn]] void refuse(long line, const std::string& why) const;

  // The selected per-atom columns of atom row k, each preceded by a space,
  // in the fixed order position, unwrapped, image, velocity, force.
  void append_columns(const TrajectoryFrame& f, std::size_t k);
  // Writes out the buffer once it holds a megabyte or more, so a large frame
  // never sits whole in memory.
  void spill(bool all = false);

  ExportSpec spec_;
  std::string key_;
  std::vector<std::int64_t> ids_;
  std::vector<std::int32_t> types_;
  fmt::memory_buffer buffer_;
  long writing_step_ = 0;

 private:
  std::FILE* file_ = nullptr;
  long frames_ = 0;
  long last_step_ = -1;
};

}  // namespace tessera
