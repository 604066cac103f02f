/* A stand-in for libnvidia-ml.so.1 with two fixed GPUs, so that the NVML
   loader (src/telemetry/nvml.cpp) is tested on machines without a driver:
   the symbols are looked up by name and called through the same C ABI. */
#include <string.h>

typedef struct {
  int index;
} fake_device;
static fake_device devices[2] = {{0}, {1}};
static int initialised = 0;

typedef struct {
  unsigned int gpu, memory;
} utilisation;
typedef struct {
  unsigned long long total, free, used;
} memory;

int nvmlInit_v2(void) { initialised = 1; return 0; }
int nvmlShutdown(void) { initialised = 0; return 0; }
const char* nvmlErrorString(int rc) { return rc == 0 ? "Success" : "Fake error"; }
int nvmlSystemGetDriverVersion(char* out, unsigned int n) {
  strncpy(out, "999.1.fake", n);
  return 0;
}
int nvmlDeviceGetCount_v2(unsigned int* n) {
  *n = 2;
  return initialised ? 0 : 1;
}
int nvmlDeviceGetHandleByIndex_v2(unsigned int i, fake_device** d) {
  if (i > 1) return 2;
  *d = &devices[i];
  return 0;
}
int nvmlDeviceGetName(fake_device* d, char* out, unsigned int n) {
  strncpy(out, d->index == 0 ? "Fake \"Quoted\" GPU" : "Fake GPU B", n);
  return 0;
}
int nvmlDeviceGetUtilizationRates(fake_device* d, utilisation* u) {
  u->gpu = 40 + (unsigned)d->index;
  u->memory = 7;
  return 0;
}
int nvmlDeviceGetTemperature(fake_device* d, int sensor, unsigned int* t) {
  if (sensor != 0) return 2;
  *t = 55 + (unsigned)d->index;
  return 0;
}
int nvmlDeviceGetMemoryInfo(fake_device* d, memory* m) {
  /* device 1 refuses, as some virtualised GPUs do */
  if (d->index == 1) return 3;
  m->total = 80ULL << 30;
  m->used = 3ULL << 29;
  m->free = m->total - m->used;
  return 0;
}
