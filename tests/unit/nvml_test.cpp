#include <catch2/catch.hpp>

#include "telemetry/nvml.hpp"

using namespace tessera;

TEST_CASE("NVML is read through the driver's C entry points", "[nvml]") {
  const Nvml nvml(TESSERA_FAKE_NVML);
  REQUIRE(nvml.available());
  CHECK(nvml.why_not().empty());
  CHECK(nvml.driver_version() == "999.1.fake");
  CHECK(nvml.device_count() == 2);
  const auto a = nvml.sample(0);
  REQUIRE(a);
  CHECK(a->name == "Fake \"Quoted\" GPU");
  CHECK(a->utilisation_pct == 40);
  CHECK(a->memory_utilisation_pct == 7);
  CHECK(a->temperature_c == 55);
  CHECK(a->memory_total_bytes == (80ULL << 30));
  CHECK(a->memory_used_bytes == (3ULL << 29));
  // A reading the device refuses is left out; the others still come.
  const auto b = nvml.sample(1);
  REQUIRE(b);
  CHECK(b->temperature_c == 56);
  CHECK(b->memory_total_bytes == 0);
  CHECK_FALSE(nvml.sample(2));
  CHECK_FALSE(nvml.sample(-1));
  CHECK(gpu_sample_json(*a) ==
        "{\"index\": 0, \"name\": \"Fake \\\"Quoted\\\" GPU\", \"utilisation_pct\": 40, "
        "\"memory_utilisation_pct\": 7, \"temperature_c\": 55, \"memory_used_mib\": 1536.0, "
        "\"memory_total_mib\": 81920.0}");
  // Memory the device would not report is null, not zero.
  CHECK(gpu_sample_json(*b).find("\"memory_used_mib\": null, \"memory_total_mib\": null}") != std::string::npos);
}

TEST_CASE("without a driver NVML is unavailable and says why", "[nvml]") {
  const Nvml none("libtessera-no-such-nvml.so.1");
  CHECK_FALSE(none.available());
  CHECK(none.why_not().find("libtessera-no-such-nvml.so.1") != std::string::npos);
  CHECK(none.device_count() == 0);
  CHECK_FALSE(none.sample(0));
  // A library that loads but is not NVML.
  const Nvml wrong("libm.so.6");
  CHECK_FALSE(wrong.available());
  CHECK(wrong.why_not().find("lacks nvmlInit_v2") != std::string::npos);
}
