#include "io/lammps_dump_writer.hpp"

#include <iterator>
#include <stdexcept>
#include <utility>

namespace tessera {

namespace {
constexpr const char* kBounds = "ITEM: BOX BOUNDS pp pp pp";
}  // namespace

LammpsDumpWriter::LammpsDumpWriter(const ExportSpec& spec, const std::vector<std::int64_t>& ids,
                                   const std::vector<std::int32_t>& types, long resume_step,
                                   std::vector<std::int64_t> molecule)
    : TextTrajectory(spec, "output.dump.file", ids, types), molecule_(std::move(molecule)) {
  if (!molecule_.empty() && molecule_.size() != ids.size())
    throw std::invalid_argument(fmt::format("dump: {} molecule ids for {} atoms", molecule_.size(), ids.size()));
  atoms_header_ = molecule_.empty() ? "ITEM: ATOMS id type" : "ITEM: ATOMS id mol type";
  if (spec.position) atoms_header_ += " x y z";
  if (spec.unwrapped) atoms_header_ += " xu yu zu";
  if (spec.image) atoms_header_ += " ix iy iz";
  if (spec.velocity) atoms_header_ += " vx vy vz";
  if (spec.force) atoms_header_ += " fx fy fz";
  open(resume_step);
}

void LammpsDumpWriter::format_frame(const TrajectoryFrame& f) {
  auto out = std::back_inserter(buffer_);
  fmt::format_to(out, "ITEM: TIMESTEP\n{}\nITEM: NUMBER OF ATOMS\n{}\n{}\n", f.step, ids_.size(), kBounds);
  for (int d = 0; d < 3; ++d) fmt::format_to(out, "{} {}\n", f.box.lo[d], f.box.hi[d]);
  fmt::format_to(out, "{}\n", atoms_header_);
  for (std::size_t k = 0; k < ids_.size(); ++k) {
    if (molecule_.empty())
      fmt::format_to(out, "{} {}", ids_[k], types_[k]);
    else
      fmt::format_to(out, "{} {} {}", ids_[k], molecule_[k], types_[k]);
    append_columns(f, k);
    buffer_.push_back('\n');
    spill();
  }
}

std::optional<long> LammpsDumpWriter::read_frame(LineScanner& in) const {
  std::string line;
  const auto expect = [&](const std::string& want) {
    if (!in.next(line)) return false;
    if (line != want) refuse(in.line(), fmt::format("found '{}' where '{}' belongs", line.substr(0, 80), want));
    return true;
  };
  const auto number = [&](const char* what) -> std::optional<long long> {
    if (!in.next(line)) return std::nullopt;
    const std::optional<long long> v = parse_whole(line);
    if (!v) refuse(in.line(), fmt::format("expected the {}, found '{}'", what, line.substr(0, 80)));
    return v;
  };
  if (!expect("ITEM: TIMESTEP")) return std::nullopt;
  const std::optional<long long> step = number("step");
  if (!step || !expect("ITEM: NUMBER OF ATOMS")) return std::nullopt;
  const std::optional<long long> n = number("atom count");
  if (!n) return std::nullopt;
  if (*n != static_cast<long long>(ids_.size()))
    refuse(in.line(), fmt::format("its frames hold {} atoms, this run has {}", *n, ids_.size()));
  if (!expect(kBounds) || !in.skip(3) || !expect(atoms_header_) || !in.skip(ids_.size())) return std::nullopt;
  return static_cast<long>(*step);
}

}  // namespace tessera
