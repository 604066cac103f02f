#pragma once
// Which GPU a rank belongs to: its rank on the node, as the launcher gives it
// (Slurm's SLURM_LOCALID, Open MPI's OMPI_COMM_WORLD_LOCAL_RANK), modulo the
// GPUs it can see. With `srun --gpus-per-task=1` every rank sees one GPU and
// takes index 0; with all GPUs visible, local ranks 0..n-1 spread over them
// and further ranks share them.
#include <optional>
#include <vector>

namespace tessera {

// The launcher's local rank, or nothing when no launcher set one (a plain
// `tessera run`) or the value is not a non-negative integer.
std::optional<int> launcher_local_rank();

// local_rank modulo visible; -1 when no GPU is visible.
int gpu_for_local_rank(int local_rank, int visible);

// The GPU index local rank `local_rank` takes: the deck's gpu_ids in turn
// when it lists them (ids[local_rank % ids.size()], to bind ranks to the GPUs
// near their cores or to leave some out), else the usable GPUs in turn.
// -1 when there is none to take.
int gpu_for_rank(int local_rank, const std::vector<int>& usable, const std::vector<int>& ids);

}  // namespace tessera
