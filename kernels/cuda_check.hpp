#pragma once
// Every CUDA runtime call in Tessera goes through TESSERA_CUDA_CHECK: a
// failure becomes an exception naming the call, the file and the line.
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <stdexcept>

namespace tessera {

inline void cuda_check(cudaError_t rc, const char* call, const char* file, int line) {
  if (rc == cudaSuccess) return;
  throw std::runtime_error(
      fmt::format("CUDA error {} ({}) in {} at {}:{}", cudaGetErrorName(rc), cudaGetErrorString(rc), call, file, line));
}

}  // namespace tessera

#define TESSERA_CUDA_CHECK(call) ::tessera::cuda_check((call), #call, __FILE__, __LINE__)
