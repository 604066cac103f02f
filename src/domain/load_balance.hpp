#pragma once
// Moving the cut planes of the rank grid so that every rank has the same
// work (LAMMPS's `balance shift` idea: one axis at a time, planes shared by
// all ranks). Pure functions of the measured costs, so every rank computes
// the same planes from the same allgathered numbers.
#include <vector>

#include "domain/rank_grid.hpp"

namespace tessera {

// max / mean of `cost` (1 when all are zero).
double imbalance(const std::vector<double>& cost);

// The grid with planes moved toward an even split of `cost` (one value per
// rank, in rank order), taking cost as spread evenly within each slab. A
// plane moves at most a quarter of the narrower slab beside it, so every
// atom changes owner by one hop at most, and no slab ends up thinner than
// `min_fraction[d]` of the box (the halo needs cutoff + skin). Axes where
// that cannot hold keep their planes.
RankGrid balance_cuts(const RankGrid& grid, const std::vector<double>& cost, const double min_fraction[3]);

}  // namespace tessera
