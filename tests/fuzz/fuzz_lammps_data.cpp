// libFuzzer target: the LAMMPS data-file reader, through its public entry
// point. It reads from a path, so each input goes to a scratch file first.
// Only InputError (exit code 2) may escape.
#include <cstdint>
#include <cstdio>

#include "core/error.hpp"
#include "fuzz_common.hpp"
#include "system/build_system.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = tessera_fuzz::scratch_path(".data");
  if (!tessera_fuzz::write_scratch(path, data, size)) return 0;
  try {
    tessera::BuiltSystem s = tessera::read_lammps_data(path, {});
    (void)s;
  } catch (const tessera::InputError&) {
  }
  return 0;
}
