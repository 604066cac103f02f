#pragma once
// Which instruction set the CPU pair kernel runs with. Every level computes
// bitwise the same forces, energies and virials (see cpu_pair_kernel.hpp),
// so this choice changes speed only.

namespace tessera {

enum class SimdLevel { kScalar = 0, kAvx2 = 1, kAvx512 = 2 };

const char* simd_name(SimdLevel level);
// Whether this binary has the level and this CPU (and OS) can run it.
bool simd_supported(SimdLevel level);
// The level used: TESSERA_SIMD=scalar|avx2|avx512 when set (an unknown or
// unsupported value throws std::runtime_error), else the best supported.
// Decided once per process.
SimdLevel simd_level();

}  // namespace tessera
