#include "io/extxyz_writer.hpp"

#include <iterator>
#include <stdexcept>
#include <utility>

namespace tessera {

ExtxyzWriter::ExtxyzWriter(const ExportSpec& spec, const std::vector<std::int64_t>& ids,
                           const std::vector<std::int32_t>& types, long resume_step, std::vector<std::int64_t> molecule)
    : TextTrajectory(spec, "output.xyz.file", ids, types), molecule_(std::move(molecule)) {
  if (!molecule_.empty() && molecule_.size() != ids.size())
    throw std::invalid_argument(fmt::format("xyz: {} molecule ids for {} atoms", molecule_.size(), ids.size()));
  properties_ = "Properties=species:S:1:pos:R:3";
  if (spec.image) properties_ += ":map_shift:I:3";
  if (spec.velocity) properties_ += ":velo:R:3";
  if (spec.force) properties_ += ":forces:R:3";
  if (!molecule_.empty()) properties_ += ":mol:I:1";
  open(resume_step);
}

void ExtxyzWriter::format_frame(const TrajectoryFrame& f) {
  auto out = std::back_inserter(buffer_);
  const Box& b = f.box;
  fmt::format_to(out, "{}\nLattice=\"{} 0 0 0 {} 0 0 0 {}\" Origin=\"{} {} {}\" {} Time={} Step={} pbc=\"T T T\"\n",
                 ids_.size(), b.length(0), b.length(1), b.length(2), b.lo[0], b.lo[1], b.lo[2], properties_, f.time,
                 f.step);
  for (std::size_t k = 0; k < ids_.size(); ++k) {
    const std::int32_t t = types_[k];
    if (!spec_.species.empty())
      fmt::format_to(out, "{}", spec_.species[static_cast<std::size_t>(t - 1)]);
    else
      fmt::format_to(out, "{}", t);
    append_columns(f, k);
    if (!molecule_.empty()) fmt::format_to(out, " {}", molecule_[k]);
    buffer_.push_back('\n');
    spill();
  }
}

std::optional<long> ExtxyzWriter::read_frame(LineScanner& in) const {
  std::string line;
  if (!in.next(line)) return std::nullopt;
  const std::optional<long long> n = parse_whole(line);
  if (!n) refuse(in.line(), fmt::format("expected an atom count, found '{}'", line.substr(0, 80)));
  if (*n != static_cast<long long>(ids_.size()))
    refuse(in.line(), fmt::format("its frames hold {} atoms, this run has {}", *n, ids_.size()));
  if (!in.next(line)) return std::nullopt;
  if (line.find(" " + properties_ + " ") == std::string::npos)
    refuse(in.line(), fmt::format("its frame has no '{}' (other columns)", properties_));
  const std::size_t at = line.find(" Step=");
  const std::size_t end = at == std::string::npos ? at : line.find(' ', at + 1);
  const std::optional<long long> step =
      at == std::string::npos ? std::nullopt : parse_whole(line.substr(at + 6, end - (at + 6)));
  if (!step) refuse(in.line(), "its frame has no Step=<number>");
  if (!in.skip(ids_.size())) return std::nullopt;
  return static_cast<long>(*step);
}

}  // namespace tessera
