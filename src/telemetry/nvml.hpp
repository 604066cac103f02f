#pragma once
// GPU telemetry through NVML, the driver's management library, loaded at run
// time (dlopen) so that the binary needs no driver to start: on a machine
// without one, or with a driver too old for a symbol, NVML is simply
// "not available" and says why.
#include <cstdint>
#include <optional>
#include <string>

namespace tessera {

struct GpuSample {
  int index = 0;
  std::string name;
  unsigned utilisation_pct = 0;         // kernels running, over the driver's last sample period
  unsigned memory_utilisation_pct = 0;  // memory controller busy
  unsigned temperature_c = 0;
  std::uint64_t memory_used_bytes = 0, memory_total_bytes = 0;
};

class Nvml {
 public:
  // The process-wide session, opened on first use from libnvidia-ml.so.1.
  static const Nvml& system();
  // A session on a given library file (tests use a stand-in library).
  explicit Nvml(const std::string& library);
  ~Nvml();
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  bool available() const { return api_ != nullptr; }
  const std::string& why_not() const { return why_not_; }
  const std::string& driver_version() const { return driver_; }
  int device_count() const { return count_; }
  // Empty when NVML is not available or the device does not answer.
  std::optional<GpuSample> sample(int index) const;

 private:
  struct Api;
  Api* api_ = nullptr;
  void* handle_ = nullptr;
  std::string why_not_, driver_;
  int count_ = 0;
};

// One sample as a JSON object (the live metrics' "gpu" field).
std::string gpu_sample_json(const GpuSample& s);

}  // namespace tessera
