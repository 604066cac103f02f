#include "io/checkpoint_folder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <regex>

#include "core/error.hpp"

namespace fs = std::filesystem;

namespace tessera {

std::string checkpoint_path(const std::string& folder, long step) {
  return (fs::path(folder) / fmt::format("ckpt-{:012d}.h5", step)).string();
}

std::vector<CheckpointFile> list_checkpoints(const std::string& folder) {
  std::vector<CheckpointFile> out;
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) return out;
  static const std::regex name(R"(ckpt-([0-9]{12})\.h5)");
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    std::smatch m;
    const std::string file = it->path().filename().string();
    if (std::regex_match(file, m, name)) out.push_back({std::stol(m[1].str()), it->path().string()});
  }
  if (ec) throw IoError(fmt::format("cannot list checkpoint folder {}: {}", folder, ec.message()));
  std::sort(out.begin(), out.end(), [](const CheckpointFile& a, const CheckpointFile& b) { return a.step > b.step; });
  return out;
}

std::vector<std::string> prune_checkpoints(const std::string& folder, int keep) {
  std::vector<std::string> removed;
  const auto all = list_checkpoints(folder);
  for (std::size_t k = static_cast<std::size_t>(std::max(keep, 1)); k < all.size(); ++k) {
    std::error_code ec;
    if (fs::remove(all[k].path, ec)) removed.push_back(all[k].path);
  }
  return removed;
}

void remove_stale_temporaries(const std::string& folder) {
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) return;
  static const std::regex name(R"(\.ckpt-[0-9]{12}\.h5\.tmp\.[0-9]+)");
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec))
    if (std::regex_match(it->path().filename().string(), name)) fs::remove(it->path(), ec);
}

NewestGood newest_good_checkpoint(const std::string& folder) {
  NewestGood out;
  for (const auto& c : list_checkpoints(folder)) {
    try {
      out.state = read_checkpoint(c.path);
      if (out.state.step != c.step)
        throw CheckpointError(
            fmt::format("checkpoint {}: holds step {}, but its name says {}", c.path, out.state.step, c.step));
      out.found = true;
      out.path = c.path;
      return out;
    } catch (const CheckpointError& e) {
      out.skipped.push_back(e.what());
    }
  }
  return out;
}

}  // namespace tessera
