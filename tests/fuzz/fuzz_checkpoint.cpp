// libFuzzer target: the checkpoint reader. Only CheckpointError (turned into
// exit code 2 by the CLI) may escape.
//
// Built twice. fuzz_checkpoint reads the bytes as they are: nearly every
// mutation is then refused by the header or the whole-file checksum, which
// is the point of the seal, but it leaves the HDF5 parsing unexercised.
// fuzz_checkpoint_sealed (TESSERA_FUZZ_RESEAL) first rewrites the header
// over the mutated bytes with seal_checkpoint_file, as a tool that writes a
// well-sealed but wrong file would, so HDF5 parsing and the dataset and
// consistency checks behind the seal get the mutated bytes.
#include <cstdint>
#include <cstdio>

#include "core/error.hpp"
#include "fuzz_common.hpp"
#include "io/checkpoint.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = tessera_fuzz::scratch_path(".h5");
  if (!tessera_fuzz::write_scratch(path, data, size)) return 0;
#ifdef TESSERA_FUZZ_RESEAL
  // Shorter than the header: sealing would extend the file, so there is no
  // HDF5 content to reach; the plain target covers these inputs.
  if (size < tessera::kCheckpointUserblock) return 0;
  try {
    tessera::seal_checkpoint_file(path, tessera::kCheckpointFormat);
  } catch (const tessera::IoError&) {
    return 0;  // the scratch file system failed, not the reader
  }
#endif
  try {
    tessera::CheckpointState s = tessera::read_checkpoint(path);
    (void)s;
  } catch (const tessera::CheckpointError&) {
  }
  return 0;
}
