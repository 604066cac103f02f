#include "backend/cpu_simd.hpp"

#include <cstdlib>
#include <stdexcept>
#include <string>

#include "core/error.hpp"

namespace tessera {

const char* simd_name(SimdLevel level) {
  switch (level) {
    case SimdLevel::kScalar: return "scalar";
    case SimdLevel::kAvx2: return "avx2";
    case SimdLevel::kAvx512: return "avx512";
  }
  return "?";
}

bool simd_supported(SimdLevel level) {
  if (level == SimdLevel::kScalar) return true;
#if defined(__x86_64__)
  // The kernels are compiled for the x86-64 levels v3 and v4, so the CPU
  // must have every feature of the level, not only the vector width.
  __builtin_cpu_init();
#if defined(__clang__)
  // clang (14) knows no level names: the features of the levels it can test.
  const bool v3 = __builtin_cpu_supports("avx") && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                  __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2");
  const bool v4 = v3 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                  __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") &&
                  __builtin_cpu_supports("avx512vl");
#else
  const bool v3 = __builtin_cpu_supports("x86-64-v3");
  const bool v4 = __builtin_cpu_supports("x86-64-v4");
#endif
  if (level == SimdLevel::kAvx2) return v3;
  if (level == SimdLevel::kAvx512) return v4;
#endif
  return false;
}

namespace {
SimdLevel choose() {
  const char* env = std::getenv("TESSERA_SIMD");
  if (env && *env) {
    for (SimdLevel l : {SimdLevel::kScalar, SimdLevel::kAvx2, SimdLevel::kAvx512})
      if (std::string(env) == simd_name(l)) {
        if (!simd_supported(l))
          throw InputError(std::string("TESSERA_SIMD=") + env + ": this CPU or build does not support it");
        return l;
      }
    throw InputError(std::string("TESSERA_SIMD=") + env + ": expected scalar, avx2 or avx512");
  }
  for (SimdLevel l : {SimdLevel::kAvx512, SimdLevel::kAvx2})
    if (simd_supported(l)) return l;
  return SimdLevel::kScalar;
}
}  // namespace

SimdLevel simd_level() {
  static const SimdLevel level = choose();
  return level;
}

}  // namespace tessera
