#pragma once
#include <string>

#include "run/simulation.hpp"

namespace tessera {

// The end-of-run performance summary: loop time, throughput, and where the
// time went, per phase.
std::string performance_summary(const Simulation& sim);
// Several ranks: per-phase time, atoms and ghosts as min / avg / max over the
// ranks, and the load imbalance (max / avg). Collective; "" on one rank.
std::string rank_balance_summary(const Simulation& sim);
// The start-of-run description of what is about to run.
std::string run_banner(const Simulation& sim);

}  // namespace tessera
