#include "backend/thread_placement.hpp"

#include <fmt/format.h>
#include <omp.h>
#include <sched.h>

#include <algorithm>
#include <cstdlib>

namespace tessera {

namespace {

std::string bind_name(omp_proc_bind_t b) {
  switch (b) {
    case omp_proc_bind_false:
      return "false";
    case omp_proc_bind_true:
      return "true";
    case omp_proc_bind_master:
      return "primary";
    case omp_proc_bind_close:
      return "close";
    case omp_proc_bind_spread:
      return "spread";
  }
  return "unknown";
}

std::vector<int> place_cpus(int place) {
  if (place < 0) return {};
  std::vector<int> ids(static_cast<std::size_t>(omp_get_place_num_procs(place)));
  if (!ids.empty()) omp_get_place_proc_ids(place, ids.data());
  std::sort(ids.begin(), ids.end());
  return ids;
}

}  // namespace

std::string cpu_ranges(const std::vector<int>& cpus) {
  std::string s;
  for (std::size_t k = 0; k < cpus.size();) {
    std::size_t e = k;
    while (e + 1 < cpus.size() && cpus[e + 1] == cpus[e] + 1) ++e;
    s += fmt::format("{}{}", s.empty() ? "" : ",", cpus[k]);
    if (e > k) s += fmt::format("-{}", cpus[e]);
    k = e + 1;
  }
  return s;
}

std::vector<int> allowed_cpus() {
  std::vector<int> out;
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof mask, &mask) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &mask)) out.push_back(c);
  return out;
}

int default_thread_count(std::size_t allowed, int sharing) {
  const long n = static_cast<long>(allowed) / std::max(sharing, 1);
  return static_cast<int>(std::max(n, 1L));
}

ThreadPlacement thread_placement() {
  ThreadPlacement p;
  const omp_proc_bind_t bind = omp_get_proc_bind();
  p.bind = bind_name(bind);
  if (const char* e = std::getenv("OMP_PLACES")) p.places = e;
  std::vector<int> place(static_cast<std::size_t>(omp_get_max_threads()), -1);
#pragma omp parallel
  {
    const auto t = static_cast<std::size_t>(omp_get_thread_num());
    if (t < place.size()) place[t] = omp_get_place_num();
  }
  if (bind != omp_proc_bind_false)
    for (int pl : place) p.cpus.push_back(place_cpus(pl));
  p.allowed = allowed_cpus();
  return p;
}

std::string describe(const ThreadPlacement& p) {
  const std::size_t n = p.cpus.empty() ? 0 : p.cpus.size();
  const std::string allowed = p.allowed.empty() ? "" : fmt::format(" CPUs {}", cpu_ranges(p.allowed));
  const bool bound = p.bind != "false" && !p.cpus.empty() &&
                     std::none_of(p.cpus.begin(), p.cpus.end(), [](const std::vector<int>& c) { return c.empty(); });
  if (!bound)
    return fmt::format("not bound (OMP_PROC_BIND {}): the OS places and moves them on{}",
                       p.bind == "false" ? "unset or false" : p.bind, allowed.empty() ? " any CPU" : allowed);
  std::string s = fmt::format("bound {} (OMP_PLACES={}):", p.bind, p.places.empty() ? "unset" : p.places);
  for (std::size_t t = 0; t < n; ++t)
    s += fmt::format("{} thread {} on CPU{} {}", t ? "," : "", t, p.cpus[t].size() > 1 ? "s" : "",
                     cpu_ranges(p.cpus[t]));
  return s;
}

}  // namespace tessera
