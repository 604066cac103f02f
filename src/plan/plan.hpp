#pragma once
#include <string>
#include <vector>

#include "atoms/atom_store.hpp"
#include "deck/deck.hpp"
#include "domain/rank_grid.hpp"
#include "plan/figures.hpp"

namespace tessera {

// `tessera plan DECK --gpus N [--nodes M]`: how the deck's system would be
// laid out over N ranks (one GPU each): the rank grid, atoms and ghost atoms
// per rank (counted from the deck's actual atoms), GPU memory per rank, time
// per step from measured figures where any exist, and an #SBATCH header.
// `--link GBPS[,US]`: the link between GPUs as the user gives it (a
// published NVLink figure, or one measured elsewhere): bandwidth in GB/s
// one way and the cost of each transfer in microseconds. With it the plan
// adds the halo's time per step and, where figures exist, the parallel
// efficiency it models against one GPU.
struct Link {
  double gb_per_s = 0, latency_us = 0;
  bool given() const { return gb_per_s > 0; }
};
Link parse_link(const std::string& text);  // "450" or "450,3"; InputError otherwise

// `box_margin`: the fraction of its volume the box may lose during the run
// (`--box-margin`); the counts and memory are for that smaller box. Negative:
// kBarostatBoxMargin for npt and nph, 0 for a fixed box.
constexpr double kBarostatBoxMargin = 0.1;
std::string make_plan(const Deck& deck, int gpus, int nodes, const Figures& figures, const Link& link = {},
                      double box_margin = -1);

// Atoms each rank of grid `g` would own, and the periodic images within
// `reach` of its sub-box it would hold as ghosts. Rank r = (cz * ny + cy) * nx + cx.
// `received`: the ghosts that arrive by message each step, as the staged
// exchange (comm/halo_exchange.hpp) brings them: a ghost comes with the
// last axis along which it moved, by message where that axis has several
// ranks, made in place where it has one.
struct RankCount {
  long long local = 0, ghost = 0, received = 0;
};
std::vector<RankCount> count_per_rank(const AtomStore& atoms, const Box& box, const RankGrid& g, double reach);

// The device memory a rank would hold at its peak, for `layout` (deck
// neighbor.layout) with `local` atoms, `ghost` ghosts and `neighbours` per
// atom within cutoff + skin: what the plan prints per rank.
struct DeviceBytes {
  double per_local = 0, list_per_local = 0, per_ghost = 0, total = 0;
};
DeviceBytes estimated_device_bytes(const std::string& layout, double local, double ghost, double neighbours);

}  // namespace tessera
