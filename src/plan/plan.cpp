#include "plan/plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "core/error.hpp"
#include "domain/rank_grid.hpp"
#include "run/simulation.hpp"

namespace tessera {

namespace {

// Device bytes per atom, by what the CUDA backend keeps resident (issue 3's
// layout): ids, types, positions, velocities, forces, images, per-atom energy
// and virial, list-build positions, sort and bin scratch; ghosts carry
// ids, types, positions and their source index and shift.
constexpr double kBytesPerLocal = 8 + 4 + 24 + 24 + 24 + 12 + 8 + 8 + 24 + 16;
constexpr double kBytesPerGhost = 8 + 4 + 24 + 4 + 4;
constexpr double kListSlack = 1.25;  // padded fixed-stride full list

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

}  // namespace

std::vector<RankCount> count_per_rank(const AtomStore& atoms, const Box& box, const RankGrid& g, double reach) {
  std::vector<RankCount> count(static_cast<std::size_t>(g.size()));
  std::vector<std::array<int, 2>> seen[3];
  const std::vector<double>* xyz[3] = {&atoms.x, &atoms.y, &atoms.z};
  for (std::size_t i = 0; i < atoms.nlocal; ++i) {
    for (int d = 0; d < 3; ++d) cells_seeing((*xyz[d])[i], box.lo[d], box.length(d), g.n[d], reach, seen[d]);
    for (const auto& a : seen[0])
      for (const auto& b : seen[1])
        for (const auto& c : seen[2]) {
          RankCount& r = count[(static_cast<std::size_t>(c[0]) * g.n[1] + b[0]) * g.n[0] + a[0]];
          const bool home = a[1] == 0 && b[1] == 0 && c[1] == 0;
          // The unshifted image inside a cell's own box is owned there; any
          // other image a cell sees is one of its ghosts.
          bool inside = home;
          if (home) {
            const std::array<int, 3> cell{a[0], b[0], c[0]};
            const SubDomain s = sub_domain(box, g, cell);
            for (int d = 0; d < 3; ++d) inside = inside && (*xyz[d])[i] >= s.lo[d] && (*xyz[d])[i] < s.hi[d];
          }
          if (inside)
            ++r.local;
          else
            ++r.ghost;
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

}  // namespace

std::string make_plan(const Deck& deck, int gpus, int nodes) {
  if (gpus < 1) throw InputError(fmt::format("--gpus must be at least 1, got {}", gpus));
  if (nodes < 1 || gpus % nodes != 0)
    throw InputError(fmt::format("--nodes must divide --gpus ({} GPUs on {} nodes)", gpus, nodes));
  Simulation sim(deck);  // builds and checks the system exactly as a run would
  const Box& box = sim.box();
  const double reach = sim.reach();
  const RankGrid grid = choose_rank_grid(gpus, box, reach);
  const auto counts = count_per_rank(sim.atoms(), box, grid, reach);

  const double density = static_cast<double>(sim.natoms()) / box.volume();
  const double neighbours = 4.0 / 3.0 * M_PI * reach * reach * reach * density;
  const double list_bytes = std::ceil(neighbours * kListSlack) * 4;

  std::string out =
      fmt::format("Plan for {} on {} GPU{} ({} node{}, {} rank{} per node)\n", deck.path, gpus, gpus > 1 ? "s" : "",
                  nodes, nodes > 1 ? "s" : "", gpus / nodes, gpus / nodes > 1 ? "s" : "");
  out += fmt::format("System     {} atoms, box {:g} x {:g} x {:g}, cutoff + skin {:g} ({:.0f} neighbours per atom)\n",
                     sim.natoms(), box.length(0), box.length(1), box.length(2), reach, neighbours);
  out += fmt::format("Rank grid  {} (chosen for the smallest halo)\n\n", grid.str());
  out += fmt::format("{:>6} {:>12} {:>14} {:>12} {:>12} {:>12}\n", "rank", "grid cell", "atoms", "ghosts", "ghost/atom",
                     "GPU memory");
  long long max_local = 0, max_ghost = 0;
  double max_mem = 0;
  for (int r = 0; r < grid.size(); ++r) {
    const RankCount& c = counts[r];
    const int cx = r % grid.n[0], cy = (r / grid.n[0]) % grid.n[1], cz = r / (grid.n[0] * grid.n[1]);
    const double mem = c.local * (kBytesPerLocal + list_bytes) + c.ghost * kBytesPerGhost;
    max_local = std::max(max_local, c.local);
    max_ghost = std::max(max_ghost, c.ghost);
    max_mem = std::max(max_mem, mem);
    if (grid.size() <= 64 || r < 8 || r >= grid.size() - 8)
      out += fmt::format("{:>6} {:>12} {:>14} {:>12} {:>12.3f} {:>12}\n", r, fmt::format("({},{},{})", cx, cy, cz),
                         c.local, c.ghost, c.local ? double(c.ghost) / c.local : 0.0, human_bytes(mem));
    else if (r == 8)
      out += fmt::format("{:>6}\n", "...");
  }
  const double balance = static_cast<double>(max_local) * grid.size() / static_cast<double>(sim.natoms());
  out += fmt::format(
      "\nLargest rank: {} atoms + {} ghosts, {} of GPU memory (double precision; per-atom bytes "
      "{:.0f} + list {:.0f}, per ghost {:.0f}). Load imbalance (max/mean atoms): {:.3f}\n",
      max_local, max_ghost, human_bytes(max_mem), kBytesPerLocal, list_bytes, kBytesPerGhost, balance);
  out +=
      "Time per step: not estimated: no GPU throughput has been measured yet (benchmarks/results/ holds\n"
      "  only CPU figures). Time a short run (a few thousand steps) and scale by run.steps.\n";
  out += fmt::format(
      "\nSuggested job: copy slurm/requeue-until-done.sbatch (it passes the early-warning signal on to\n"
      "tessera and requeues the job until the run is done; docs/slurm.md) and set its header to:\n"
      "#SBATCH --nodes={}\n#SBATCH --ntasks-per-node={}\n#SBATCH --gpus-per-task=1\n#SBATCH --cpus-per-task=4\n"
      "#SBATCH --time=HH:MM:SS\n#SBATCH --signal=B:USR1@300\n#SBATCH --requeue\n#SBATCH --open-mode=append\n"
      "then: sbatch your-copy.sbatch {}\n",
      nodes, gpus / nodes, deck.path);
  return out;
}

}  // namespace tessera
