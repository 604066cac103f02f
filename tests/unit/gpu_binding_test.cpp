#include <catch2/catch.hpp>

#include <cstdlib>

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
