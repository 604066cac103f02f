#include <catch2/catch.hpp>

#include <cstdlib>
#include <vector>

#include "telemetry/gpu_binding.hpp"

using namespace tessera;

TEST_CASE("a rank's GPU is its local rank modulo the GPUs it sees", "[gpu_binding]") {
  CHECK(gpu_for_local_rank(0, 4) == 0);
  CHECK(gpu_for_local_rank(5, 4) == 1);
  CHECK(gpu_for_local_rank(3, 1) == 0);  // srun --gpus-per-task=1: each rank sees one
  CHECK(gpu_for_local_rank(2, 0) == -1);
  CHECK(gpu_for_local_rank(-1, 2) == 0);
}

TEST_CASE("the local rank comes from Slurm first, then Open MPI", "[gpu_binding]") {
  const char* names[] = {"SLURM_LOCALID", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID"};
  for (const char* n : names) unsetenv(n);
  CHECK_FALSE(launcher_local_rank());
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "2", 1);
  CHECK(launcher_local_rank() == 2);
  setenv("SLURM_LOCALID", "5", 1);
  CHECK(launcher_local_rank() == 5);
  // A value that is not a rank is passed over, not read as 0.
  setenv("SLURM_LOCALID", "5x", 1);
  CHECK(launcher_local_rank() == 2);
  setenv("SLURM_LOCALID", "-1", 1);
  CHECK(launcher_local_rank() == 2);
  for (const char* n : names) unsetenv(n);
}

TEST_CASE("the deck's gpu_ids bind local ranks to the GPUs it lists, in turn", "[gpu_binding]") {
  const std::vector<int> usable{0, 1, 2, 3};
  // No list: the usable GPUs in turn (here the 2nd and 3rd are missing).
  CHECK(gpu_for_rank(1, {0, 3}, {}) == 3);
  CHECK(gpu_for_rank(2, {0, 3}, {}) == 0);
  CHECK(gpu_for_rank(0, {}, {}) == -1);
  // A list: its entries in turn, whatever is usable (the caller checks).
  CHECK(gpu_for_rank(0, usable, {3, 2}) == 3);
  CHECK(gpu_for_rank(1, usable, {3, 2}) == 2);
  CHECK(gpu_for_rank(2, usable, {3, 2}) == 3);
  CHECK(gpu_for_rank(5, usable, {7}) == 7);
}
