// tessera: command-line entry point. Turns exceptions into the documented
// exit codes (docs/errors.md); everything else lives in the library.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include <omp.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <optional>
#include <sstream>

#include "analysis/analysis.hpp"
#include "backend/cpu_simd.hpp"
#include "comm/communicator.hpp"
#include "comm/halo_transport.hpp"
#include "core/build_info.hpp"
#include "core/error.hpp"
#include "deck/deck.hpp"
#include "devices.hpp"
#include "io/checkpoint_folder.hpp"
#include "manybody/manybody_styles.hpp"
#include "plan/plan.hpp"
#include "run/metrics.hpp"
#include "run/progress.hpp"
#include "run/run_outputs.hpp"
#include "run/simulation.hpp"
#include "run/stop_request.hpp"
#include "run/summary.hpp"
#include "system/build_system.hpp"
#include "telemetry/gpu_binding.hpp"
#include "telemetry/nvml.hpp"
#include "verb_help.hpp"

using namespace tessera;

namespace {
// Process start: run.max_walltime counts from here.
StopPolicy::Clock::time_point g_start;
}  // namespace

namespace {

Deck load_with_overrides(const std::string& path, int threads, const std::string& backend,
                         const std::string& precision = "", const std::string& cuda_aware_mpi = "") {
  Deck d = load_deck(path);
  if (threads > 0) d.threads = threads;
  if (!backend.empty()) d.backend = backend;
  if (!precision.empty()) d.precision = precision;
  if (!cuda_aware_mpi.empty()) d.cuda_aware_mpi = cuda_aware_mpi;
  return d;
}

std::string why_no_gpu(const DeviceReport& r) {
  if (!r.none_because.empty()) return r.none_because;
  std::string s;
  for (const DeviceInfo& d : r.devices)
    s += fmt::format("{}GPU {} ({}): {}", s.empty() ? "" : "; ", d.index, d.name, d.why_not);
  return s;
}

// The GPU this rank uses, or -1 for the CPU. `auto` takes a usable GPU,
// else the CPU with a one-line notice; `cuda` without one is a bad-input
// error. `from` names where the choice came from (the deck or --backend).
// Ranks on a node share its usable GPUs by their local rank, or the deck's
// gpu_ids in turn (gpu_binding.hpp); a listed GPU this rank cannot use is a
// bad-input error naming the key, the rank and the host.
int choose_gpu(const Deck& deck, const std::string& from, const Communicator& comm) {
  const std::string& wanted = deck.backend;
  if (wanted == "cpu") return -1;
  const DeviceReport r = probe_devices();
  std::vector<int> usable;
  for (const DeviceInfo& d : r.devices)
    if (d.why_not.empty()) usable.push_back(d.index);
  // Every rank must agree: one rank without a GPU puts all on the CPU (or
  // stops all of them for `cuda`).
  const bool everywhere = comm.max(usable.empty() ? 1 : 0) == 0;
  if (!everywhere) {
    const std::string why = usable.empty() ? why_no_gpu(r) : "another rank has none";
    if (wanted == "cuda") throw InputError(fmt::format("{}: backend cuda, but no usable GPU: {}", from, why));
    if (r.cuda_built) fmt::print("tessera: no usable GPU ({}): running on the CPU\n", why);
    return -1;
  }
  const int local = launcher_local_rank().value_or(comm.rank());
  const int gpu = gpu_for_rank(local, usable, deck.gpu_ids);
  std::string problem;
  if (!deck.gpu_ids.empty() && std::find(usable.begin(), usable.end(), gpu) == usable.end()) {
    std::string why = "this process sees no such GPU";
    for (const DeviceInfo& d : r.devices)
      if (d.index == gpu) why = fmt::format("GPU {} ({}) is not usable: {}", d.index, d.name, d.why_not);
    problem = fmt::format("{}: rank {} (local rank {} on host {}) takes GPU {}, but {}; usable here: {}",
                          deck.gpu_ids_at.str(), comm.rank(), local, comm.host(), gpu, why, fmt::join(usable, ", "));
  }
  // The first rank with a problem speaks for all (rank 0 prints it).
  for (const std::vector<char>& p : comm.gather_to_root(std::vector<char>(problem.begin(), problem.end())))
    if (problem.empty() && !p.empty()) problem.assign(p.begin(), p.end());
  if (comm.max(problem.empty() ? 0 : 1) != 0) throw InputError(problem);
  return gpu;
}

// `tessera info`: what this binary is and what it can run on here.
int cmd_info() {
  const DeviceReport r = probe_devices();
  fmt::print("Tessera    {}\n", version_string());
#ifdef __clang__
  fmt::print("Compiler   clang {}\n", __clang_version__);
#else
  fmt::print("Compiler   GCC {}\n", __VERSION__);
#endif
  fmt::print("MPI        {}\n", mpi_library_version());
  {
    // What a multi-rank GPU run would take for the halo with the deck's
    // default (cuda_aware_mpi: auto); the run checks it again once MPI is up.
    const TransportChoice t = choose_halo_transport("auto", mpi_cuda_support());
    fmt::print(
        "Halo       with GPUs and several ranks: {} ({}); peer copies between ranks on one node "
        "(CUDA IPC) when the deck says peer_copies: auto\n",
        to_string(t.transport), t.why);
  }
  fmt::print("OpenMP     {} threads available\n", omp_get_max_threads());
  fmt::print("CPU kernel {} (best this CPU runs: {}; TESSERA_SIMD=scalar|avx2|avx512 chooses)\n",
             simd_name(simd_level()),
             simd_supported(SimdLevel::kAvx512) ? "avx512"
             : simd_supported(SimdLevel::kAvx2) ? "avx2"
                                                : "scalar");
  fmt::print("CUDA       {}{}\n", r.cuda_built ? "built in; " : "", r.runtime);
  if (r.devices.empty()) fmt::print("GPUs       none usable: {}\n", r.none_because);
  for (const DeviceInfo& d : r.devices)
    fmt::print("GPU {}      {}, {:.1f} GiB, compute capability {}.{}: {}\n", d.index, d.name,
               static_cast<double>(d.memory_bytes) / (1 << 30), d.major, d.minor,
               d.why_not.empty() ? std::string("usable") : "not usable: " + d.why_not);
  const Nvml& nvml = Nvml::system();
  if (!nvml.available())
    fmt::print("NVML       not available ({}): no GPU telemetry\n", nvml.why_not());
  else
    fmt::print("NVML       driver {}, {} GPU{}\n", nvml.driver_version(), nvml.device_count(),
               nvml.device_count() == 1 ? "" : "s");
  for (int g = 0; g < nvml.device_count(); ++g)
    if (const auto s = nvml.sample(g))
      fmt::print("  GPU {}    {}: {}% busy, {} C, {}\n", g, s->name, s->utilisation_pct, s->temperature_c,
                 s->memory_total_bytes == 0
                     ? std::string("memory not reported")
                     : fmt::format("{:.0f} of {:.0f} MiB in use", static_cast<double>(s->memory_used_bytes) / (1 << 20),
                                   static_cast<double>(s->memory_total_bytes) / (1 << 20)));
  const DeviceInfo* gpu = r.first_usable();
  fmt::print("Backend    auto runs on: {}\n",
             gpu ? fmt::format("GPU {} ({}); several ranks on a node share the usable GPUs by local rank", gpu->index,
                               gpu->name)
                 : std::string("the CPU"));
  return kExitOk;
}

// The checkpoint to continue from: `restart` is "" (fresh), "auto" (newest
// good one in the deck's checkpoint folder, or fresh when there is none) or a
// file. Anything unusable is a bad-input error before any output is touched.
std::optional<CheckpointState> find_restart(const Deck& deck, const std::string& restart, std::string& source) {
  if (restart.empty()) return std::nullopt;
  if (restart != "auto") {
    try {
      source = restart;
      return read_checkpoint(restart);
    } catch (const CheckpointError& e) {
      throw InputError(fmt::format("--restart: {}", e.what()));
    }
  }
  if (!deck.checkpoint.enabled()) {
    // Generic job scripts pass --restart auto to every deck.
    fmt::print("tessera: --restart auto: the deck writes no checkpoints (no output.checkpoint): starting fresh\n");
    return std::nullopt;
  }
  const std::string& folder = deck.checkpoint.path;
  NewestGood pick = newest_good_checkpoint(folder);
  for (const auto& why : pick.skipped) fmt::print("tessera: warning: skipping {}\n", why);
  if (pick.found) {
    source = pick.path;
    if (!pick.skipped.empty())
      fmt::print("tessera: falling back to the older checkpoint {} (step {})\n", pick.path, pick.state.step);
    return std::move(pick.state);
  }
  if (!pick.skipped.empty())
    throw InputError(
        fmt::format("--restart auto: none of the {} checkpoints in {} verifies (see the warnings above); "
                    "refusing to start over on top of them. Move them away to start fresh.",
                    pick.skipped.size(), folder));
  fmt::print("tessera: no checkpoint in {}: starting fresh\n", folder);
  return std::nullopt;
}

// How chatty a run is on stdout (thermo and summary files are not affected).
struct Verbosity {
  bool quiet = false;          // errors, warnings and the result lines only
  bool verbose = false;        // also every checkpoint and frame written
  double progress_every = 60;  // seconds between progress lines in a log; 0: none
};

// The summary's result lines only (--quiet).
std::string result_lines(const std::string& summary) {
  std::string out, line;
  std::istringstream in(summary);
  while (std::getline(in, line))
    if (line.rfind("Loop time", 0) == 0 || line.rfind("Performance", 0) == 0) out += line + "\n";
  return out;
}

int cmd_run(const std::string& path, int threads, const std::string& backend, const std::string& precision,
            const std::string& cuda_aware_mpi, const std::string& restart_opt, const Verbosity& talk) {
  const Communicator& comm = Communicator::world();
  // One voice: rank 0 prints the banner, thermo and summary; the others keep
  // stderr for errors only they can see.
  if (comm.rank() != 0 && !std::freopen("/dev/null", "w", stdout))
    throw std::runtime_error("cannot silence stdout on rank > 0");
  Deck deck = load_with_overrides(path, threads, backend, precision, cuda_aware_mpi);
  if (talk.quiet) deck.thermo.screen = false;
  int gpu = choose_gpu(deck, backend.empty() ? deck.path + ": backend" : std::string("--backend"), comm);
  Simulation sim(deck);  // every input check happens here, before any file is opened
  // Many-body potentials run on the device over rows only: with the
  // cluster layout `auto` runs them on the CPU; `cuda` is refused by
  // make_device_engine, naming the style.
  if (gpu >= 0 && deck.backend == "auto" && find_manybody_style(deck.potential.style) &&
      deck.neighbor.layout == "clusters") {
    fmt::print("tessera: potential {} with neighbor.layout: clusters runs on the CPU so far: running on the CPU\n",
               deck.potential.style);
    gpu = -1;
  }
  if (gpu >= 0) sim.use_device(make_device_engine(sim, gpu));
  // Rank 0 reads the checkpoints and sends the others their atoms; a
  // checkpoint it refuses stops every rank with its message.
  std::string source, problem;
  std::optional<CheckpointState> state;
  if (comm.rank() == 0) {
    try {
      state = find_restart(deck, restart_opt.empty() ? deck.restart : restart_opt, source);
      if (state && state->step > deck.steps)
        throw InputError(fmt::format("{}: the checkpoint is at step {}, past run.steps = {} in {}", source, state->step,
                                     deck.steps, deck.path));
    } catch (const InputError& e) {
      problem = e.what();
    }
  }
  problem = comm.broadcast_text(problem);
  if (!problem.empty()) throw InputError(problem);
  source = comm.broadcast_text(state ? source : std::string());
  const CheckpointState none;  // what the other ranks pass: rank 0 holds the state
  if (!source.empty()) sim.restore(state ? *state : none, source);
  const long resume_step = source.empty() ? -1 : sim.step();
  MsdOrigin msd_origin;
  if (!source.empty()) msd_origin = resumed_msd_origin(state ? &*state : nullptr, comm);
  state.reset();
  const std::string banner = run_banner(sim);  // collective: every rank builds it
  if (!talk.quiet) fmt::print("Tessera {}\n{}\n", version_string(), banner);
  if (resume_step >= 0) fmt::print("Restarted from {} at step {}\n", source, resume_step);
  if (resume_step >= 0 && deck.analysis.msd && msd_origin.step < 0)
    fmt::print(
        "analysis.msd: {} holds no MSD origin (the run that wrote it had no analysis.msd): "
        "displacements are measured from step {}\n",
        source, resume_step);
  std::fflush(stdout);
  ThermoWriter writer(comm.rank() == 0 ? deck.thermo.file : std::string(), deck.thermo.screen && comm.rank() == 0,
                      deck.integrator.chain_thermostat() || deck.integrator.moves_box(), resume_step,
                      deck.thermo.columns, &sim.units());
  // Rank 0 alone asks Slurm (one query per job, not per rank); the ranks
  // agree on stopping at every step anyway.
  const StopPolicy stop(g_start, deck.max_walltime, deck.stop_margin,
                        comm.rank() == 0 ? slurm_job_end() : std::nullopt);
  if (const std::string budget = stop.describe(); !budget.empty()) fmt::print("Time budget: {}\n", budget);
  RunOutputs outputs(deck, sim, resume_step, &stop, std::move(msd_origin));
  outputs.set_verbose(talk.verbose);
  if (resume_step < 0) {
    sim.setup();
    outputs.initial(sim);
  }
  // The halo transport's self-test runs at the first list build, which a
  // fresh run makes after the banner.
  if (resume_step < 0 && !sim.halo_transport_report().empty() && !talk.quiet)
    fmt::print("Halo       {}\n", sim.halo_transport_report());
  std::unique_ptr<MetricsWriter> metrics;
  if (deck.metrics.enabled()) metrics = std::make_unique<MetricsWriter>(deck.metrics, sim, resume_step);
  const Progress::Mode mode =
      talk.quiet || (Progress::for_stdout() == Progress::Mode::kLines && talk.progress_every <= 0)
          ? Progress::Mode::kOff
          : Progress::for_stdout();
  Progress progress(comm.rank() == 0 ? mode : Progress::Mode::kOff, sim.step(), deck.steps, sim.natoms(),
                    talk.progress_every);
  StepHooks hooks({&outputs, metrics.get(), &progress});
  try {
    sim.run(deck.steps - sim.step(), &writer, &hooks);
    outputs.finish(sim);
  } catch (const SimulationError&) {
    progress.finish();
    std::fputs(performance_summary(sim).c_str(), stdout);
    throw;
  }
  progress.finish();
  const std::string summary = performance_summary(sim);
  const std::string ranks = rank_balance_summary(sim);
  sim.close_peer_copies();
  std::fputs(talk.quiet ? result_lines(summary).c_str() : (summary + ranks).c_str(), stdout);
  if (!outputs.last_checkpoint().empty()) fmt::print("Last checkpoint: {}\n", outputs.last_checkpoint());
  if (sim.step() < deck.steps) {
    const std::string where = outputs.last_checkpoint().empty()
                                  ? std::string("no checkpoint (the deck has no output.checkpoint), nothing to resume")
                                  : "checkpoint " + outputs.last_checkpoint() + "; continue with --restart auto";
    fmt::print("tessera: stopped at step {} of {} ({}): {}\n", sim.step(), deck.steps, outputs.stop_reason(), where);
    std::fflush(stdout);
    return kExitIncomplete;
  }
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
  MpiSession mpi(argc, argv);
  const bool rank0 = Communicator::world().rank() == 0;
  g_start = StopPolicy::Clock::now();
  install_stop_signals();
  // Past a file-size limit, writes should fail with EFBIG (reported, the last
  // checkpoint kept) instead of the signal killing the run mid-write.
  std::signal(SIGXFSZ, SIG_IGN);
  CLI::App app{"Tessera: molecular dynamics from an input deck"};
  app.set_version_flag("--version", std::string("tessera ") + version_string());
  app.require_subcommand(1);
  app.footer(verb_examples(""));

  std::string deck_path, backend, precision, cuda_aware_mpi;
  int threads = 0;
  auto* run = app.add_subcommand("run", "Run the simulation a deck describes");
  run->footer(verb_examples("run"));
  run->add_option("deck", deck_path, "Input deck (YAML)")->required();
  run->add_option("--threads", threads, "OpenMP threads (default: the deck's, then OMP_NUM_THREADS)")
      ->check(CLI::NonNegativeNumber);
  run->add_option("--backend", backend, "Override the deck's backend")->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  run->add_option("--precision", precision, "Override the deck's precision (mixed: float pair math on the GPU)")
      ->check(CLI::IsMember({"double", "mixed"}));
  run->add_option("--cuda-aware-mpi", cuda_aware_mpi,
                  "Override the deck's cuda_aware_mpi: hand device buffers straight to MPI for the halo (on), never "
                  "(off), or when the MPI library says it can (auto)")
      ->check(CLI::IsMember({"auto", "on", "off"}));
  Verbosity talk;
  run->add_flag("-q,--quiet", talk.quiet, "Only errors, warnings and the result lines on the screen");
  run->add_flag("-v,--verbose", talk.verbose, "Also report every checkpoint and trajectory frame written");
  run->add_option("--progress-every", talk.progress_every,
                  "Seconds between progress lines when stdout is not a terminal (0: none; on a terminal a live "
                  "line is redrawn instead)")
      ->check(CLI::NonNegativeNumber);
  std::string restart;
  run->add_option("--restart", restart,
                  "Continue from a checkpoint FILE, or 'auto': the newest good one in output.checkpoint.path "
                  "(a fresh start when there is none)");

  std::string validate_path;
  auto* validate = app.add_subcommand("validate", "Check a deck (and its data file) without running it");
  validate->footer(verb_examples("validate"));
  validate->add_option("deck", validate_path, "Input deck (YAML)")->required();

  std::string plan_path;
  int plan_gpus = 1, plan_nodes = 1;
  auto* plan = app.add_subcommand("plan", "Show how a deck would run on N GPUs (rank grid, atoms, memory, job header)");
  plan->footer(verb_examples("plan"));
  plan->add_option("deck", plan_path, "Input deck (YAML)")->required();
  plan->add_option("--gpus", plan_gpus, "GPUs (one MPI rank each)")->required()->check(CLI::PositiveNumber);
  plan->add_option("--nodes", plan_nodes, "Nodes the GPUs are spread over")->check(CLI::PositiveNumber);
  std::string plan_figures;
  plan->add_option("--figures", plan_figures,
                   "Measured GPU figures (CSV, as benchmarks/results/gpu-figures.csv) to estimate time per step from, "
                   "instead of those built in");
  std::string plan_link;
  plan->add_option("--link", plan_link,
                   "The link between GPUs as GBPS[,US]: bandwidth in GB/s one way, microseconds per transfer "
                   "(e.g. a published NVLink figure); adds the halo's time and the modelled parallel efficiency");

  double plan_box_margin = -1;
  plan->add_option("--box-margin", plan_box_margin,
                   "Fraction of its volume the box may lose during the run (default 0.1 with a barostat: npt, nph, "
                   "c-rescale; 0 otherwise): atoms, ghosts and memory are planned for the box shrunk by it")
      ->check(CLI::Range(0.0, 0.99));
  auto* info = app.add_subcommand("info", "Show the build, the GPUs found and why one is not usable");
  info->footer(verb_examples("info"));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version end here too, with exit code 0.
    if (e.get_exit_code() == 0) return app.exit(e) == 0 ? kExitOk : kExitBadInput;
    // A mistake on the command line: what was wrong, then how the verb is
    // used and a line that works (`tessera run` alone is a newcomer's first try).
    if (rank0) {
      const auto parsed = app.get_subcommands();
      const CLI::App* sub = parsed.empty() ? nullptr : parsed.front();
      const std::string verb = sub ? sub->get_name() : std::string();
      const CLI::Option* deck = sub ? sub->get_option_no_throw("deck") : nullptr;
      const bool no_deck = deck && deck->count() == 0 && dynamic_cast<const CLI::RequiredError*>(&e);
      fmt::print(stderr, "tessera: error: {}\n{}",
                 no_deck ? fmt::format("no deck given: 'tessera {}' needs an input deck (a YAML file)", verb)
                         : std::string(e.what()),
                 verb_usage_hint(verb));
    }
    return kExitBadInput;
  }

