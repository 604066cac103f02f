#include "run/summary.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>

#include "backend/cpu_simd.hpp"
#include "backend/thread_placement.hpp"

namespace tessera {

std::string run_banner(const Simulation& sim) {
  const Deck& d = sim.deck();
  const Box& b = sim.box();
  std::string s;
  s += fmt::format("Deck       {}\n", d.path);
  s += fmt::format("Atoms      {} ({} type{})\n", sim.natoms(), sim.atoms().ntypes, sim.atoms().ntypes > 1 ? "s" : "");
  s += fmt::format("Box        [{:.6g}, {:.6g}] x [{:.6g}, {:.6g}] x [{:.6g}, {:.6g}]\n", b.lo[0], b.hi[0], b.lo[1],
                   b.hi[1], b.lo[2], b.hi[2]);
  s += fmt::format("Potential  {} cutoff {}{}; neighbor skin {}, every {} delay {} check {}\n", d.potential.style,
                   sim.potential().max_cutoff(), d.potential.shift ? " (energy-shifted)" : "", d.neighbor.skin,
                   d.neighbor.every, d.neighbor.delay, d.neighbor.check ? "yes" : "no");
  s += fmt::format("Integrator {} dt {}", to_string(d.integrator.style), d.integrator.dt);
  if (d.integrator.style != IntegratorStyle::kNve)
    s += fmt::format(" T {} damping {}", d.integrator.temperature, d.integrator.damping);
  s += fmt::format("\nBackend    {}\n", sim.backend_description());
  if (!sim.on_device())
    s += fmt::format("Threads    {} OpenMP thread{} per rank{}, {}\n", omp_get_max_threads(),
                     omp_get_max_threads() > 1 ? "s" : "",
                     sim.thread_choice().empty() ? "" : " (" + sim.thread_choice() + ")",
                     describe(thread_placement()));
  if (sim.comm().parallel()) {
    const Communicator& c = sim.comm();
    const auto counts = c.allgather(static_cast<long long>(sim.atoms().nlocal));
    const auto [lo, hi] = std::minmax_element(counts.begin(), counts.end());
    s += fmt::format("Ranks      {} MPI ranks on a {} grid; atoms per rank {} .. {} (mean {:.0f})\n", c.size(),
                     sim.rank_grid().str(), *lo, *hi, static_cast<double>(sim.natoms()) / c.size());
    const std::string host = c.host() + "\n" + (sim.on_device() ? sim.backend_description() : "GPU none (CPU backend)");
    const auto hosts = c.gather_to_root(std::vector<char>(host.begin(), host.end()));
    for (std::size_t r = 0; r < hosts.size(); ++r) {
      const std::string h(hosts[r].begin(), hosts[r].end());
      const std::size_t cut = h.find('\n');
      s += fmt::format("  rank {} -> host {} -> {}\n", r, h.substr(0, cut), h.substr(cut + 1));
    }
    if (!sim.on_device()) {
      s += "Halo       MPI from host memory (CPU backend)\n";
    } else {
      const TransportChoice& t = sim.halo_transport();
      const std::string peer = d.peer_copies == "auto"
                                   ? "; peer_copies: auto (the swaps whose partners share a node are copied by the "
                                     "receiver, checked at the first build)"
                                   : "";
      s += fmt::format("Halo       {}: {}; {}{}\n", sim.describe_transport(),
                       t.transport == HaloTransport::kCudaAware
                           ? "the device packs each swap and MPI moves the device buffers"
                           : "the device packs each swap, pinned host buffers carry it through MPI",
                       t.why, peer);
      if (const std::string r = sim.halo_transport_report(); !r.empty()) s += "           " + r + "\n";
    }
  }
  s += fmt::format("Run        {} steps\n", d.steps);
  return s;
}

std::string performance_summary(const Simulation& sim) {
  const double loop = sim.loop_seconds();
  const long steps = sim.steps_run();
  const double n = static_cast<double>(sim.natoms());
  const double dt = sim.deck().integrator.dt;
  std::string s;
  s += fmt::format("\nLoop time of {:.6g} s for {} steps with {} atoms\n", loop, steps, sim.natoms());
  if (steps > 0 && loop > 0) {
    // Simulated time per day as LAMMPS gives it: tau/day in lj, ns/day else.
    const double per_day = steps * dt / loop * 86400.0;
    const double ns = sim.units().time_in_ns;
    s += fmt::format("Performance: {:.4g} atom-steps/s, {:.4g} steps/s, {:.4g} {}/day\n", n * steps / loop,
                     steps / loop, ns > 0 ? per_day * ns : per_day, ns > 0 ? "ns" : "tau");
  }
  // This rank's atoms only: the summary is also printed when one rank stops
  // on an error, where nothing collective may run, and where the list may
  // be gone (the error came mid-rebuild).
  const double nlocal = static_cast<double>(std::max<std::size_t>(sim.atoms().nlocal, 1));
  std::string per_atom = "not known (the run stopped during a rebuild)";
  if (sim.list_current() && sim.neighbor_list().clustered) {
    const ClusterPairs& c = sim.neighbor_list().clusters;
    per_atom = fmt::format("{} cluster pairs of {}x{} atoms ({:.2f} atom pairs per atom, each once)", c.pairs(),
                           kClusterSize, kClusterSize,
                           static_cast<double>(c.pairs()) * kClusterSize * kClusterSize / nlocal);
  } else if (sim.list_current()) {
    const auto& nl = sim.neighbor_list();
    long total_neigh = 0;
    for (std::size_t i = 0; i < sim.atoms().nlocal; ++i) total_neigh += nl.count[i];
    per_atom = fmt::format("{:.2f} ({} list)", static_cast<double>(total_neigh) / nlocal, nl.half ? "half" : "full");
  }
  s += fmt::format("Neighbor list builds: {}; neighbors per atom: {}; ghost atoms: {}{}\n", sim.list_builds(), per_atom,
                   sim.atoms().nghost, sim.comm().parallel() ? " (rank 0)" : "");
  if (sim.comm().parallel()) {
    const Simulation::HaloTraffic h = sim.halo_traffic();
    const std::string how =
        h.peer_copies == 0 ? fmt::format("in {} messages", h.messages)
                           : fmt::format("by {} peer copies{}", h.peer_copies,
                                         h.messages ? fmt::format(" and in {} messages", h.messages) : std::string());
    s += fmt::format("Halo per step: {} ghost positions received {}, {:.1f} kB (rank 0; since the last list build)\n",
                     h.positions, how, 24e-3 * static_cast<double>(h.positions));
  }
  s += fmt::format("Backend: {}\n", sim.backend_description());
  if (sim.on_device()) {
    const double bytes = static_cast<double>(sim.device_bytes_peak());
    s += fmt::format("Device memory: {:.1f} MiB at most in device arrays, {:.0f} bytes per atom{} (Thrust's scratch "
                     "for sorts and scans not counted)\n",
                     bytes / (1 << 20), bytes / nlocal, sim.comm().parallel() ? " (rank 0)" : "");
    const DeviceEngine::HaloOverlap o = sim.halo_overlap();
    if (sim.comm().parallel())
      s += fmt::format("Ghost refresh on the device: {:.6f} s, {:.0f}% of it while the forces on atoms with no ghost "
                       "neighbour ran (rank 0)\n",
                       o.halo, o.halo > 0 ? 100 * o.hidden / o.halo : 0.0);
    else
      s += "Ghost refresh on the device: periodic images, then the forces in one launch (one rank: nothing in "
           "flight to hide)\n";
    const Simulation::RebuildTraffic r = sim.rebuild_traffic();
    if (sim.comm().parallel() && r.builds > 0) {
      const double per = static_cast<double>(r.records) / static_cast<double>(r.builds);
      s += fmt::format("Rebuilds {}: {:.0f} atom records crossed between device and host per rebuild, {:.3f} per "
                       "local atom (rank 0)\n",
                       r.on_device ? "on the device (only the atoms that cross a face pass the host)"
                                   : "on the host (every atom to the host and back)",
                       per, per / nlocal);
    }
  }
  const PhaseTimers& t = sim.timers();
  const double total = t.total();
  // On a device the host queues work and moves on: its phase times are
  // launch times plus waits, and the device's own time per phase (from marks
  // in its queue, kernels/device/phase_timeline.hpp) is the column that
  // says where the device's time went.
  const std::vector<double> dev = sim.device_phase_seconds();
  double dev_total = 0;
  for (double v : dev) dev_total += v;
  s += fmt::format("\n{:<12} {:>12} {:>8}{}\n", "Phase", "time (s)", "%", dev.empty() ? "" : "   device (s)        %");
  auto device_cells = [&](double v) {
    return dev.empty() ? std::string() : fmt::format(" {:>12.6f} {:>8.2f}", v, dev_total > 0 ? 100 * v / dev_total : 0.0);
  };
  for (int p = 0; p < static_cast<int>(Phase::kCount); ++p) {
    const double v = t.seconds(static_cast<Phase>(p));
    s += fmt::format("{:<12} {:>12.6f} {:>8.2f}{}\n", phase_name(static_cast<Phase>(p)), v,
                     total > 0 ? 100 * v / total : 0.0, device_cells(dev.empty() ? 0.0 : dev[p]));
  }
  s += fmt::format("{:<12} {:>12.6f} {:>8.2f}{}\n", "Total", total, 100.0, device_cells(dev_total));
  return s;
}

std::string rank_balance_summary(const Simulation& sim) {
  const Communicator& c = sim.comm();
  if (!c.parallel()) return {};
  const PhaseTimers& t = sim.timers();
  std::string s = fmt::format("\n{:<12} {:>12} {:>12} {:>12} {:>8}   ({} ranks)\n", "Per rank", "min", "avg", "max",
                              "max/avg", c.size());
  auto row = [&](const char* name, double v, const char* format) {
    double sum = v;
    c.sum_in_rank_order(&sum, 1);
    const double lo = -c.max(-v), hi = c.max(v), avg = sum / c.size();
    // A ratio of values too small to print (an unused phase) means nothing.
    const double shown = std::string(format).find(".6f") != std::string::npos ? 5e-7 : 0.5;
    const std::string ratio = hi < shown ? "-" : fmt::format("{:.3f}", avg > 0 ? hi / avg : 1.0);
    s += fmt::format("{:<12} " + std::string(format) + " " + format + " " + format + " {:>8}\n", name, lo, avg, hi,
                     ratio);
  };
  double busy = 0;
  for (int p = 0; p < static_cast<int>(Phase::kCount); ++p) {
    const Phase ph = static_cast<Phase>(p);
    row(phase_name(ph), t.seconds(ph), "{:>12.6f}");
    if (is_compute(ph)) busy += t.seconds(ph);
  }
  // The imbalance that costs time: work outside communication, which the
  // slowest rank makes the others wait for inside it.
  row("Compute", busy, "{:>12.6f}");
  if (sim.on_device()) {
    // The host's clocks on a device measure launches and waits; the device's
    // own time in the same phases is the work that can be out of balance.
    const std::vector<double> dev = sim.device_phase_seconds();
    double dev_busy = 0;
    for (int p = 0; p < static_cast<int>(Phase::kCount) && p < static_cast<int>(dev.size()); ++p)
      if (is_compute(static_cast<Phase>(p))) dev_busy += dev[static_cast<std::size_t>(p)];
    row("Compute dev", dev_busy, "{:>12.6f}");
  }
  row("Atoms", static_cast<double>(sim.atoms().nlocal), "{:>12.0f}");
  row("Ghosts", static_cast<double>(sim.atoms().nghost), "{:>12.0f}");
  if (sim.on_device()) {
    // Measured on each device: the halo stream's time per step, and the part
    // of it that ran while the forces on atoms with no ghost neighbour did.
    const DeviceEngine::HaloOverlap o = sim.halo_overlap();
    row("Halo (s)", o.halo, "{:>12.6f}");
    row("Hidden (s)", o.hidden, "{:>12.6f}");
    double both[2] = {o.halo, o.hidden};
    c.sum_in_rank_order(both, 2);
    s += fmt::format(
        "Halo exchange hidden behind computation: {:.0f}% ({:.6f} of {:.6f} s, all ranks; the device computes the "
        "forces that need no ghost while the halo moves)\n",
        both[0] > 0 ? 100 * both[1] / both[0] : 0.0, both[1], both[0]);
  } else {
    s += "Halo exchange hidden behind computation: 0% (the CPU backend exchanges, then computes)\n";
  }
  if (sim.deck().load_balance.enabled())
    s += fmt::format("Load balancing: {} moves; imbalance {:.3f} at the first check, {:.3f} at the last ({} checks)\n",
                     sim.balance_moves(), sim.first_imbalance(), sim.last_imbalance(), sim.balance_checks());
  return s;
}

}  // namespace tessera
