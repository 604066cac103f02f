#include "telemetry/gpu_binding.hpp"

#include <cerrno>
#include <cstdlib>

namespace tessera {

std::optional<int> launcher_local_rank() {
  // Slurm first: under srun inside an Open MPI build both may be set, and
  // Slurm's is the one that matches its own GPU binding.
  for (const char* name : {"SLURM_LOCALID", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID"}) {
    const char* v = std::getenv(name);
    if (!v || !*v) continue;
    char* end = nullptr;
    errno = 0;
    const long r = std::strtol(v, &end, 10);
    if (errno == 0 && *end == '\0' && r >= 0 && r < (1L << 30)) return static_cast<int>(r);
  }
  return std::nullopt;
}

int gpu_for_local_rank(int local_rank, int visible) {
  if (visible <= 0) return -1;
  return (local_rank < 0 ? 0 : local_rank) % visible;
}

int gpu_for_rank(int local_rank, const std::vector<int>& usable, const std::vector<int>& ids) {
  const std::vector<int>& from = ids.empty() ? usable : ids;
  const int k = gpu_for_local_rank(local_rank, static_cast<int>(from.size()));
  return k < 0 ? -1 : from[static_cast<std::size_t>(k)];
}

}  // namespace tessera
