#pragma once
// CUDA execution space: one thread per atom runs a host-device functor, the
// device twin of cpu_for in src/backend/cpu_exec.hpp.
#include <cuda_runtime.h>

namespace tessera {

template <class F>
__global__ void for_each_atom_kernel(F f, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) f(i);
}

template <class F>
cudaError_t cuda_for(int n, const F& f, cudaStream_t stream, int block = 128) {
  if (n == 0) return cudaSuccess;
  for_each_atom_kernel<<<(n + block - 1) / block, block, 0, stream>>>(f, n);
  return cudaGetLastError();
}

}  // namespace tessera
