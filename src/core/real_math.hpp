#pragma once
// sqrt, exp and log for the real type a potential's eval runs in: double for the
// CPU backend and `precision: double`, float for the pair math of
// `precision: mixed`. The exps are det_exp and det_expf (the same bits on
// every backend, and they vectorise in the CPU's lane loops); the double
// log is det_log, the float one the platform's logf (FENE bonds in float on
// the device; no CPU lane loop calls it).
#include <math.h>

#include "core/det_exp.hpp"
#include "core/det_log.hpp"
#include "core/host_device.hpp"

namespace tessera {

TESSERA_HD inline double real_sqrt(double x) { return sqrt(x); }
TESSERA_HD inline float real_sqrt(float x) { return sqrtf(x); }
TESSERA_HD inline double real_exp(double x) { return det_exp(x); }
TESSERA_HD inline float real_exp(float x) { return det_expf(x); }
TESSERA_HD inline double real_log(double x) { return det_log(x); }
TESSERA_HD inline float real_log(float x) { return logf(x); }

}  // namespace tessera
