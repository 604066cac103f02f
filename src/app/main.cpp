// tessera: command-line entry point. Turns exceptions into the documented
// exit codes (docs/errors.md); everything else lives in the library.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <optional>

#include "core/build_info.hpp"
#include "core/error.hpp"
#include "deck/deck.hpp"
#include "run/simulation.hpp"
#include "run/summary.hpp"
#include "system/build_system.hpp"

using namespace tessera;

namespace {

Deck load_with_overrides(const std::string& path, int threads, const std::string& backend) {
  Deck d = load_deck(path);
  if (threads > 0) d.threads = threads;
  if (!backend.empty()) d.backend = backend;
  if (d.backend == "cuda")
    throw InputError(fmt::format("{}: backend: 'cuda' is not available in this build yet; use 'cpu' or 'auto'", path));
  return d;
}

int cmd_run(const std::string& path, int threads, const std::string& backend) {
  const Deck deck = load_with_overrides(path, threads, backend);
  Simulation sim(deck);  // every input check happens here, before any file is opened
  fmt::print("Tessera {}\n{}\n", version_string(), run_banner(sim));
  std::fflush(stdout);
  ThermoWriter writer(deck.thermo.file, deck.thermo.screen, deck.integrator.style == IntegratorStyle::kNoseHoover);
  sim.setup();
  try {
    sim.run(deck.steps, &writer);
  } catch (const SimulationError&) {
    std::fputs(performance_summary(sim).c_str(), stdout);
    throw;
  }
  std::fputs(performance_summary(sim).c_str(), stdout);
  return kExitOk;
}

int cmd_validate(const std::string& path) {
  const Deck deck = load_with_overrides(path, 0, "");
  Simulation sim(deck);
  fmt::print("{}: OK ({} atoms, {} {}, {} steps)\n", path, sim.natoms(), deck.potential.style,
             to_string(deck.integrator.style), deck.steps);
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Tessera: molecular dynamics from an input deck"};
  app.set_version_flag("--version", std::string("tessera ") + version_string());
  app.require_subcommand(1);

  std::string deck_path, backend;
  int threads = 0;
  auto* run = app.add_subcommand("run", "Run the simulation a deck describes");
  run->add_option("deck", deck_path, "Input deck (YAML)")->required();
  run->add_option("--threads", threads, "OpenMP threads (default: the deck's, then OMP_NUM_THREADS)")
      ->check(CLI::NonNegativeNumber);
  run->add_option("--backend", backend, "Override the deck's backend")->check(CLI::IsMember({"auto", "cpu", "cuda"}));

  std::string validate_path;
  auto* validate = app.add_subcommand("validate", "Check a deck (and its data file) without running it");
  validate->add_option("deck", validate_path, "Input deck (YAML)")->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitBadInput;
  }

  try {
    if (*run) return cmd_run(deck_path, threads, backend);
    if (*validate) return cmd_validate(validate_path);
  } catch (const InputError& e) {
    fmt::print(stderr, "tessera: error: {}\n", e.what());
    return kExitBadInput;
  } catch (const SimulationError& e) {
    fmt::print(stderr, "tessera: simulation stopped: {}\n", e.what());
    return kExitSimulationFailed;
  } catch (const std::exception& e) {
    fmt::print(stderr, "tessera: internal error: {}\n", e.what());
    return kExitInternal;
  }
  return kExitInternal;
}
