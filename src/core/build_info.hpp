#pragma once
#include <string>

namespace tessera {

// "0.1.0 (commit abc123, CUDA on sm_90)": what built this binary.
std::string version_string();
bool built_with_cuda();

}  // namespace tessera
