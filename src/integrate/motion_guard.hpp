#pragma once
// The blow-up guard of the step loop, shared by every backend: an atom with a
// non-finite position or velocity, or one that moves farther than the skin in
// one step, stops the run before a bad state spreads (its neighbours may be
// missing from the list, so the forces would be silently wrong).
#include <fmt/format.h>

#include <cmath>
#include <string>

#include "core/host_device.hpp"
#include "core/types.hpp"

namespace tessera {

struct MotionLimit {
  double dt = 0;
  double distance = 0;  // the skin, or half the cutoff without one
  double speed_sq = 0;  // (distance / dt)^2: the test is on v, not on x
  bool by_skin = true;
};

inline MotionLimit motion_limit(double skin, double max_cutoff, double dt) {
  MotionLimit m;
  m.dt = dt;
  m.by_skin = skin > 0;
  m.distance = m.by_skin ? skin : 0.5 * max_cutoff;
  m.speed_sq = m.distance * m.distance / (dt * dt);
  return m;
}

// 1.0 for an atom the guard stops at (a non-finite position or velocity,
// or a speed over the limit), else 0.0, without branches: a coordinate
// passes |c| <= DBL_MAX exactly where it is finite, and v2 <= speed_sq
// fails for a NaN or infinite v2 as for one over the limit (speed_sq is
// finite: motion_limit). A double, for the CPU's vectorised first look
// (check_motion): GCC 12 left that loop scalar with an int.
TESSERA_HD inline double moves_badly_flag(double x, double y, double z, double vx, double vy, double vz,
                                          double speed_sq) {
  const double v2 = vx * vx + vy * vy + vz * vz;
  const double big = 1.7976931348623157e308;  // DBL_MAX
  const bool ok = (std::fabs(x) <= big) & (std::fabs(y) <= big) & (std::fabs(z) <= big) & (v2 <= speed_sq);
  return ok ? 0.0 : 1.0;
}

// True for an atom the guard stops at.
TESSERA_HD inline bool moves_badly(double x, double y, double z, double vx, double vy, double vz, double speed_sq) {
  return moves_badly_flag(x, y, z, vx, vy, vz, speed_sq) != 0.0;
}

// The SimulationError message for the atom the guard stopped at; `where` is
// "" or "rank r: ".
inline std::string bad_motion_message(long step, const std::string& where, AtomId id, double x, double y, double z,
                                      double vx, double vy, double vz, const MotionLimit& limit) {
  const double moved = limit.dt * std::sqrt(vx * vx + vy * vy + vz * vz);
  const std::string what = std::isfinite(moved) && std::isfinite(x + y + z)
                               ? fmt::format("moved {:.6g} in one step, farther than {} {}", moved,
                                             limit.by_skin ? "the neighbor skin" : "half the cutoff", limit.distance)
                               : std::string("has a non-finite position or velocity (NaN or inf)");
  return fmt::format(
      "step {}: {}atom {} at ({:.10g}, {:.10g}, {:.10g}) {}; the run is stopped "
      "(time step too large, atoms overlapping, or bad potential parameters)",
      step, where, id, x, y, z, what);
}

}  // namespace tessera
