#include "domain/rank_grid.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "core/error.hpp"

namespace tessera {

std::string RankGrid::str() const { return fmt::format("{} x {} x {}", n[0], n[1], n[2]); }

RankGrid choose_rank_grid(int nranks, const Box& box, double reach) {
  if (nranks < 1) throw InputError(fmt::format("the rank count must be positive, got {}", nranks));
  RankGrid best;
  double best_halo = std::numeric_limits<double>::infinity();
  for (int nx = 1; nx <= nranks; ++nx) {
    if (nranks % nx) continue;
    for (int ny = 1; ny <= nranks / nx; ++ny) {
      if ((nranks / nx) % ny) continue;
      const int nz = nranks / nx / ny;
      const int n[3] = {nx, ny, nz};
      double inner = 1, outer = 1;
      bool thick = true;
      for (int d = 0; d < 3; ++d) {
        const double l = box.length(d) / n[d];
        thick = thick && (n[d] == 1 || l >= reach);
        inner *= l;
        outer *= l + 2 * reach;
      }
      // Ties go to the first found: fewer ranks along x, as a stable choice.
      if (thick && outer - inner < best_halo * (1 - 1e-12)) {
        best_halo = outer - inner;
        best.n = {nx, ny, nz};
      }
    }
  }
  if (!std::isfinite(best_halo))
    throw InputError(
        fmt::format("{} ranks cannot split the box [{:g} x {:g} x {:g}] into sub-boxes at least "
                    "cutoff + skin = {:g} thick; use fewer ranks or a larger system",
                    nranks, box.length(0), box.length(1), box.length(2), reach));
  return best;
}

SubDomain sub_domain(const Box& box, const RankGrid& g, const std::array<int, 3>& cell) {
  SubDomain s = SubDomain::whole(box);
  for (int d = 0; d < 3; ++d) {
    const std::vector<double>& cut = g.cut[d];
    auto plane = [&](int c) {
      return cut.empty() ? box.lo[d] + box.length(d) * c / g.n[d] : box.lo[d] + box.length(d) * cut[c];
    };
    s.lo[d] = cell[d] == 0 ? box.lo[d] : plane(cell[d]);
    s.hi[d] = cell[d] + 1 == g.n[d] ? box.hi[d] : plane(cell[d] + 1);
  }
  return s;
}

}  // namespace tessera
