#include "domain/load_balance.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tessera {

double imbalance(const std::vector<double>& cost) {
  if (cost.empty()) return 1;
  const double sum = std::accumulate(cost.begin(), cost.end(), 0.0);
  const double mean = sum / static_cast<double>(cost.size());
  return mean > 0 ? *std::max_element(cost.begin(), cost.end()) / mean : 1;
}

namespace {

std::vector<double> planes(const RankGrid& g, int d) {
  if (!g.cut[d].empty()) return g.cut[d];
  std::vector<double> p(g.n[d] + 1);
  for (int c = 0; c <= g.n[d]; ++c) p[c] = static_cast<double>(c) / g.n[d];
  return p;
}

// Where the cumulative cost reaches `target`, with cost uniform inside each
// slab: the inverse of a piecewise-linear function through (p[c], sum[c]).
double where_cost_reaches(const std::vector<double>& p, const std::vector<double>& cum, double target) {
  const int n = static_cast<int>(p.size()) - 1;
  for (int c = 0; c < n; ++c)
    if (cum[c + 1] >= target && cum[c + 1] > cum[c])
      return p[c] + (p[c + 1] - p[c]) * std::clamp((target - cum[c]) / (cum[c + 1] - cum[c]), 0.0, 1.0);
  return p[n];
}

}  // namespace

RankGrid balance_cuts(const RankGrid& grid, const std::vector<double>& cost, const double min_fraction[3]) {
  RankGrid out = grid;
  for (int d = 0; d < 3; ++d) {
    const int n = grid.n[d];
    if (n == 1) continue;
    std::vector<double> slab(n, 0.0);
    for (int r = 0; r < grid.size(); ++r) slab[grid.cell_of(r)[d]] += std::max(cost[r], 0.0);
    std::vector<double> cum(n + 1, 0.0);
    for (int c = 0; c < n; ++c) cum[c + 1] = cum[c] + slab[c];
    if (!(cum[n] > 0)) continue;
    const std::vector<double> old = planes(grid, d);
    std::vector<double> p = old;
    for (int k = 1; k < n; ++k) {
      const double want = where_cost_reaches(old, cum, cum[n] * k / n);
      // A fifth of the thinner neighbouring slab: two planes closing in on
      // one slab from both sides then still pass the one-hop test below
      // (with a quarter they moved exactly half the new slab and failed it,
      // so three ranks with the work in the middle never moved).
      const double step = 0.2 * std::min(old[k] - old[k - 1], old[k + 1] - old[k]);
      p[k] = std::clamp(want, old[k] - step, old[k] + step);
    }
    // Thick enough for the halo: push planes apart where slabs got thin.
    const double w = min_fraction[d];
    for (int k = 1; k < n; ++k) p[k] = std::max(p[k], p[k - 1] + w);
    for (int k = n - 1; k >= 1; --k) p[k] = std::min(p[k], p[k + 1] - w);
    bool ok = true;
    for (int k = 1; k <= n; ++k) {
      ok = ok && p[k] - p[k - 1] >= w * (1 - 1e-12);
      // One hop: a plane moves less than half of every slab beside it.
      if (k < n) {
        const double narrowest = std::min({old[k] - old[k - 1], old[k + 1] - old[k], p[k] - p[k - 1], p[k + 1] - p[k]});
        ok = ok && std::abs(p[k] - old[k]) < 0.5 * narrowest;
      }
    }
    if (ok) out.cut[d] = p;
  }
  return out;
}

}  // namespace tessera
