// The blow-up guard on the device (issue 25: at most one host wait per step,
// none on steps where no check is due): queued every step, read only where
// a list check or a rebuild may come, or an output reads the state; an atom
// that trips it between reads still stops the run with the CPU's message,
// naming the step it was found at and the atom as it was then.
#include <catch2/catch.hpp>
#include <string>

#include "device_twin.hpp"
#include "forwarding_engine.hpp"

using namespace tessera;
using namespace tessera::test;

namespace {

class GuardReads : public ForwardingEngine {
 public:
  using ForwardingEngine::ForwardingEngine;
  void queue_motion(double speed_sq, long step, bool displacement) override {
    ++queued;
    ForwardingEngine::queue_motion(speed_sq, step, displacement);
  }
  Motion read_motion() const override {
    ++reads;
    return ForwardingEngine::read_motion();
  }
  long queued = 0;
  mutable long reads = 0;
};

std::string guarded_melt(const std::string& neighbor, const std::string& dt) {
  return R"(
system: {lattice: {style: fcc, density: 0.8442, cells: [6, 6, 6]}, masses: [1.0]}
velocity: {temperature: 1.44, seed: 1234}
potential:
  style: lj/cut
  cutoff: 2.5
  coeffs:
    - {types: [1, 1], epsilon: 1.0, sigma: 1.0}
neighbor: )" + neighbor +
         R"(
integrator: {style: nve, dt: )" + dt + R"(}
run: {steps: 10}
)";
}

// The message of the SimulationError that `run` throws ("" if none).
template <class F>
std::string stop_message(F&& run) {
  try {
    run();
  } catch (const SimulationError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("The device's guard is read only on steps where the list rule or an output needs it",
          "[device][simulation][guards]") {
  struct Case {
    const char* neighbor;
    long reads;       // in 100 steps with no output
    long then_reads;  // in 5 more steps, then the thermo of the last
  };
  // A rebuild considered every 10 steps: read then only, and for the
  // thermo (which reads the device's sums: the guard first). Checked every
  // step (LAMMPS's default rule): the one wait of each step, as before, the
  // thermo's then already made.
  for (const Case& c :
       {Case{"{skin: 0.3, every: 10, check: false}", 10, 1}, Case{"{skin: 0.3, every: 1}", 100, 5}}) {
    INFO(c.neighbor);
    Simulation sim(deck_from(guarded_melt(c.neighbor, "0.005")));
    auto owned = std::make_unique<GuardReads>(
        device::make_pipeline_engine(sim, "guard reads", compute_stream(), halo_stream()));
    GuardReads& engine = *owned;
    sim.use_device(std::move(owned));
    sim.setup();
    sim.run(100, nullptr);
    CHECK(engine.queued == 100);
    CHECK(engine.reads == c.reads);
    const long before = engine.reads;
    sim.run(5, nullptr);
    (void)sim.thermo();
    CHECK(engine.reads == before + c.then_reads);
  }
}

TEST_CASE("An atom that trips the guard between reads stops the device run with the CPU's message",
          "[device][simulation][guards]") {
  // dt 0.05 blows the melt up within a few dozen steps; with a rebuild
  // considered only every 10 steps the device finds it up to 9 steps late,
  // and must still name the step and the atom as the CPU does.
  const std::string deck = guarded_melt("{skin: 0.3, every: 10, check: false}", "0.05");
  Simulation cpu(deck_from(deck));
  const std::string on_cpu = stop_message([&] { cpu.run(200, nullptr); });
  auto dev = device_simulation(deck);
  const std::string on_device = stop_message([&] { dev->run(200, nullptr); });
  INFO("CPU: " << on_cpu);
  INFO("device: " << on_device);
  REQUIRE(on_cpu.find("step ") == 0);
  CHECK(on_device == on_cpu);
  // Found at its next read, not at the step named.
  const long named = std::stol(on_cpu.substr(5));
  CHECK(dev->step() >= named);
  CHECK(dev->step() % 10 == 0);
}
