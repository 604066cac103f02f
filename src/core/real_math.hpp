#pragma once
// sqrt, exp and log for the real type a potential's eval runs in: double for the
// CPU backend and `precision: double`, float for the pair math of
// `precision: mixed` on the device. The double exp and log are det_exp and
// det_log (the same bits on every backend); the float ones are the
// platform's expf and logf, since mixed
// results are compared with double ones to a tolerance, never bitwise.
#include <math.h>

#include "core/det_exp.hpp"
#include "core/det_log.hpp"
#include "core/host_device.hpp"

namespace tessera {

TESSERA_HD inline double real_sqrt(double x) { return sqrt(x); }
TESSERA_HD inline float real_sqrt(float x) { return sqrtf(x); }
TESSERA_HD inline double real_exp(double x) { return det_exp(x); }
TESSERA_HD inline float real_exp(float x) { return expf(x); }
TESSERA_HD inline double real_log(double x) { return det_log(x); }
TESSERA_HD inline float real_log(float x) { return logf(x); }

}  // namespace tessera
