// tessera_hostdev: the tessera program with Thrust's OpenMP system standing in
// for CUDA. It reports one usable "GPU" and makes the device engine of
// kernels/device for it, so `backend: cuda` runs through main.cpp,
// Simulation, outputs and checkpoints exactly as on a GPU, in CI, which has
// none (tests/e2e/device_backend.sh).
//
// TESSERA_HOSTDEV_GPUS=N reports N stand-in devices (default 1), all the
// same OpenMP system, so GPU binding can be watched in the rank map.
// TESSERA_HOSTDEV_BROKEN_CUDA_AWARE_MPI=1 makes its "CUDA-aware MPI" lose
// every message (the receive buffer comes back zeroed, as from a library
// that took the device pointer for something else), so the e2e test can
// watch the start-up self-test catch it and fall back to host-staged.
// TESSERA_HOSTDEV_BROKEN_PEER_COPIES=1 zeroes the handles of its peer
// copies as they arrive, so no rank can map its partner's buffer and the
// self-test must drop them.
// TESSERA_HOSTDEV_HOST_REBUILD=1 makes several ranks rebuild on the host
// (every atom to the host and back at each rebuild, the way before the
// device migrated its own atoms): the reference the device's rebuild must
// match bit for bit.
// TESSERA_HOSTDEV_MIGRATION_FAULT=lose|duplicate|swap breaks the first
// migration on rank 0 that brings atoms: the last arrival is dropped, or
// added twice, or dropped while the first is added twice (the atom count
// holds, the id checksum does not), so the e2e test can watch the check of
// every rebuild stop the run, naming the step and the rank. `far` instead
// puts rank 0's first leaver three sub-box widths away, beyond any
// neighbour, which migration must refuse by name.
// TESSERA_HOSTDEV_DEVICE_FAULT=N makes the N-th force computation fail as a
// GPU's illegal memory access would (a thrust::system_error inside our
// device call), so the e2e test can watch the message name the step, the
// phase and the call, once, and the outputs keep what was written.
#include <fmt/format.h>

#include <cerrno>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include "devices.hpp"
#include "device/device_system.hpp"
#include "forwarding_engine.hpp"
#include "run/device_engine.hpp"

namespace tessera {
namespace {

class BrokenCudaAwareEngine final : public ExchangeTamperingEngine {
 public:
  using ExchangeTamperingEngine::ExchangeTamperingEngine;
  void set_halo_transport(HaloTransport t) override {
    transport_ = t;
    ForwardingEngine::set_halo_transport(t);
  }
  void build_list(const SubDomain& sd, const std::vector<HaloSwap>& swaps) override {
    counts_.clear();
    for (const HaloSwap& s : swaps) counts_.push_back(3 * s.count);
    ForwardingEngine::build_list(sd, swaps);
  }

 private:
  SwapExchange tamper(const SwapExchange& exchange) const override {
    if (transport_ != HaloTransport::kCudaAware) return exchange;
    SwapExchange broken = exchange;
    broken.positions = [exchange, this](std::size_t k, const double* out, double* in) {
      exchange.positions(k, out, in);
      std::fill(in, in + counts_.at(k), 0.0);
    };
    return broken;
  }
  HaloTransport transport_ = HaloTransport::kHostStaged;
  std::vector<std::size_t> counts_;
};

// Peer copies whose handles arrive as zeros, as from a process that
// cannot share its memory: every rank's mapping fails.
class BrokenPeerEngine final : public ExchangeTamperingEngine {
 public:
  using ExchangeTamperingEngine::ExchangeTamperingEngine;

 private:
  SwapExchange tamper(const SwapExchange& exchange) const override {
    SwapExchange broken = exchange;
    broken.bytes = [exchange](int to, const std::vector<char>& out, int from, std::vector<char>& in) {
      exchange.bytes(to, out, from, in);
      std::fill(in.begin(), in.end(), 0);
    };
    return broken;
  }
};

class FaultyDeviceEngine final : public ForwardingEngine {
 public:
  FaultyDeviceEngine(std::unique_ptr<DeviceEngine> e, long at) : ForwardingEngine(std::move(e)), at_(at) {}
  void compute_forces(const SwapExchange* exchange) override {
    fail_if_due();
    ForwardingEngine::compute_forces(exchange);
  }
  void refresh_and_compute(const SwapExchange* exchange) override {
    fail_if_due();
    ForwardingEngine::refresh_and_compute(exchange);
  }

