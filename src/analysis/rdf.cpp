#include "analysis/rdf.hpp"

#include <omp.h>

#include <cmath>
#include <limits>

namespace tessera {

std::vector<std::int64_t> rdf_histogram(const AtomStore& a, const NeighborList& nl, const RdfLayout& l) {
  const int bins = l.bins;
  const std::size_t size = static_cast<std::size_t>(l.rows()) * bins;
  // row_of[ti * (ntypes + 1) + tj]: the pair row for centre ti, neighbour tj.
  const int ntp = l.ntypes + 1;
  std::vector<int> row_of(static_cast<std::size_t>(ntp) * ntp, -1);
  for (std::size_t k = 0; k < l.pairs.size(); ++k)
    row_of[l.pairs[k][0] * ntp + l.pairs[k][1]] = static_cast<int>(k + 1);
  const double r_max_sq = l.r_max * l.r_max;
  const double per_width = bins / l.r_max;
  const long n = static_cast<long>(a.nlocal);
  std::vector<std::int64_t> total(size, 0);
  // A sample costs about as much as one force evaluation without the
  // arithmetic of the force: worth the threads the pair loop has anyway.
#pragma omp parallel
  {
    std::vector<std::int64_t> mine(size, 0);
#pragma omp for schedule(static)
    for (long i = 0; i < n; ++i) {
      const int* row = &nl.index[static_cast<std::size_t>(i) * nl.stride];
      const int ti = a.type[i];
      for (int k = 0; k < nl.count[i]; ++k) {
        const int j = row[k] >> nl.entry_shift;
        const double dx = a.x[j] - a.x[i], dy = a.y[j] - a.y[i], dz = a.z[j] - a.z[i];
        const double r_sq = dx * dx + dy * dy + dz * dz;
        if (!(r_sq < r_max_sq)) continue;
        // Rounding can put r * bins / r_max at `bins` for r just below r_max.
        const int bin = std::min(static_cast<int>(std::sqrt(r_sq) * per_width), bins - 1);
        ++mine[bin];
        const int pair = row_of[ti * ntp + a.type[j]];
        if (pair > 0) ++mine[static_cast<std::size_t>(pair) * bins + bin];
        // A half list holds a pair of locals once: it counts from j too.
        if (nl.half && static_cast<std::size_t>(j) < a.nlocal) {
          ++mine[bin];
          const int back = row_of[a.type[j] * ntp + ti];
          if (back > 0) ++mine[static_cast<std::size_t>(back) * bins + bin];
        }
      }
    }
#pragma omp critical
    for (std::size_t b = 0; b < size; ++b) total[b] += mine[b];
  }
  return total;
}

std::vector<double> rdf_normalise(const std::vector<std::int64_t>& counts, const RdfLayout& l,
                                  const std::vector<long long>& atoms_of_type, double volume) {
  const double kFourThirdsPi = 4.0 * M_PI / 3.0;
  const double dr = l.width();
  std::vector<double> g(counts.size());
  for (int row = 0; row < l.rows(); ++row) {
    const int centre = row == 0 ? 0 : l.pairs[row - 1][0];
    const int neighbour = row == 0 ? 0 : l.pairs[row - 1][1];
    // An atom is not its own neighbour: N - 1 others of its own set.
    const double pairs = static_cast<double>(atoms_of_type[centre]) *
                         static_cast<double>(atoms_of_type[neighbour] - (centre == neighbour ? 1 : 0));
    for (int b = 0; b < l.bins; ++b) {
      const double shell = kFourThirdsPi * (std::pow((b + 1) * dr, 3) - std::pow(b * dr, 3));
      const double expected = pairs * shell / volume;
      const std::size_t at = static_cast<std::size_t>(row) * l.bins + b;
      g[at] = expected > 0 ? static_cast<double>(counts[at]) / expected : std::numeric_limits<double>::quiet_NaN();
    }
  }
  return g;
}

std::vector<double> rdf_bin_centres(const RdfLayout& l) {
  std::vector<double> r(l.bins);
  for (int b = 0; b < l.bins; ++b) r[b] = (b + 0.5) * l.width();
  return r;
}

}  // namespace tessera
