/* The host's state, read before and after each timed run of the race
 * (run.sh): nanoseconds per load of a pointer chase through 512 KB, which
 * fits this core's L2 when the core is its own. On a shared VM a busy
 * tenant on the same physical core takes L2 from it, and this reading
 * rises by 25-75 % (benchmarks/NOTES.md, eighteenth session), as every
 * engine's run slows. The chase is a shuffled cycle from a fixed seed, so
 * every reading walks the same addresses. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(void) {
  enum { kBytes = 512 * 1024, kN = kBytes / (int)sizeof(long), kLoads = 4000000 };
  long *next = malloc(kBytes), *order = malloc(kBytes);
  if (!next || !order) return 1;
  unsigned long s = 88172645463325252UL; /* xorshift64 */
  for (long i = 0; i < kN; ++i) order[i] = i;
  for (long i = kN - 1; i > 0; --i) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    const long j = (long)(s % (unsigned long)(i + 1)), t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  for (long i = 0; i < kN; ++i) next[order[i]] = order[(i + 1) % kN];
  long p = 0;
  for (long k = 0; k < kN; ++k) p = next[p]; /* warm: the whole cycle once */
  const double t0 = now();
  for (long k = 0; k < kLoads; ++k) p = next[p];
  const double ns = (now() - t0) * 1e9 / kLoads;
  printf("%.3f\n", ns + (double)(p < 0)); /* p keeps the chase from being optimised away */
  return 0;
}
