#include "analysis/msd.hpp"

#include <limits>
#include <stdexcept>

namespace tessera {

std::vector<double> msd_values(const std::vector<double>& position, const std::vector<double>& origin,
                               const std::vector<int>& type, int ntypes) {
  const std::size_t n = type.size();
  if (position.size() != 3 * n || origin.size() != 3 * n)
    throw std::invalid_argument("msd_values: positions, origins and types of different atom counts");
  const std::size_t rows = static_cast<std::size_t>(ntypes) + 1;
  std::vector<double> sum(rows * kMsdColumns, 0.0);
  std::vector<long long> count(rows, 0);
  for (std::size_t k = 0; k < n; ++k) {
    const int t = type[k];
    if (t < 1 || t > ntypes) throw std::invalid_argument("msd_values: atom type out of range");
    double d2[kMsdColumns] = {0, 0, 0, 0};
    for (int c = 0; c < 3; ++c) {
      const double d = position[3 * k + c] - origin[3 * k + c];
      d2[c] = d * d;
    }
    d2[3] = d2[0] + d2[1] + d2[2];
    for (const std::size_t row : {std::size_t{0}, static_cast<std::size_t>(t)}) {
      for (int c = 0; c < kMsdColumns; ++c) sum[row * kMsdColumns + c] += d2[c];
      ++count[row];
    }
  }
  for (std::size_t row = 0; row < rows; ++row)
    for (int c = 0; c < kMsdColumns; ++c)
      sum[row * kMsdColumns + c] = count[row] > 0 ? sum[row * kMsdColumns + c] / static_cast<double>(count[row])
                                                  : std::numeric_limits<double>::quiet_NaN();
  return sum;
}

}  // namespace tessera
