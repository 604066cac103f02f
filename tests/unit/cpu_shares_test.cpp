// The CPU's own-share-first work split (backend/cpu_shares.hpp).
#include <catch2/catch.hpp>
#include <omp.h>

#include <atomic>
#include <vector>

#include "backend/cpu_shares.hpp"

using namespace tessera;

TEST_CASE("Shares cover the items once, in thread order", "[shares]") {
  for (long n : {0L, 1L, 7L, 64L, 1001L})
    for (int nt : {1, 2, 3, 8}) {
      long next = 0;
      for (int t = 0; t < nt; ++t) {
        const Share s = share_of(n, t, nt);
        CHECK(s.begin == next);
        CHECK(s.end >= s.begin);
        CHECK(s.end - s.begin <= n / nt + 1);
        next = s.end;
      }
      CHECK(next == n);
    }
}

TEST_CASE("Every chunk runs once, whatever the thread count", "[shares]") {
  const int saved = omp_get_max_threads();
  // 70: more threads than the split keeps counters for in place.
  for (int nt : {1, 2, 3, 5, 70})
    for (long n : {0L, 1L, 3L, 10L, 997L}) {
      omp_set_num_threads(nt);
      std::vector<std::atomic<int>> runs(static_cast<std::size_t>(n));
      for (auto& r : runs) r = 0;
      std::atomic<int> team{0};
      for_chunks_own_first(n, [&](long c) {
        runs[static_cast<std::size_t>(c)]++;
        team = omp_get_num_threads();
      });
      int wrong = 0;
      for (const auto& r : runs) wrong += r != 1;
      INFO(nt << " threads, " << n << " chunks");
      CHECK(wrong == 0);
      // The whole team splits the work, as it splits the packing: a team
      // capped below it would leave threads' packed atoms to others.
      if (n >= 2 * nt && nt > 1) CHECK(team == nt);
    }
  omp_set_num_threads(saved);
}

TEST_CASE("Each thread runs its own share, in order, before it helps", "[shares]") {
  const int saved = omp_get_max_threads();
  omp_set_num_threads(2);
  constexpr long n = 400;
  // Share 0's chunks are slow, so thread 1 usually finishes its own and
  // then takes some of thread 0's. Which thread runs what depends on the
  // scheduler; the order each thread runs its chunks in does not.
  std::vector<int> who(n, -1), when(n, -1);
  std::atomic<int> order{0};
  for_chunks_own_first(n, [&](long c) {
    who[static_cast<std::size_t>(c)] = omp_get_thread_num();
    when[static_cast<std::size_t>(c)] = order++;
    if (c < n / 2) {
      volatile double x = 0;
      for (int k = 0; k < 20000; ++k) x = x + 1;
    }
  });
  const int team = omp_get_max_threads();
  omp_set_num_threads(saved);
  for (int t = 0; t < team; ++t) {
    const Share mine = share_of(n, t, team);
    int last_own = -1, first_help = static_cast<int>(n), previous = -1;
    bool in_order = true;
    for (long c = 0; c < n; ++c) {
      if (who[static_cast<std::size_t>(c)] != t) continue;
      const int w = when[static_cast<std::size_t>(c)];
      if (c >= mine.begin && c < mine.end) {
        in_order = in_order && w > previous;
        previous = w;
        last_own = std::max(last_own, w);
      } else {
        first_help = std::min(first_help, w);
      }
    }
    INFO("thread " << t);
    CHECK(in_order);
    CHECK(last_own < first_help);
  }
}

// Ghosts by the share of their source: every ghost in exactly one segment,
// of the thread whose share of the locals holds its source; with shares for
// another team or other atoms, each thread takes its share of the indices.
TEST_CASE("Ghost segments follow their sources' shares and cover every ghost once", "[shares]") {
  const long nlocal = 1000, chunk = 64, nchunks = (nlocal + chunk - 1) / chunk;
  // Three stages of images, each in its sources' order, as periodic ghosts are.
  std::vector<int> source;
  for (int stage = 0; stage < 3; ++stage)
    for (int s = stage; s < nlocal; s += 3 + stage) source.push_back(s);
  const long nghost = static_cast<long>(source.size());
  for (int nt : {1, 2, 3, 7, 20}) {  // 20: more threads than chunks
    GhostShares gs;
    ghost_shares_by_source(source.data(), nghost, nlocal, nchunks, chunk, nt, gs);
    std::vector<int> owner(static_cast<std::size_t>(nghost), -1);
    for (int t = 0; t < nt; ++t) {
      const Share mine = share_of(nchunks, t, nt);
      for_own_ghosts(gs, nlocal, nghost, t, nt, [&](long b, long e) {
        for (long g = b; g < e; ++g) {
          CHECK(owner[g] == -1);
          owner[g] = t;
          CHECK(source[g] >= mine.begin * chunk);
          CHECK(source[g] < std::min(nlocal, mine.end * chunk));
        }
      });
    }
    for (int o : owner) CHECK(o >= 0);
    INFO(nt << " threads");
    CHECK(gs.begin.size() <= static_cast<std::size_t>(3 * nt));  // a segment a stage and thread
    // Made for another team, or before the ghosts changed: the index shares.
    for (int other : {nt + 1}) {
      std::vector<int> seen(static_cast<std::size_t>(nghost), 0);
      for (int t = 0; t < other; ++t)
        for_own_ghosts(gs, nlocal, nghost, t, other, [&](long b, long e) {
          const Share s = share_of(nghost, t, other);
          CHECK(b == s.begin);
          CHECK(e == s.end);
          for (long g = b; g < e; ++g) ++seen[g];
        });
      for (int v : seen) CHECK(v == 1);
    }
    std::vector<int> seen(static_cast<std::size_t>(nghost - 1), 0);
    for (int t = 0; t < nt; ++t)
      for_own_ghosts(gs, nlocal, nghost - 1, t, nt, [&](long b, long e) {
        for (long g = b; g < e; ++g) ++seen[g];
      });
    for (int v : seen) CHECK(v == 1);
  }
}

// The selection's threads each take a share of the candidates: the result
// is the serial one, in order, on any team (and again with kept buffers).
TEST_CASE("OrderedSelection picks what a serial loop picks, in order, on any team", "[shares]") {
  const long n = 10007;
  const auto pred = [](long k) { return (k * 7919) % 13 < 4 || (k > 5000 && k < 5100); };
  std::vector<int> serial;
  for (long k = 0; k < n; ++k)
    if (pred(k)) serial.push_back(static_cast<int>(k));
  OrderedSelection select;
  std::vector<int> out;
  const int before = omp_get_max_threads();
  for (int nt : {1, 2, 3, 7, 2}) {
    INFO(nt << " threads");
    omp_set_num_threads(nt);
    select.run(n, pred, out);
    CHECK(out == serial);
    select.run(0, pred, out);
    CHECK(out.empty());
  }
  omp_set_num_threads(before);
}
