#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>

#include "integrate/motion_guard.hpp"
#include "integrate/step_sequence.hpp"

using namespace tessera;

TEST_CASE("rebuilds follow LAMMPS's neigh_modify every/delay/check", "[step_sequence]") {
  NeighborSpec n;
  n.skin = 0.4;  // half the skin: 0.2, squared 0.04
  int asked = 0;
  const auto far = [&] { ++asked; return 0.05; };
  const auto near = [&] { ++asked; return 0.03; };

  n.every = 1, n.delay = 0, n.check = true;
  CHECK(rebuild_due(n, 1, 0.0, far));
  CHECK_FALSE(rebuild_due(n, 1, 0.0, near));

  // delay 10, every 5: only at 10, 15, 20, ... steps since the build.
  n.every = 5, n.delay = 10;
  asked = 0;
  for (long ago : {1L, 5L, 9L, 11L, 14L}) CHECK_FALSE(rebuild_due(n, ago, 0.0, far));
  CHECK(asked == 0);  // the all-atom reduction is not run on the other steps
  CHECK(rebuild_due(n, 10, 0.0, far));
  CHECK(rebuild_due(n, 15, 0.0, far));
  CHECK_FALSE(rebuild_due(n, 15, 0.0, near));

  // check no: rebuild on schedule whatever the displacement.
  n.check = false;
  asked = 0;
  CHECK(rebuild_due(n, 10, 0.0, near));
  CHECK(asked == 0);
}

TEST_CASE("a box that moved since the build eats into the skin", "[step_sequence]") {
  NeighborSpec n;
  n.skin = 0.4, n.every = 1, n.delay = 0, n.check = true;
  const auto moved = [](double d2) { return [d2] { return d2; }; };
  // Corners moved 0.1 in all: the atoms may move (0.4 - 0.1) / 2 = 0.15.
  CHECK_FALSE(rebuild_due(n, 1, 0.1, moved(0.149 * 0.149)));
  CHECK(rebuild_due(n, 1, 0.1, moved(0.151 * 0.151)));
  // Without the box's motion the same displacement is safe.
  CHECK_FALSE(rebuild_due(n, 1, 0.0, moved(0.151 * 0.151)));
  // A box that moved by the whole skin rebuilds whatever the atoms did.
  CHECK(rebuild_due(n, 1, 0.4, moved(0.0)));
}

TEST_CASE("thermo at every N steps and after the last", "[step_sequence]") {
  CHECK(thermo_due(100, 50, 1000));
  CHECK_FALSE(thermo_due(101, 50, 1000));
  CHECK(thermo_due(1000, 0, 1000));
  CHECK_FALSE(thermo_due(500, 0, 1000));
}

TEST_CASE("the blow-up guard stops non-finite atoms and atoms faster than skin/dt", "[step_sequence]") {
  const MotionLimit lim = motion_limit(0.3, 2.5, 0.005);  // 60 per unit time
  CHECK(lim.by_skin);
  CHECK(lim.speed_sq == Approx(3600.0));
  CHECK_FALSE(moves_badly(1, 2, 3, 59, 0, 0, lim.speed_sq));
  CHECK(moves_badly(1, 2, 3, 61, 0, 0, lim.speed_sq));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK(moves_badly(nan, 2, 3, 0, 0, 0, lim.speed_sq));
  CHECK(moves_badly(1, 2, 3, 0, std::numeric_limits<double>::infinity(), 0, lim.speed_sq));
  const std::string fast = bad_motion_message(7, "", 42, 1, 2, 3, 61, 0, 0, lim);
  CHECK(fast.find("step 7: atom 42 at (1, 2, 3) moved 0.305 in one step, farther than the neighbor skin 0.3") == 0);
  const std::string bad = bad_motion_message(7, "rank 1: ", 42, nan, 2, 3, 0, 0, 0, lim);
  CHECK(bad.find("step 7: rank 1: atom 42") == 0);
  CHECK(bad.find("non-finite position or velocity") != std::string::npos);
  // The branch-free form the vectorised first look uses says the same on
  // every kind of input: at and around the limit, huge, infinite, NaN.
  const double inf = std::numeric_limits<double>::infinity(), big = std::numeric_limits<double>::max();
  const double values[] = {0.0, 1.0, -2.5, 59.0, 60.0, std::nextafter(60.0, 100.0), -61.0, 1e154, 1e200, big, -big,
                           inf, -inf, nan};
  int cases = 0;
  for (double p : values)
    for (double v : values)
      for (int axis = 0; axis < 3; ++axis) {
        double c[3] = {1, 2, 3}, w[3] = {0, 0, 0};
        c[axis] = p;
        w[(axis + 1) % 3] = v;
        const bool slow = moves_badly(c[0], c[1], c[2], w[0], w[1], w[2], lim.speed_sq);
        const double flag = moves_badly_flag(c[0], c[1], c[2], w[0], w[1], w[2], lim.speed_sq);
        INFO("position " << p << " velocity " << v << " axis " << axis);
        CHECK(flag == (slow ? 1.0 : 0.0));
        cases += slow;
      }
  CHECK(cases > 0);
  // Without a skin the limit is half the cutoff.
  const MotionLimit no_skin = motion_limit(0, 2.5, 0.005);
  CHECK_FALSE(no_skin.by_skin);
  CHECK(no_skin.distance == 1.25);
}
