// Catch2 main of tessera_gpu_tests: the device tests (tests/device/*_test.cpp)
// built by nvcc for Thrust's CUDA system. Without a usable CUDA GPU it says
// why on one line and exits 77, which ctest reports as skipped
// (SKIP_RETURN_CODE 77). Listing the tests (--list-*, catch_discover_tests)
// and --help never touch the GPU.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <string>

#include "cuda_arch_list.hpp"

namespace {

constexpr int kSkip = 77;

// Empty when a usable GPU is there, else why not.
std::string why_no_gpu() {
  int count = 0;
  const cudaError_t rc = cudaGetDeviceCount(&count);
  if (rc != cudaSuccess) {
    std::string why = std::string(cudaGetErrorName(rc)) + ": " + cudaGetErrorString(rc);
    cudaGetLastError();
    return why;
  }
  if (count == 0) return "the CUDA runtime sees no device (CUDA_VISIBLE_DEVICES?)";
  const int lowest = tessera::lowest_cuda_arch(TESSERA_CUDA_ARCHITECTURES);
  std::string why;
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, i) != cudaSuccess) continue;
    if (10 * p.major + p.minor >= lowest) {
      if (i != 0) cudaSetDevice(i);
      return {};
    }
    why = std::string("GPU ") + p.name + " has compute capability " + std::to_string(p.major) + "." +
          std::to_string(p.minor) + ", below the architectures built (" + TESSERA_CUDA_ARCHITECTURES + ")";
  }
  return why.empty() ? std::string("no GPU could be queried") : why;
}

}  // namespace

int main(int argc, char* argv[]) {
  // Doubles in failure messages with every digit, as in tests/unit/main.cpp.
  Catch::StringMaker<double>::precision = 17;
  Catch::Session session;
  if (const int rc = session.applyCommandLine(argc, argv); rc != 0) return rc;
  const Catch::ConfigData& c = session.configData();
  const bool listing = c.listTests || c.listTestNamesOnly || c.listTags || c.listReporters || c.showHelp;
  if (!listing) {
    if (const std::string why = why_no_gpu(); !why.empty()) {
      std::printf("tessera_gpu_tests: skipped, no usable CUDA GPU (%s)\n", why.c_str());
      return kSkip;
    }
  }
  return session.run();
}
