#pragma once
// Work split for the CPU's per-step loops over atoms: each thread first
// runs its own contiguous share, then helps the others finish theirs.
//
// Why not `schedule(dynamic)`: on the 2-vCPU test VM (2026-11-29) the two
// vCPUs were unequal (vCPU 0 ran the row kernel 1.57x slower than vCPU 1,
// alone or not: a busy SMT sibling on the host), and dynamic chunks handed
// each thread atoms whose positions the other core had just packed, so a
// second thread bought nothing (Pair 0.53 s with 1 thread, 0.53-0.59 s with
// 2; two single-threaded processes on the two vCPUs ran at their full solo
// speeds). `schedule(static)` keeps the lines local but waits for the slow
// vCPU. Here a thread packs and computes the same atoms (share_of), and only
// a thread that runs out takes chunks from another's share.
#include <algorithm>
#include <atomic>
#include <memory>
#include <vector>

#include <omp.h>

#include "atoms/ghost_shares.hpp"

namespace tessera {

// Thread t's share [begin, end) of n items among nthreads.
struct Share {
  long begin, end;
};
inline Share share_of(long n, int t, int nthreads) {
  return {n * t / nthreads, n * (t + 1) / nthreads};
}

// The own-share-first split of chunks [0, nchunks) among a team of nt
// threads, for a loop in a parallel region that the caller opens (with
// per-thread state of its own): made before the region, run(f) from every
// thread of it calls f(c) once for every chunk. Thread t runs its
// share_of(nchunks) first, in order, then helps with the chunks left in the
// others' shares; every thread visits every share, so a smaller team than
// nt still runs them all. Which thread runs a chunk changes no result as
// long as f writes only the chunk's own outputs.
class OwnFirstChunks {
 public:
  // Any team size: the packing and the ghosts' shares split among the whole
  // team, so a capped team here would read lines another thread wrote.
  OwnFirstChunks(long nchunks, int nt) : n_(nchunks), nt_(std::max(1, nt)) {
    if (nt_ > kInline) heap_.reset(new Next[static_cast<std::size_t>(nt_)]);
    for (int t = 0; t < nt_; ++t) next()[t].v.store(share_of(n_, t, nt_).begin, std::memory_order_relaxed);
  }
  int threads() const { return nt_; }
  template <class F>
  void run(const F& f) {
    const int me = omp_get_thread_num();
    for (int k = 0; k < nt_; ++k) {
      const int owner = (me + k) % nt_;
      const long end = share_of(n_, owner, nt_).end;
      for (long c; (c = next()[owner].v.fetch_add(1, std::memory_order_relaxed)) < end;) f(c);
    }
  }

