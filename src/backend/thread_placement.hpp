#pragma once
// Where the CPU backend's OpenMP threads run, for the run header: whether
// they are bound (OMP_PROC_BIND, OMP_PLACES) and to which CPUs. Timings of
// unbound threads on a shared 2-core machine varied by up to +-25 % from
// run to run (benchmarks/NOTES.md, issue 31), so a figure is read with this
// line next to it.
#include <string>
#include <vector>

namespace tessera {

struct ThreadPlacement {
  std::string bind;                    // omp_get_proc_bind()'s policy: "false", "true", "close", "spread", ...
  std::string places;                  // OMP_PLACES as set, or "" when unset
  std::vector<std::vector<int>> cpus;  // per thread, the CPUs of its place (bound), or empty
  std::vector<int> allowed;            // the CPUs the process may run on (its affinity mask)
};

// This process's placement, found by asking each thread of a parallel
// region (the team a pair kernel gets).
ThreadPlacement thread_placement();

// "2 OpenMP threads, not bound (OMP_PROC_BIND unset): the OS places them on CPUs 0-1"
// or "2 OpenMP threads bound close (OMP_PLACES=cores): thread 0 on CPU 0, thread 1 on CPU 1".
std::string describe(const ThreadPlacement& p);

// "0-3,6,8-9".
std::string cpu_ranges(const std::vector<int>& cpus);

// The CPUs this process may run on (its affinity mask), ascending.
std::vector<int> allowed_cpus();

// The OpenMP threads a rank takes when neither the deck, --threads nor
// OMP_NUM_THREADS gives a count: the `allowed` CPUs of its mask shared
// evenly by the `sharing` ranks of its node whose masks are the same, at
// least one. A launcher that binds each rank to its own cores (mpirun's
// default for a few ranks, srun's --cpu-bind) gives sharing 1 and the
// rank its cores; `mpirun --bind-to none -np 2` on 2 cores gives each
// rank 1 thread where OpenMP's own default (every CPU of the mask) ran 4
// threads on 2 CPUs.
int default_thread_count(std::size_t allowed, int sharing);

}  // namespace tessera
