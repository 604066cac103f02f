#include "telemetry/nvml.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

namespace tessera {
namespace {

// The few NVML declarations used, with the C ABI of nvml.h (stable since
// the _v2 entry points of CUDA 5.5 era drivers); nvml.h itself ships with
// the driver, not with every toolkit, so it is not included.
using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;
struct nvmlUtilization_t {
  unsigned int gpu, memory;
};
struct nvmlMemory_t {
  unsigned long long total, free, used;
};
constexpr nvmlReturn_t kNvmlSuccess = 0;
constexpr int kNvmlTemperatureGpu = 0;

}  // namespace

struct Nvml::Api {
  nvmlReturn_t (*init)();
  nvmlReturn_t (*shutdown)();
  const char* (*error_string)(nvmlReturn_t);
  nvmlReturn_t (*driver_version)(char*, unsigned int);
  nvmlReturn_t (*count)(unsigned int*);
  nvmlReturn_t (*handle)(unsigned int, nvmlDevice_t*);
  nvmlReturn_t (*name)(nvmlDevice_t, char*, unsigned int);
  nvmlReturn_t (*utilisation)(nvmlDevice_t, nvmlUtilization_t*);
  nvmlReturn_t (*temperature)(nvmlDevice_t, int, unsigned int*);
  nvmlReturn_t (*memory)(nvmlDevice_t, nvmlMemory_t*);
};

namespace {
template <class F>
bool resolve(void* lib, const char* symbol, F& f, std::string& missing) {
  f = reinterpret_cast<F>(dlsym(lib, symbol));
  if (!f) missing += (missing.empty() ? "" : ", ") + std::string(symbol);
  return f != nullptr;
}
}  // namespace

const Nvml& Nvml::system() {
  static const Nvml session("libnvidia-ml.so.1");
  return session;
}

Nvml::Nvml(const std::string& library) {
  handle_ = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) {
    const char* e = dlerror();
    why_not_ = e ? e : library + ": cannot be loaded";
    return;
  }
  auto* api = new Api{};
  std::string missing;
  resolve(handle_, "nvmlInit_v2", api->init, missing);
  resolve(handle_, "nvmlShutdown", api->shutdown, missing);
  resolve(handle_, "nvmlErrorString", api->error_string, missing);
  resolve(handle_, "nvmlSystemGetDriverVersion", api->driver_version, missing);
  resolve(handle_, "nvmlDeviceGetCount_v2", api->count, missing);
  resolve(handle_, "nvmlDeviceGetHandleByIndex_v2", api->handle, missing);
  resolve(handle_, "nvmlDeviceGetName", api->name, missing);
  resolve(handle_, "nvmlDeviceGetUtilizationRates", api->utilisation, missing);
  resolve(handle_, "nvmlDeviceGetTemperature", api->temperature, missing);
  resolve(handle_, "nvmlDeviceGetMemoryInfo", api->memory, missing);
  if (!missing.empty()) {
    why_not_ = library + " lacks " + missing;
    delete api;
    return;
  }
  if (const nvmlReturn_t rc = api->init(); rc != kNvmlSuccess) {
    why_not_ = fmt::format("nvmlInit failed: {}", api->error_string(rc));
    delete api;
    return;
  }
  char version[96] = {};
  if (api->driver_version(version, sizeof version) == kNvmlSuccess) driver_ = version;
  unsigned int n = 0;
  if (api->count(&n) == kNvmlSuccess) count_ = static_cast<int>(n);
  api_ = api;
}

Nvml::~Nvml() {
  if (api_) api_->shutdown();
  delete api_;
  // The library stays mapped: unloading it at exit gains nothing and races
  // with NVML's own threads in some drivers.
}

std::optional<GpuSample> Nvml::sample(int index) const {
  if (!api_ || index < 0 || index >= count_) return std::nullopt;
  nvmlDevice_t dev = nullptr;
  if (api_->handle(static_cast<unsigned int>(index), &dev) != kNvmlSuccess) return std::nullopt;
  GpuSample s;
  s.index = index;
  char name[96] = {};
  if (api_->name(dev, name, sizeof name) == kNvmlSuccess) s.name = name;
  // Each reading is optional: a driver may refuse one (e.g. utilisation on
  // some virtualised GPUs) and still give the others.
  nvmlUtilization_t u{};
  if (api_->utilisation(dev, &u) == kNvmlSuccess) {
    s.utilisation_pct = u.gpu;
    s.memory_utilisation_pct = u.memory;
  }
  unsigned int t = 0;
  if (api_->temperature(dev, kNvmlTemperatureGpu, &t) == kNvmlSuccess) s.temperature_c = t;
  nvmlMemory_t m{};
  if (api_->memory(dev, &m) == kNvmlSuccess) {
    s.memory_used_bytes = m.used;
    s.memory_total_bytes = m.total;
  }
  return s;
}

std::string gpu_sample_json(const GpuSample& s) {
  std::string name;
  for (char c : s.name) {
    if (c == '"' || c == '\\')
      name += '\\', name += c;
    else if (static_cast<unsigned char>(c) >= 0x20)
      name += c;
  }
  // A device that does not report its memory says so with null, not 0 MiB.
  const auto mib = [&](std::uint64_t bytes) {
    return s.memory_total_bytes ? fmt::format("{:.1f}", static_cast<double>(bytes) / (1 << 20)) : std::string("null");
  };
  return fmt::format(
      "{{\"index\": {}, \"name\": \"{}\", \"utilisation_pct\": {}, \"memory_utilisation_pct\": {}, "
      "\"temperature_c\": {}, \"memory_used_mib\": {}, \"memory_total_mib\": {}}}",
      s.index, name, s.utilisation_pct, s.memory_utilisation_pct, s.temperature_c, mib(s.memory_used_bytes),
      mib(s.memory_total_bytes));
}

}  // namespace tessera
