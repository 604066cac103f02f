#pragma once
// The checkpoint folder: DIR/ckpt-<step, 12 digits>.h5, newest = highest step.
#include <string>
#include <vector>

#include "io/checkpoint.hpp"

namespace tessera {

struct CheckpointFile {
  long step = 0;
  std::string path;
};

std::string checkpoint_path(const std::string& folder, long step);
// Checkpoints in `folder`, newest first; empty when the folder does not exist.
std::vector<CheckpointFile> list_checkpoints(const std::string& folder);
// Deletes all but the newest `keep`. Returns the deleted paths.
std::vector<std::string> prune_checkpoints(const std::string& folder, int keep);
// Removes temporary files left by writers that died mid-checkpoint.
void remove_stale_temporaries(const std::string& folder);

// The newest checkpoint that reads and verifies. Each one refused on the way
// is reported through `skipped` ("path: reason"). `found` is false when the
// folder holds no checkpoint that verifies.
struct NewestGood {
  bool found = false;
  std::string path;
  CheckpointState state;
  std::vector<std::string> skipped;
};
NewestGood newest_good_checkpoint(const std::string& folder);

}  // namespace tessera
