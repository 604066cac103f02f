#pragma once
// Header-only: tessera_gpu_tests reads the built architectures too, and it
// does not link tessera_kernels.
#include <cstdlib>
#include <sstream>
#include <string>

// Defined by CMake (CMAKE_CUDA_ARCHITECTURES) for the targets that use it.
#ifndef TESSERA_CUDA_ARCHITECTURES
#define TESSERA_CUDA_ARCHITECTURES ""
#endif

namespace tessera {

// The lowest compute capability (10 * major + minor) in a CMake list such as
// "80;90-real;90a", 0 for none: PTX only compiles forward, so a GPU below it
// cannot run what was built.
inline int lowest_cuda_arch(const char* list) {
  std::istringstream in(list);
  std::string item;
  int lowest = 0;
  while (std::getline(in, item, ';')) {
    const int v = std::atoi(item.c_str());  // "90", "90-real", "90a" all read as 90
    if (v > 0 && (lowest == 0 || v < lowest)) lowest = v;
  }
  return lowest;
}

}  // namespace tessera