 private:
  void fail_if_due() {
    if (++calls_ != at_) return;
    TESSERA_DEVICE_CALL("pair forces (injected fault)",
                        throw thrust::system_error(EFAULT, thrust::generic_category(),
                                                   "for_each: failed to synchronize: an illegal memory access was "
                                                   "encountered (injected by TESSERA_HOSTDEV_DEVICE_FAULT)"));
  }
  long at_, calls_ = 0;
};

class HostRebuildEngine final : public ForwardingEngine {
 public:
  using ForwardingEngine::ForwardingEngine;
  bool rebuilds_on_device() const override { return false; }
};

// The device's HaloAtoms with one migration broken (see the top).
class FaultyMigration final : public HaloAtoms {
 public:
  FaultyMigration(HaloAtoms& real, std::string fault) : real_(real), fault_(std::move(fault)) {}
  std::size_t nlocal() const override { return real_.nlocal(); }
  std::size_t nall() const override { return real_.nall(); }
  void pick_ghosts(int d, int dir, double bound, std::size_t n, double shift, std::vector<int>& picked,
                   AtomStore& out) override {
    real_.pick_ghosts(d, dir, bound, n, shift, picked, out);
  }
  void add_ghosts(const AtomStore& in) override { real_.add_ghosts(in); }
  void image_ghosts(int d, int dir, double bound, std::size_t n, double shift, std::vector<int>& picked) override {
    real_.image_ghosts(d, dir, bound, n, shift, picked);
  }
  void drop_ghosts() override { real_.drop_ghosts(); }
  void take_leavers(int d, double lo, double hi, AtomStore& below, AtomStore& above) override {
    real_.take_leavers(d, lo, hi, below, above);
    if (fault_ != "far" || done_ || below.nlocal + above.nlocal == 0) return;
    done_ = true;
    AtomStore& l = below.nlocal > 0 ? below : above;
    double& p = d == 0 ? l.x[0] : (d == 1 ? l.y[0] : l.z[0]);
    p += (below.nlocal > 0 ? -3.0 : 3.0) * (hi - lo);
  }
  void add_locals(const AtomStore& arrived) override {
    if (fault_ == "far" || done_ || arrived.nlocal == 0) return real_.add_locals(arrived);
    done_ = true;
    AtomStore broken;
    const std::size_t n = arrived.nlocal;
    for (std::size_t i = 0; i + 1 < n; ++i) push_migrant(broken, arrived, i);
    if (fault_ != "lose") push_migrant(broken, arrived, fault_ == "swap" ? 0 : n - 1);
    if (fault_ == "duplicate") push_migrant(broken, arrived, n - 1);
    real_.add_locals(broken);
  }

 private:
  HaloAtoms& real_;
  std::string fault_;
  bool done_ = false;
};

class FaultyMigrationEngine final : public ForwardingEngine {
 public:
  FaultyMigrationEngine(std::unique_ptr<DeviceEngine> e, std::string fault)
      : ForwardingEngine(std::move(e)), faulty_(ForwardingEngine::halo_atoms(), std::move(fault)) {}
  HaloAtoms& halo_atoms() override { return faulty_; }

 private:
  FaultyMigration faulty_;
};

bool env_is_1(const char* name) {
  const char* v = std::getenv(name);
  return v && std::strcmp(v, "1") == 0;
}

}  // namespace

DeviceReport probe_devices() {
  DeviceReport r;
  r.cuda_built = true;
  r.runtime = "Thrust OpenMP device system (test build, no CUDA)";
  const char* n = std::getenv("TESSERA_HOSTDEV_GPUS");
  const int count = n ? std::max(1, std::atoi(n)) : 1;
  for (int k = 0; k < count; ++k) {
    DeviceInfo d;
    d.index = k;
    d.name = "Thrust OpenMP host device";
    r.devices.push_back(d);
  }
  return r;
}

std::unique_ptr<DeviceEngine> make_device_engine(const Simulation& sim, int gpu) {
  auto engine = device::make_pipeline_engine(sim,
                                             fmt::format("cuda, GPU {} (Thrust OpenMP host device, test build)", gpu),
                                             device::DeviceStream::create(), device::DeviceStream::create());
  if (env_is_1("TESSERA_HOSTDEV_BROKEN_CUDA_AWARE_MPI"))
    engine = std::make_unique<BrokenCudaAwareEngine>(std::move(engine));
  if (env_is_1("TESSERA_HOSTDEV_BROKEN_PEER_COPIES")) engine = std::make_unique<BrokenPeerEngine>(std::move(engine));
  if (env_is_1("TESSERA_HOSTDEV_HOST_REBUILD")) engine = std::make_unique<HostRebuildEngine>(std::move(engine));
  if (const char* at = std::getenv("TESSERA_HOSTDEV_DEVICE_FAULT"))
    engine = std::make_unique<FaultyDeviceEngine>(std::move(engine), std::stol(at));
  const char* fault = std::getenv("TESSERA_HOSTDEV_MIGRATION_FAULT");
  const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
  if (fault && (!rank || std::strcmp(rank, "0") == 0)) {
    const std::string f = fault;
    if (f != "lose" && f != "duplicate" && f != "swap" && f != "far")
      throw std::invalid_argument("TESSERA_HOSTDEV_MIGRATION_FAULT: lose, duplicate, swap or far, not " + f);
    engine = std::make_unique<FaultyMigrationEngine>(std::move(engine), f);
  }
  return engine;
}

}  // namespace tessera
