#pragma once
// Which CPU thread refreshes and packs each ghost every step: the thread
// whose share of the local atoms holds the ghost's source
// (backend/cpu_shares.hpp, ghost_shares_by_source). A periodic image is then
// written by the thread that moved its source, and read mostly by that
// thread's rows, since images across the x and y faces lie at their
// source's height and the shares are slabs in z. Split by ghost index
// instead, about half the ghosts' sources and images crossed between the
// cores every step (benchmarks/NOTES.md, 2026-11-30).
#include <vector>

namespace tessera {

struct GhostShares {
  int threads = 0;  // the team they were made for; 0: none (ghosts split by index)
  long nlocal = 0, nghost = 0;
  std::vector<long> begin, end;  // segments [begin[k], end[k]) of ghost indices
  std::vector<int> first;        // thread t's segments: k in [first[t], first[t + 1])
  // Scratch of the build, kept for its storage.
  std::vector<int> next, scratch_owner;
  std::vector<long> scratch_starts, scratch_runs;
};

}  // namespace tessera
