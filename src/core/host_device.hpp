#pragma once
// Physics functors are compiled by both g++ (CPU backend) and nvcc (CUDA
// backend); this marker is the only thing that differs between the two.
#if defined(__CUDACC__)
#define TESSERA_HD __host__ __device__
#else
#define TESSERA_HD
#endif
