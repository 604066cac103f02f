#include <algorithm>
#include <cmath>

#include "random/philox.hpp"
#include "system/build_system.hpp"
#include "thermo/thermo.hpp"

namespace tessera {

void create_velocities(AtomStore& a, double temperature, std::uint64_t seed, const Units& units) {
  const std::size_t n = a.nlocal;
  for (std::size_t i = 0; i < n; ++i) {
    const Philox4x32 r = random_words(seed, RandomStream::kVelocity, 0, a.id[i]);
    double g0, g1, g2, g3;
    normal_pair(r.v[0], r.v[1], g0, g1);
    normal_pair(r.v[2], r.v[3], g2, g3);
    const double s = 1.0 / std::sqrt(a.mass_of_type[a.type[i]]);
    a.vx[i] = g0 * s;
    a.vy[i] = g1 * s;
    a.vz[i] = g2 * s;
  }
  // The sums below run over atoms in id order, so the result does not
  // depend on how atoms are stored or distributed.
  const std::vector<std::size_t> by_id = a.local_order_by_id();
  double p[3] = {0, 0, 0}, mtot = 0;
  for (std::size_t i : by_id) {
    const double m = a.mass_of_type[a.type[i]];
    p[0] += m * a.vx[i];
    p[1] += m * a.vy[i];
    p[2] += m * a.vz[i];
    mtot += m;
  }
  for (double& c : p) c /= mtot;
  double mv2 = 0;
  for (std::size_t i : by_id) {
    a.vx[i] -= p[0];
    a.vy[i] -= p[1];
    a.vz[i] -= p[2];
    mv2 += a.mass_of_type[a.type[i]] * (a.vx[i] * a.vx[i] + a.vy[i] * a.vy[i] + a.vz[i] * a.vz[i]);
  }
  const double dof = 3.0 * static_cast<double>(n) - 3.0;
  const double current = kinetic_temperature(mv2, dof, units);
  const double scale = current > 0 ? std::sqrt(temperature / current) : 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    a.vx[i] *= scale;
    a.vy[i] *= scale;
    a.vz[i] *= scale;
  }
}

}  // namespace tessera
