#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

#include "run/timers.hpp"

using namespace tessera;

TEST_CASE("time blocked on other ranks is booked as Wait, out of the phase it happened in", "[timers]") {
  double waited = 0;  // stands in for Communicator::waited_seconds()
  PhaseTimers t;
  t.attach_wait_counter(&waited);
  t.start(Phase::kNeighbor);
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  waited += 0.010;  // 10 ms of those 30 were spent in a reduction
  t.next(Phase::kCommunicate);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  waited += 0.015;
  t.next(Phase::kPair);
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  t.stop();
  CHECK(t.seconds(Phase::kWait) == Approx(0.025).margin(1e-12));
  CHECK(t.seconds(Phase::kNeighbor) >= 0.030 - 0.010 - 1e-9);
  CHECK(t.seconds(Phase::kCommunicate) >= 0.020 - 0.015 - 1e-9);
  CHECK(t.seconds(Phase::kPair) >= 0.010);
  // Nothing is lost or counted twice: the phases add up to the wall time.
  CHECK(t.total() >= 0.060);
  CHECK(t.total() < 1.0);
  CHECK_FALSE(is_compute(Phase::kWait));
  CHECK(is_compute(Phase::kNeighbor));
}

TEST_CASE("a wait longer than the interval it is reported in cannot make a phase negative", "[timers]") {
  double waited = 0;
  PhaseTimers t;
  t.attach_wait_counter(&waited);
  t.start(Phase::kOutput);
  waited += 5.0;  // impossible inside this interval: capped at its length
  t.stop();
  CHECK(t.seconds(Phase::kOutput) >= 0.0);
  CHECK(t.seconds(Phase::kWait) < 1.0);
}