 private:
  struct alignas(64) Next {
    std::atomic<long> v;
  };
  // Counters for up to kInline threads in place (made every step: no
  // allocation), more on the heap.
  static constexpr int kInline = 64;
  Next* next() { return heap_ ? heap_.get() : inline_; }
  long n_;
  int nt_;
  Next inline_[kInline];
  std::unique_ptr<Next[]> heap_;
};

// Calls f(c) once for every c in [0, nchunks) in a parallel region of its
// own (called inside one, the region has one thread, which runs them all),
// split as OwnFirstChunks does.
template <class F>
void for_chunks_own_first(long nchunks, const F& f) {
  const int nt = omp_get_max_threads();
  if (nt <= 1 || nchunks < 2 * nt) {
#pragma omp parallel for schedule(dynamic)
    for (long c = 0; c < nchunks; ++c) f(c);
    return;
  }
  OwnFirstChunks chunks(nchunks, nt);
#pragma omp parallel num_threads(nt)
  chunks.run(f);
}

// The ghosts' segments by the share of their source: ghost g goes to the
// thread whose share_of(nchunks) of the local atoms, in chunks of `chunk`
// atoms, holds source[g] (a local atom). Consecutive ghosts of one thread
// make one segment; the ghosts of one stage of images come in their
// sources' order, so there are a few segments a thread. Refills `gs`,
// keeping its storage.
inline void ghost_shares_by_source(const int* source, long nghost, long nlocal, long nchunks, long chunk, int nt,
                                   GhostShares& gs) {
  gs.threads = nt;
  gs.nlocal = nlocal;
  gs.nghost = nghost;
  // The thread of local atom s: the last whose share begins at or before
  // s's chunk (with more threads than chunks, empty shares begin where the
  // next does, and the last of equal beginnings holds the chunk). Found
  // among the shares' first atoms, not by a division and a search per
  // ghost: this runs on one thread while the others wait.
  std::vector<long>& starts = gs.scratch_starts;
  starts.resize(static_cast<std::size_t>(nt) - 1);
  for (int t = 1; t < nt; ++t) starts[t - 1] = share_of(nchunks, t, nt).begin * chunk;
  const auto owner = [&](long s) {
    return static_cast<int>(std::upper_bound(starts.begin(), starts.end(), s) - starts.begin());
  };
  // The runs of one owner in ghost order, then placed so that each thread's
  // segments lie together, in ghost order.
  std::vector<long>& runs = gs.scratch_runs;
  std::vector<int>& run_owner = gs.scratch_owner;
  runs.clear();
  run_owner.clear();
  for (long g = 0; g < nghost;) {
    const int t = owner(source[g]);
    long e = g + 1;
    while (e < nghost && owner(source[e]) == t) ++e;
    runs.push_back(g);
    run_owner.push_back(t);
    g = e;
  }
  const std::size_t nruns = runs.size();
  gs.first.assign(static_cast<std::size_t>(nt) + 1, 0);
  for (const int t : run_owner) ++gs.first[t + 1];
  for (int t = 0; t < nt; ++t) gs.first[t + 1] += gs.first[t];
  gs.begin.resize(nruns);
  gs.end.resize(nruns);
  std::vector<int>& next = gs.next;
  next.assign(gs.first.begin(), gs.first.end() - 1);
  for (std::size_t r = 0; r < nruns; ++r) {
    const int k = next[run_owner[r]]++;
    gs.begin[k] = runs[r];
    gs.end[k] = r + 1 < nruns ? runs[r + 1] : nghost;
  }
}

// The k in [0, n) for which pred(k) holds, in increasing order: each thread
// selects from its contiguous share into a buffer of its own, then copies it
// to its place in the output. Keeps its buffers from call to call.
class OrderedSelection {
 public:
  template <class Pred>
  void run(long n, const Pred& pred, std::vector<int>& out) {
    const int nt = std::max(1, omp_get_max_threads());
    if (static_cast<int>(parts_.size()) < nt) parts_.resize(static_cast<std::size_t>(nt));
    offset_.resize(static_cast<std::size_t>(nt) + 1);
#pragma omp parallel num_threads(nt)
    {
      const int t = omp_get_thread_num(), team = omp_get_num_threads();
      std::vector<int>& mine = parts_[static_cast<std::size_t>(t)];
      mine.clear();
      const Share sh = share_of(n, t, team);
      for (long k = sh.begin; k < sh.end; ++k)
        if (pred(k)) mine.push_back(static_cast<int>(k));
#pragma omp barrier
#pragma omp single
      {
        offset_[0] = 0;
        for (int u = 0; u < team; ++u) offset_[u + 1] = offset_[u] + static_cast<long>(parts_[u].size());
        out.resize(static_cast<std::size_t>(offset_[team]));
      }
      std::copy(mine.begin(), mine.end(), out.begin() + offset_[t]);
    }
  }

 private:
  std::vector<std::vector<int>> parts_;
  std::vector<long> offset_;
};

// Calls f(begin, end) over thread t's ghosts (of a team of nt, called in its
// parallel region): its segments of gs when gs was made for this team and
// these atoms, else its share of the ghost indices.
template <class F>
void for_own_ghosts(const GhostShares& gs, long nlocal, long nghost, int t, int nt, const F& f) {
  if (gs.threads == nt && gs.nlocal == nlocal && gs.nghost == nghost) {
    for (int k = gs.first[t]; k < gs.first[t + 1]; ++k) f(gs.begin[k], gs.end[k]);
    return;
  }
  const Share s = share_of(nghost, t, nt);
  if (s.end > s.begin) f(s.begin, s.end);
}

}  // namespace tessera
