#include "plan/plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "core/error.hpp"
#include "atoms/atom_fields.hpp"
#include "domain/rank_grid.hpp"
#include "forces/force_list.hpp"
#include "neighbor/row_stride.hpp"
#include "potentials/pair_force.hpp"
#include "run/simulation.hpp"

namespace tessera {

namespace {

// Device bytes at the peak of a run, by what the device engine holds
// (kernels/device; counted there by its allocator, and checked against this
// model in tests/device/plan_memory_test.cpp):
//  - per local atom: every field of the registry (atoms/atom_fields.hpp:
//    id, type, positions, velocities, forces, images, energy and virial,
//    112 bytes today; a system with bonds adds its topology slots, the
//    molecular fields, 272 more), the list's build positions (24); the
//    virial tensor of a run that asks for it (48) is not counted;
//  - per ghost: the ghost-stored fields (id, type, positions: 36), its
//    source and shift (7);
//  - rows: a count, the inner/outer split (4), below 2^18 atoms a rank the
//    partial sums of a pair style's rows split over 2 to 8 threads (40 per
//    thread, potentials/pair_force.hpp: device_pair_lanes), and a fixed stride of 4-byte
//    neighbours per local atom, the stride 1/8 over the mean count plus 8,
//    as the device's first build takes it, room enough for a melt's longest
//    row (neighbor/row_stride.hpp); the build keeps cell bins and binned
//    positions of every atom (32);
//  - bonds, angles and special pairs (a system with bonds): the id map's
//    ids and indices of every atom and ghost (12) with its sort's scratch
//    (as much again), and a status word per local atom for each bonded
//    force (8 each, counted for one: bonds);
//  - clusters: 5 bytes per cluster pair, about 55 bytes per local atom at
//    the LJ melt's 78 neighbours (measured), scaled by the neighbours; the
//    slot map (4 per atom), the inner/outer row split (8 bytes per row,
//    about 1.3 per atom at 6 atoms per row) and, at a build, the cluster
//    boxes (about 6.6).
// Of the fields this process holds: the plan has built the deck's system,
// which turned the molecular fields on if it has bonds.
double atom_bytes() { return static_cast<double>(field_bytes(kAnyField)) + 24; }
double ghost_bytes() { return static_cast<double>(field_bytes(kFieldGhost)) + 7; }

}  // namespace

DeviceBytes estimated_device_bytes(const std::string& layout, double local, double ghost, double neighbours) {
  DeviceBytes b;
  if (layout == "clusters") {
    b.per_local = atom_bytes() + 2 + 4 + 1.3 + 6.6;
    b.list_per_local = 55.0 * neighbours / 78.0;
    b.per_ghost = ghost_bytes() + 4 + 6.6;
  } else {
    const double stride = first_row_stride(neighbours);
    // + 16: mixed precision's packed positions of every atom and ghost
    // (counted in either precision, so the plan's figure is the larger);
    // + 40 per lane: the partial sums of a pair style's rows split over
    // several threads (not a many-body force's, whose passes keep one
    // thread an atom).
    const int lanes = manybody_fields_on() ? 1 : device_pair_lanes(static_cast<long>(local));
    b.per_local = atom_bytes() + 4 + 4 + 32 + 16 + (lanes > 1 ? 40.0 * lanes : 0.0);
    b.list_per_local = 4 * stride;
    b.per_ghost = ghost_bytes() + 32 + 16;
  }
  if (molecular_fields_on()) {
    b.per_local += 24 + 8;
    b.per_ghost += 24;
  }
  // A many-body force's registered fields (F' of every atom, forwarded to
  // the ghosts) are in atom_bytes() and ghost_bytes(); its per-local value
  // between the passes (F(rho), for the energy) is its own array.
  if (manybody_fields_on()) b.per_local += 8;
  b.total = local * (b.per_local + b.list_per_local) + ghost * b.per_ghost;
  return b;
}

namespace {

// Every rank cell that sees an image of coordinate x along one axis:
// (cell, image shift) pairs whose sub-box, grown by reach, holds x + shift L.
void cells_seeing(double x, double lo, double len, int n, double reach, std::vector<std::array<int, 2>>& out) {
  out.clear();
  for (int shift = -1; shift <= 1; ++shift) {
    const double xi = x + shift * len;
    for (int c = 0; c < n; ++c) {
      const double a = lo + len * c / n, b = c + 1 == n ? lo + len : lo + len * (c + 1) / n;
      if (xi >= a - reach && xi < b + reach) out.push_back({c, shift});
    }
  }
}

// The cell along one axis whose slab holds x (the cuts of cells_seeing).
int owner_cell(double x, double lo, double len, int n) {
  for (int c = 0; c + 1 < n; ++c)
    if (x < lo + len * (c + 1) / n) return c;
  return n - 1;
}

}  // namespace

std::vector<RankCount> count_per_rank(const AtomStore& atoms, const Box& box, const RankGrid& g, double reach) {
  std::vector<RankCount> count(static_cast<std::size_t>(g.size()));
  std::vector<std::array<int, 2>> seen[3];
  const std::vector<double>* xyz[3] = {&atoms.x, &atoms.y, &atoms.z};
  for (std::size_t i = 0; i < atoms.nlocal; ++i) {
    int owner[3];
    for (int d = 0; d < 3; ++d) {
      cells_seeing((*xyz[d])[i], box.lo[d], box.length(d), g.n[d], reach, seen[d]);
      owner[d] = owner_cell((*xyz[d])[i], box.lo[d], box.length(d), g.n[d]);
    }
    for (const auto& a : seen[0])
      for (const auto& b : seen[1])
        for (const auto& c : seen[2]) {
          RankCount& r = count[(static_cast<std::size_t>(c[0]) * g.n[1] + b[0]) * g.n[0] + a[0]];
          // The last axis along which this image moved from its owner.
          const std::array<int, 2>* along[3] = {&a, &b, &c};
          int last = -1;
          for (int d = 0; d < 3; ++d)
            if ((*along[d])[0] != owner[d] || (*along[d])[1] != 0) last = d;
          const bool home = a[1] == 0 && b[1] == 0 && c[1] == 0;
          // The unshifted image inside a cell's own box is owned there; any
          // other image a cell sees is one of its ghosts.
          bool inside = home;
          if (home) {
            const std::array<int, 3> cell{a[0], b[0], c[0]};
            const SubDomain s = sub_domain(box, g, cell);
            for (int d = 0; d < 3; ++d) inside = inside && (*xyz[d])[i] >= s.lo[d] && (*xyz[d])[i] < s.hi[d];
          }
          if (inside) {
            ++r.local;
          } else {
            ++r.ghost;
            if (last >= 0 && g.n[last] > 1) ++r.received;
          }
        }
  }
  return count;
}

namespace {

std::string human_bytes(double b) {
  if (b >= 1e9) return fmt::format("{:.2f} GB", b / 1e9);
  if (b >= 1e6) return fmt::format("{:.0f} MB", b / 1e6);
  return fmt::format("{:.0f} kB", b / 1e3);
}

std::string human_seconds(double s) {
  if (s >= 1) return fmt::format("{:.3g} s", s);
  if (s >= 1e-3) return fmt::format("{:.3g} ms", s * 1e3);
  return fmt::format("{:.3g} us", s * 1e6);
}

std::string step_time_lines(const Deck& deck, const Figures& figures, const std::vector<StepEstimate>& est,
                            long long atoms, bool several) {
  if (est.empty())
    return fmt::format(
        "Time per step: not estimated: no single-GPU CUDA figure for {} precision with neighbor.layout {}\n"
        "  in {} ({} figure{} in all).\n"
        "  Time a short run (a few thousand steps) and scale by run.steps, or give measured figures\n"
        "  with --figures (docs/gpu.md).\n",
        deck.precision, deck.neighbor.layout, figures.name, figures.rows.size(), figures.rows.size() == 1 ? "" : "s");
  std::string out = fmt::format(
      "Time per step: force and list work of the largest rank ({} atoms) at the throughput measured on one GPU\n"
      "  ({}; {} precision, neighbor.layout {}):\n",
      atoms, figures.name, deck.precision, deck.neighbor.layout);
  for (const auto& e : est) {
    const std::string sizes =
        e.points == 1 ? fmt::format("measured at {} atoms", e.measured_lo)
                      : fmt::format("measured at {} sizes, {}-{} atoms", e.points, e.measured_lo, e.measured_hi);
    const char* side = e.side == StepEstimate::kAtMost ? "at most " : e.side == StepEstimate::kBeyond ? "about " : "";
    const char* why = e.side == StepEstimate::kAtMost   ? "; fewer atoms than the smallest measured size"
                      : e.side == StepEstimate::kBeyond ? "; more atoms than the largest measured size"
                                                        : "";
    const char* rate = e.side == StepEstimate::kAtMost ? "at least " : side;
    out += fmt::format(
        "  {}: {}{} per step, {}{:.3g} s for run.steps {}\n    {}{:.3g} atom-steps/s ({}{}; newest {}, {})\n", e.device,
        side, human_seconds(e.seconds), side, e.seconds * static_cast<double>(deck.steps), deck.steps, rate,
        e.atom_steps_per_s, sizes, why, e.newest_date, e.newest_commit);
  }
  if (several) out += "  The halo exchange between GPUs comes on top; it is not in these figures (--link models it).\n";
  return out;
}

// The halo's time per step over the link given, and the parallel
// efficiency it models: one GPU's estimated time for all the atoms against
// N times the largest rank's compute plus the halo, not hidden at all
// (lower bound) or hidden entirely behind the forces (upper bound).
std::string link_lines(const Deck& deck, const Figures& figures, const Link& link, int gpus, long long natoms,
                       int transfers, long long received, double bytes_per_ghost, const std::vector<StepEstimate>& est) {
  const double bytes = bytes_per_ghost * static_cast<double>(received);
  const double halo = transfers * link.latency_us * 1e-6 + bytes / (link.gb_per_s * 1e9);
  std::string out = fmt::format(
      "Halo over the link given (--link {:g} GB/s, {:g} us per transfer; a figure you gave, not measured here):\n"
      "  {} transfers x {:g} us + {} / {:g} GB/s = {} per step for the largest halo\n",
      link.gb_per_s, link.latency_us, transfers, link.latency_us, human_bytes(bytes), link.gb_per_s,
      human_seconds(halo));
  const auto one = estimate_step_time(figures.rows, deck.precision, deck.neighbor.layout, natoms);
  bool header = false;
  for (const auto& e : est)
    for (const auto& o : one) {
      if (o.device != e.device) continue;
      if (!header)
        out +=
            fmt::format("Parallel efficiency on {} GPUs against one (modelled from the figures and the link):\n", gpus);
      header = true;
      const double ideal = o.seconds / gpus;
      const double low = ideal / (e.seconds + halo), high = ideal / std::max(e.seconds, halo);
      const bool rough = o.side != StepEstimate::kWithin || e.side != StepEstimate::kWithin;
      out += fmt::format(
          "  {}: one GPU {}{} per step ({} atoms); {} GPUs {}{} compute + {} halo: {}{:.1f} % if none of the halo\n"
          "    hides behind the forces, {}{:.1f} % if all of it does\n",
          e.device, rough ? "about " : "", human_seconds(o.seconds), natoms, gpus, rough ? "about " : "",
          human_seconds(e.seconds), human_seconds(halo), rough ? "about " : "", 100 * low, rough ? "about " : "",
          100 * high);
    }
  return out;
}

// The job's time limit from the slowest measured device: 1.5 x the run's
// estimated time plus 10 minutes for start-up and checkpoints, in whole
// minutes; HH:MM:SS to fill in when nothing was measured.
std::string walltime(const Deck& deck, const std::vector<StepEstimate>& est) {
  double slowest = 0;
  for (const auto& e : est) slowest = std::max(slowest, e.seconds);
  if (slowest == 0) return "HH:MM:SS";
  const long long minutes = static_cast<long long>(std::ceil((1.5 * slowest * deck.steps + 600) / 60));
  const long long days = minutes / 1440, h = minutes / 60 % 24, m = minutes % 60;
  return days ? fmt::format("{}-{:02d}:{:02d}:00", days, h, m) : fmt::format("{:02d}:{:02d}:00", h, m);
}

}  // namespace

namespace {

// The box with its volume scaled by 1 - margin about its lower corner, and
// the atoms moved with it (the barostat's affine map).
Box shrunk(const Box& box, double margin) {
  const double s = std::cbrt(1 - margin);
  Box b = box;
  for (int d = 0; d < 3; ++d) b.hi[d] = b.lo[d] + s * box.length(d);
  return b;
}

AtomStore shrunk(const AtomStore& atoms, const Box& from, const Box& to) {
  AtomStore a = atoms;
  const double s = to.length(0) / from.length(0);
  for (std::size_t i = 0; i < a.nlocal; ++i) {
    a.x[i] = to.lo[0] + s * (a.x[i] - from.lo[0]);
    a.y[i] = to.lo[1] + s * (a.y[i] - from.lo[1]);
    a.z[i] = to.lo[2] + s * (a.z[i] - from.lo[2]);
  }
  return a;
}

// What the margin means for the run: the box it plans for, and whether the
// run's rank grid and the one-image rule still hold there (the run stops
// with exit 3 where they do not).
std::string margin_lines(const Deck& deck, const Box& low, double margin, const RankGrid& grid, double reach) {
  if (margin <= 0) return "";
  std::string out = fmt::format(
      "Box margin {:g}% of the volume (--box-margin{}): the figures below are for the box shrunk to "
      "{:g} x {:g} x {:g}\n",
      100 * margin, deck.integrator.moves_box() ? "; a barostat moves the box" : "", low.length(0), low.length(1),
      low.length(2));
  for (int d = 0; d < 3; ++d) {
    const double side = low.length(d) / grid.n[d];
    if (grid.n[d] > 1 && side < reach)
      out += fmt::format(
          "  warning: there, the {} ranks along {} hold sub-boxes {:g} thick, thinner than cutoff + skin = {:g}: "
          "the run would stop (exit 3) before the box got that small; use fewer GPUs\n",
          grid.n[d], "xyz"[d], side, reach);
    else if (low.length(d) < 2 * reach)
      out += fmt::format(
          "  warning: there, the box is {:g} along {}, less than 2 x (cutoff + skin) = {:g}: the run would stop "
          "(exit 3) before the box got that small\n",
          low.length(d), "xyz"[d], 2 * reach);
  }
  return out;
}

// What the forces forward to the ghosts between their passes each step (a
// many-body potential's intermediates, Force::forwarded_after): every
// quantity is one more exchange over the same ghosts as the positions, one
// double per ghost per array of it.
struct Forwards {
  int rounds = 0;  // exchanges per step, each as many messages as the positions'
  int values = 0;  // doubles per ghost, over all of them
  std::string names;
};

Forwards forwards_of(const ForceList& forces) {
  Forwards out;
  AtomStore probe;
  for (std::size_t k = 0; k < forces.size(); ++k)
    for (int p = 0; p + 1 < forces[k].passes(); ++p)
      for (const std::string& q : forces[k].forwarded_after(p)) {
        ++out.rounds;
        out.values += static_cast<int>(
            forwardable_arrays(probe, q.c_str(), [](std::vector<double>& v) { return v.data(); }).size());
        out.names += fmt::format("{}{} ({} after pass {})", out.names.empty() ? "" : ", ", q, forces[k].name(), p);
      }
  return out;
}

}  // namespace

Link parse_link(const std::string& text) {
  Link l;
  const std::size_t comma = text.find(',');
  const auto number = [&](const std::string& s, const char* what) {
    std::size_t used = 0;
    double v = -1;
    try {
      v = std::stod(s, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != s.size() || !std::isfinite(v))
      throw InputError(
          fmt::format("--link {}: {} '{}' is not a number (expected GBPS or GBPS,US, e.g. 450,3)", text, what, s));
    return v;
  };
  l.gb_per_s = number(text.substr(0, comma), "the bandwidth");
  if (comma != std::string::npos) l.latency_us = number(text.substr(comma + 1), "the latency");
  if (l.gb_per_s <= 0 || l.latency_us < 0)
    throw InputError(fmt::format("--link {}: the bandwidth must be above 0 GB/s and the latency at least 0 us", text));
  return l;
}

std::string make_plan(const Deck& deck, int gpus, int nodes, const Figures& figures, const Link& link,
                      double box_margin) {
  if (gpus < 1) throw InputError(fmt::format("--gpus must be at least 1, got {}", gpus));
  if (nodes < 1 || gpus % nodes != 0)
    throw InputError(fmt::format("--nodes must divide --gpus ({} GPUs on {} nodes)", gpus, nodes));
  Simulation sim(deck);  // builds and checks the system exactly as a run would
  const Box& box = sim.box();
  const double reach = sim.reach();
  const RankGrid grid = choose_rank_grid(gpus, box, reach);  // the run's choice, for the deck's box
  // A barostat moves the box: the figures are those of the box shrunk by the
  // margin, where the atoms are densest, the lists longest and the
  // sub-boxes thinnest (a growing box only lowers them).
  const double margin = box_margin >= 0 ? box_margin : deck.integrator.moves_box() ? kBarostatBoxMargin : 0;
  if (!(margin < 1)) throw InputError(fmt::format("--box-margin must be at least 0 and below 1, got {:g}", margin));
  const Box low = shrunk(box, margin);
  const auto counts = count_per_rank(margin > 0 ? shrunk(sim.atoms(), box, low) : sim.atoms(), low, grid, reach);

  const double neighbours = mean_neighbours(static_cast<double>(sim.natoms()), low.volume(), reach);
  const std::string& layout = deck.neighbor.layout;

  std::string out =
      fmt::format("Plan for {} on {} GPU{} ({} node{}, {} rank{} per node)\n", deck.path, gpus, gpus > 1 ? "s" : "",
                  nodes, nodes > 1 ? "s" : "", gpus / nodes, gpus / nodes > 1 ? "s" : "");
  out += fmt::format("System     {} atoms, box {:g} x {:g} x {:g}, cutoff + skin {:g} ({:.0f} neighbours per atom)\n",
                     sim.natoms(), box.length(0), box.length(1), box.length(2), reach, neighbours);
  out += fmt::format("Rank grid  {} (chosen for the smallest halo)\n", grid.str());
  out += margin_lines(deck, low, margin, grid, reach);
  out += "\n";
  out += fmt::format("{:>6} {:>12} {:>14} {:>12} {:>12} {:>12} {:>14}\n", "rank", "grid cell", "atoms", "ghosts",
                     "ghost/atom", "GPU memory", "halo in/step");
  long long max_local = 0, max_ghost = 0, max_received = 0;
  double max_mem = 0;
  for (int r = 0; r < grid.size(); ++r) {
    const RankCount& c = counts[r];
    const int cx = r % grid.n[0], cy = (r / grid.n[0]) % grid.n[1], cz = r / (grid.n[0] * grid.n[1]);
    const double mem = estimated_device_bytes(layout, c.local, c.ghost, neighbours).total;
    max_local = std::max(max_local, c.local);
    max_ghost = std::max(max_ghost, c.ghost);
    max_received = std::max(max_received, c.received);
    max_mem = std::max(max_mem, mem);
    if (grid.size() <= 64 || r < 8 || r >= grid.size() - 8)
      out +=
          fmt::format("{:>6} {:>12} {:>14} {:>12} {:>12.3f} {:>12} {:>14}\n", r, fmt::format("({},{},{})", cx, cy, cz),
                      c.local, c.ghost, c.local ? double(c.ghost) / c.local : 0.0, human_bytes(mem), c.received);
    else if (r == 8)
      out += fmt::format("{:>6}\n", "...");
  }
  const double balance = static_cast<double>(max_local) * grid.size() / static_cast<double>(sim.natoms());
  const DeviceBytes per = estimated_device_bytes(layout, 1, 1, neighbours);
  out += fmt::format(
      "\nLargest rank: {} atoms + {} ghosts, {} of GPU memory (neighbor.layout: {}; bytes per atom "
      "{:.0f} + list {:.0f}, per ghost {:.0f}; either precision). Load imbalance (max/mean atoms): {:.3f}\n",
      max_local, max_ghost, human_bytes(max_mem), layout, per.per_local, per.list_per_local, per.per_ghost, balance);
  int messages = 0;
  for (int d = 0; d < 3; ++d) messages += grid.n[d] > 1 ? 2 : 0;
  const Forwards fw = forwards_of(sim.forces());
  const double bytes_per_ghost = 24.0 + 8.0 * fw.values;
  if (messages > 0)
    out += fmt::format(
        "Halo per step: up to {} ghost positions ({}) arrive at a rank in {} messages; the other ghosts are\n"
        "  periodic copies made in place (axes with one rank). The same count as the run's `Halo per step` line.\n",
        max_received, human_bytes(24.0 * static_cast<double>(max_received)), messages);
  if (messages > 0 && fw.rounds > 0)
    out += fmt::format(
        "  Forwarded between force passes: {}: {} more value{} per ghost, {} in {} more messages;\n"
        "  the halo per step in all: {} in {} messages.\n",
        fw.names, fw.values, fw.values == 1 ? "" : "s", human_bytes(8.0 * fw.values * static_cast<double>(max_received)),
        messages * fw.rounds, human_bytes(bytes_per_ghost * static_cast<double>(max_received)),
        messages * (1 + fw.rounds));
  const auto est = estimate_step_time(figures.rows, deck.precision, layout, max_local);
  out += step_time_lines(deck, figures, est, max_local, gpus > 1);
  if (link.given() && messages > 0)
    out += link_lines(deck, figures, link, gpus, static_cast<long long>(sim.natoms()), messages * (1 + fw.rounds),
                      max_received, bytes_per_ghost, est);
  else if (link.given())
    out += "Halo over the link given: none (no axis has several ranks; every ghost is a copy made in place)\n";
  out += fmt::format(
      "\nSuggested job: copy slurm/requeue-until-done.sbatch (it passes the early-warning signal on to\n"
      "tessera and requeues the job until the run is done; docs/slurm.md) and set its header to:\n"
      "#SBATCH --nodes={}\n#SBATCH --ntasks-per-node={}\n#SBATCH --gpus-per-task=1\n#SBATCH --cpus-per-task=4\n"
      "#SBATCH --time={}\n#SBATCH --signal=B:USR1@300\n#SBATCH --requeue\n#SBATCH --open-mode=append\n"
      "then: sbatch your-copy.sbatch {}\n",
      nodes, gpus / nodes, walltime(deck, est), deck.path);
  return out;
}

}  // namespace tessera