  try {
    if (*run) return cmd_run(deck_path, threads, backend, precision, cuda_aware_mpi, restart, talk);
    if (*validate) return cmd_validate(validate_path);
    if (*info) return cmd_info();
    if (*plan) {
      const Link link = plan_link.empty() ? Link{} : parse_link(plan_link);
      fmt::print("{}", make_plan(load_with_overrides(plan_path, 0, ""), plan_gpus, plan_nodes,
                                 load_figures(plan_figures), link, plan_box_margin));
      return kExitOk;
    }
  } catch (const InputError& e) {
    // Every rank reads the same deck and finds the same fault.
    if (rank0) fmt::print(stderr, "tessera: error: {}\n", e.what());
    return kExitBadInput;
  } catch (const SimulationError& e) {
    // Empty: another rank found the problem and reports it.
    if (*e.what()) fmt::print(stderr, "tessera: simulation stopped: {}\n", e.what());
    return kExitSimulationFailed;
  } catch (const IoError& e) {
    // Empty: a collective write failed and rank 0 reports it.
    if (*e.what()) fmt::print(stderr, "tessera: I/O error: {}\n", e.what());
    // HDF5 1.10 can crash in its exit handler after a file it was writing
    // failed to flush (full disk); leave without running it.
    std::fflush(stdout);
    std::fflush(stderr);
    // Rank 0 prints before it ends every rank; the others wait for that.
    if (!*e.what()) Communicator::world().barrier();
    // Rank 0 writes most files alone: the others must not wait for it forever.
    Communicator::world().abort(kExitIoFailed);
  } catch (const DeviceError&) {
    // Printed where it was met (kernels/device/device_error.hpp).
    if (Communicator::world().parallel()) Communicator::world().abort(kExitInternal);
    return kExitInternal;
  } catch (const std::exception& e) {
    fmt::print(stderr, "tessera: internal error: {}\n", e.what());
    // The other ranks may be waiting for this one in a collective.
    if (Communicator::world().parallel()) Communicator::world().abort(kExitInternal);
    return kExitInternal;
  }
  return kExitInternal;
}
