#include "plan/figures.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "core/error.hpp"
#include "core/text.hpp"

namespace tessera {

const char* const kFiguresHeader = "date,commit,device,backend,precision,layout,atoms,ranks,atom_steps_per_s";

// Generated at configure time from benchmarks/results/gpu-figures.csv.
extern const char* const kBuiltinFigures;

namespace {

std::vector<std::string> fields_of(const std::string& line) {
  std::vector<std::string> out;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, ',')) out.push_back(trim(field));
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

template <class T>
bool parse_number(const std::string& s, T& v) {
  const char* end = s.data() + s.size();
  const auto r = std::from_chars(s.data(), end, v);
  return r.ec == std::errc() && r.ptr == end;
}

}  // namespace

std::vector<Figure> parse_figures(const std::string& text, const std::string& name) {
  static const std::vector<std::string> columns = fields_of(kFiguresHeader);
  std::vector<Figure> out;
  std::istringstream in(text);
  std::string line;
  bool header = false;
  for (int n = 1; std::getline(in, line); ++n) {
    const std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    const auto f = fields_of(t);
    const auto bad = [&](std::size_t col, const std::string& why) {
      return InputError(fmt::format("{}:{}: column {} ({}): {}", name, n, col + 1, columns[col], why));
    };
    if (!header) {
      if (f != columns)
        throw InputError(
            fmt::format("{}:{}: a figures file starts with the header '{}', found '{}'", name, n, kFiguresHeader, t));
      header = true;
      continue;
    }
    if (f.size() != columns.size())
      throw InputError(
          fmt::format("{}:{}: {} columns, expected {} ({})", name, n, f.size(), columns.size(), kFiguresHeader));
    Figure g;
    g.where = fmt::format("{}:{}", name, n);
    g.date = f[0];
    g.commit = f[1];
    g.device = f[2];
    if (g.device.empty()) throw bad(2, "empty");
    g.backend = f[3];
    if (g.backend != "cpu" && g.backend != "cuda") throw bad(3, fmt::format("'{}' is not cpu or cuda", f[3]));
    g.precision = f[4];
    if (g.precision != "double" && g.precision != "mixed")
      throw bad(4, fmt::format("'{}' is not double or mixed", f[4]));
    g.layout = f[5];
    if (g.layout != "rows" && g.layout != "clusters") throw bad(5, fmt::format("'{}' is not rows or clusters", f[5]));
    if (!parse_number(f[6], g.atoms) || g.atoms < 1)
      throw bad(6, fmt::format("'{}' is not a positive whole number", f[6]));
    if (!parse_number(f[7], g.ranks) || g.ranks < 1)
      throw bad(7, fmt::format("'{}' is not a positive whole number", f[7]));
    if (!parse_number(f[8], g.atom_steps_per_s) || !(g.atom_steps_per_s > 0) || !std::isfinite(g.atom_steps_per_s))
      throw bad(8, fmt::format("'{}' is not a positive number", f[8]));
    out.push_back(std::move(g));
  }
  if (!header) throw InputError(fmt::format("{}: no header line '{}'", name, kFiguresHeader));
  return out;
}

Figures load_figures(const std::string& path) {
  if (path.empty()) {
    const std::string name = "benchmarks/results/gpu-figures.csv (built in)";
    return {parse_figures(kBuiltinFigures, name), name};
  }
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("cannot read the figures file {}", path));
  std::ostringstream text;
  text << in.rdbuf();
  return {parse_figures(text.str(), path), path};
}

std::vector<StepEstimate> estimate_step_time(const std::vector<Figure>& figures, const std::string& precision,
                                             const std::string& layout, long long atoms) {
  // Per device: the measured sizes, a repeated size taking its newest figure
  // (the file is in the order it was measured).
  std::map<std::string, std::map<long long, const Figure*>> by_device;
  for (const Figure& f : figures)
    if (f.backend == "cuda" && f.ranks == 1 && f.precision == precision && f.layout == layout)
      by_device[f.device][f.atoms] = &f;
  std::vector<StepEstimate> out;
  const double n = static_cast<double>(std::max(atoms, 1LL));
  for (const auto& [device, sizes] : by_device) {
    StepEstimate e;
    e.device = device;
    e.points = static_cast<int>(sizes.size());
    e.measured_lo = sizes.begin()->first;
    e.measured_hi = sizes.rbegin()->first;
    const Figure* newest = nullptr;
    for (const auto& [a, f] : sizes)
      if (!newest || f->date > newest->date) newest = f;
    e.newest_date = newest->date;
    e.newest_commit = newest->commit;
    if (atoms < e.measured_lo) {
      // Smaller systems run at lower throughput (launches and waits do not
      // shrink with the system), and never slower per step than a larger one.
      e.seconds = static_cast<double>(e.measured_lo) / sizes.begin()->second->atom_steps_per_s;
      e.atom_steps_per_s = n / e.seconds;
      e.side = StepEstimate::kAtMost;
    } else if (atoms > e.measured_hi) {
      e.atom_steps_per_s = sizes.rbegin()->second->atom_steps_per_s;
      e.seconds = n / e.atom_steps_per_s;
      e.side = StepEstimate::kBeyond;
    } else {
      const auto hi = sizes.lower_bound(atoms);
      if (hi->first == atoms) {
        e.atom_steps_per_s = hi->second->atom_steps_per_s;
      } else {
        const auto lo = std::prev(hi);
        const double x0 = std::log(static_cast<double>(lo->first)), x1 = std::log(static_cast<double>(hi->first));
        const double w = (std::log(n) - x0) / (x1 - x0);
        e.atom_steps_per_s = (1 - w) * lo->second->atom_steps_per_s + w * hi->second->atom_steps_per_s;
      }
      e.seconds = n / e.atom_steps_per_s;
    }
    out.push_back(e);
  }
  return out;
}

}  // namespace tessera
