#pragma once
// sqrt and exp for the real type a potential's eval runs in: double for the
// CPU backend and `precision: double`, float for the pair math of
// `precision: mixed` on the device. The double exp is det_exp (the same bits
// on every backend); the float one is the platform's expf, since mixed
// results are compared with double ones to a tolerance, never bitwise.
#include <math.h>

#include "core/det_exp.hpp"
#include "core/host_device.hpp"

namespace tessera {

TESSERA_HD inline double real_sqrt(double x) { return sqrt(x); }
TESSERA_HD inline float real_sqrt(float x) { return sqrtf(x); }
TESSERA_HD inline double real_exp(double x) { return det_exp(x); }
TESSERA_HD inline float real_exp(float x) { return expf(x); }

}  // namespace tessera
