#include "io/text_trajectory.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iterator>
#include <stdexcept>

#include "core/error.hpp"

namespace tessera {

TextTrajectory::TextTrajectory(const ExportSpec& spec, std::string key, const std::vector<std::int64_t>& ids,
                               const std::vector<std::int32_t>& types)
    : spec_(spec), key_(std::move(key)), ids_(ids), types_(types) {
  if (ids_.size() != types_.size())
    throw std::invalid_argument(fmt::format("{}: {} ids but {} types", spec_.file, ids_.size(), types_.size()));
}

TextTrajectory::~TextTrajectory() {
  if (file_) std::fclose(file_);
}

void TextTrajectory::open(long resume_step) {
  if (resume_step < 0) {
    file_ = create_text(spec_.file, key_);
    return;
  }
  LineScanner in(spec_.file);
  const std::uint64_t keep = bytes_through_step(in, resume_step, [&](LineScanner& s) {
    const std::optional<long> step = read_frame(s);
    if (step && *step <= last_step_) refuse(s.line(), fmt::format("step {} after step {}", *step, last_step_));
    if (step && *step <= resume_step) {
      last_step_ = *step;
      ++frames_;
    }
    return step;
  });
  file_ = append_after(spec_.file, keep, key_);
}

void TextTrajectory::refuse(long line, const std::string& why) const {
  throw InputError(
      fmt::format("{}:{}: {}: cannot append: {} (to start a new file, move it away)", spec_.file, line, key_, why));
}

void TextTrajectory::write_frame(const TrajectoryFrame& f) {
  if (f.step <= last_step_) return;
  const std::size_t want = 3 * ids_.size();
  const auto check = [&](bool needed, std::size_t size, bool given, const char* name) {
    if (needed && (!given || size != want))
      throw std::invalid_argument(
          fmt::format("{}: frame at step {}: {} {}", spec_.file, f.step, name,
                      given ? fmt::format("has {} values, expected {}", size, want) : std::string("is missing")));
  };
  check(spec_.position || spec_.unwrapped, f.position ? f.position->size() : 0, f.position, "position");
  check(spec_.image || spec_.unwrapped, f.image ? f.image->size() : 0, f.image, "image");
  check(spec_.velocity, f.velocity ? f.velocity->size() : 0, f.velocity, "velocity");
  check(spec_.force, f.force ? f.force->size() : 0, f.force, "force");
  writing_step_ = f.step;
  buffer_.clear();
  format_frame(f);
  spill(true);
  if (std::fflush(file_) != 0)
    throw IoError(fmt::format("step {}: cannot write {} {}: {}", f.step, key_, spec_.file, std::strerror(errno)));
  last_step_ = f.step;
  ++frames_;
}

void TextTrajectory::spill(bool all) {
  if (buffer_.size() == 0 || (!all && buffer_.size() < (1u << 20))) return;
  if (std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size())
    throw IoError(
        fmt::format("step {}: cannot write {} {}: {}", writing_step_, key_, spec_.file, std::strerror(errno)));
  buffer_.clear();
}

void TextTrajectory::sync() {
  // EINVAL: a pipe or device, which has no disk copy to make durable.
  if (std::fflush(file_) != 0 || (::fsync(::fileno(file_)) != 0 && errno != EINVAL))
    throw IoError(fmt::format("cannot flush {} {}: {}", key_, spec_.file, std::strerror(errno)));
}

void TextTrajectory::append_columns(const TrajectoryFrame& f, std::size_t k) {
  auto out = std::back_inserter(buffer_);
  const auto put3 = [&](const double* v) { fmt::format_to(out, " {} {} {}", v[0], v[1], v[2]); };
  const double* x = f.position ? f.position->data() + 3 * k : nullptr;
  const std::int32_t* n = f.image ? f.image->data() + 3 * k : nullptr;
  if (spec_.position) put3(x);
  if (spec_.unwrapped) {
    double u[3];
    for (int d = 0; d < 3; ++d) u[d] = x[d] + n[d] * f.box.length(d);
    put3(u);
  }
  if (spec_.image) fmt::format_to(out, " {} {} {}", n[0], n[1], n[2]);
  if (spec_.velocity) put3(f.velocity->data() + 3 * k);
  if (spec_.force) put3(f.force->data() + 3 * k);
}

}  // namespace tessera
