#pragma once
// DeviceEngine (src/run/device_engine.hpp) over the device force pipeline:
// what Simulation drives when the deck asks for a device backend. Built by
// nvcc for the GPU and by g++ for Thrust's OpenMP system, once each, in
// device_system.cpp (make_pipeline_engine, device_system.hpp).
#include <fmt/format.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "device/cluster_list.hpp"
#include "device/device_atom_ops.hpp"
#include "device/device_halo.hpp"
#include "device/device_migration.hpp"
#include "device/device_system.hpp"
#include "device/force_pipeline.hpp"
#include "device/phase_timeline.hpp"
#include "device/reductions.hpp"
#include "run/device_engine.hpp"
#include "run/simulation.hpp"
#include "run/timers.hpp"

namespace tessera::device {
inline namespace TESSERA_DEVICE_SYSTEM_NS {

class PipelineEngine final : public DeviceEngine {
  static DeviceForcePipeline::Options options(const Simulation& sim) {
    DeviceForcePipeline::Options o;
    o.sort = sim.deck().neighbor.sort;
    o.mixed = sim.deck().precision == "mixed";
    o.clusters = sim.deck().neighbor.layout == "clusters";
    return o;
  }

 public:
  // `forces`: the device twins of sim.forces() (device_system.hpp).
  PipelineEngine(const Simulation& sim, std::string description, DeviceForces forces, DeviceStream s,
                 DeviceStream halo)
      : sim_(sim),
        description_(std::move(description)),
        pipe_(sim.sub_domain(), sim.reach(), std::move(forces), options(sim), s, halo),
        ops_(pipe_.atoms(), pipe_.stream()),
        halo_(pipe_.stream()),
        migration_(pipe_.atoms(), pipe_.stream()),
        checked_(migration_),
        timeline_(pipe_.stream(), static_cast<int>(Phase::kCount)) {
    report_device_errors_on_terminate();
  }
  ~PipelineEngine() override {
    quiesce(pipe_.halo_stream(), pipe_.stream());  // before the halo's and the migration's buffers go
    device_where().step = -1;  // no step of a finished run named by a later error
    device_where().phase = nullptr;
  }

  std::string describe() const override { return description_; }

  // Every call that runs device work goes through TESSERA_DEVICE_CALL, so a
  // device error names the step and this file's line.
  void upload(const AtomStore& a) override { TESSERA_DEVICE_CALL("upload", pipe_.upload(a)); }
  void upload_positions(const AtomStore& a) override {
    TESSERA_DEVICE_CALL("upload_positions", device::upload_positions(pipe_.stream(), a, pipe_.atoms()));
  }
  void upload_forces(const AtomStore& a) override {
    TESSERA_DEVICE_CALL("upload_forces", device::upload_forces(pipe_.stream(), a, pipe_.atoms()));
  }
  void download(AtomStore& a) const override { TESSERA_DEVICE_CALL("download", pipe_.download(a)); }
  void download_list(NeighborList& l) const override {
    const DeviceNeighborList& d = pipe_.list();
    const std::size_t n = static_cast<std::size_t>(pipe_.atoms().nlocal);
    l.builds = d.builds;
    const DeviceStream& s = pipe_.stream();
    TESSERA_DEVICE_CALL("download_list", (to_host(s, d.x0, n, l.x0), to_host(s, d.y0, n, l.y0),
                                          to_host(s, d.z0, n, l.z0)));
    if (d.clustered) {
      TESSERA_DEVICE_CALL("download_list", download_rows(s, d.clusters, pipe_.atoms(), pipe_.reach(), l));
      return;
    }
    l.stride = d.stride;
    l.pad = 1;
    std::vector<int> columns;  // the device's transposed list (neighbor_lists.hpp)
    TESSERA_DEVICE_CALL("download_list", (to_host(s, d.count, n, l.count), to_host(s, d.index, d.index.size(), columns)));
    l.index.assign(n * static_cast<std::size_t>(d.stride), 0);
    for (std::size_t i = 0; i < n; ++i)
      for (int k = 0; k < l.count[i] && k < d.stride; ++k)
        l.index[i * d.stride + k] = columns[static_cast<std::size_t>(k) * d.pitch + i];
  }

  void build_in_place() override { TESSERA_DEVICE_CALL("neighbour list build", pipe_.build_in_place()); }
  void refresh_ghosts() override { TESSERA_DEVICE_CALL("ghost refresh", pipe_.refresh_ghosts()); }
  void build_list(const SubDomain& sd, const std::vector<HaloSwap>& swaps) override {
    TESSERA_DEVICE_CALL("neighbour list build", (pipe_.build_list(sd), halo_.set(swaps)));
  }
  void set_box(const SubDomain& sd) override {
    pipe_.set_sub_domain(sd);
    halo_.set_box(sd.global);
  }
  // HaloExchange calls these through the host's messages; a device error
  // names the device step all the same.
  HaloAtoms& halo_atoms() override { return checked_; }
  void wrap() override { TESSERA_DEVICE_CALL("wrap into the box", pipe_.wrap()); }
  void sort(const SubDomain& sd) override { TESSERA_DEVICE_CALL("spatial sort", pipe_.sort(sd)); }
  std::size_t nlocal() const override { return static_cast<std::size_t>(pipe_.atoms().nlocal); }
  IdSums local_id_sums() const override { return TESSERA_DEVICE_CALL("id checksums", migration_.local_id_sums()); }
  void refresh_halo(const SwapExchange& exchange) override {
    TESSERA_DEVICE_CALL("halo refresh", halo_.refresh(pipe_.atoms(), exchange));
  }
  void set_halo_transport(HaloTransport t) override { halo_.set_transport(t); }
  std::string peer_copy_kind() const override { return device::peer_copy_kind(); }
  void set_peer_swaps(const std::vector<bool>& peer) override {
    TESSERA_DEVICE_CALL("peer copies", halo_.set_peer_swaps(peer));
  }
  void compute_forces(const SwapExchange* exchange) override {
    if (!exchange) return TESSERA_DEVICE_CALL("forces", pipe_.compute_forces());
    TESSERA_DEVICE_CALL("forces", pipe_.compute_forces(halo_forward(*exchange)));
  }
  void refresh_and_compute(const SwapExchange* exchange) override {
    if (!exchange) return TESSERA_DEVICE_CALL("ghost refresh and forces", pipe_.refresh_ghosts_and_compute());
    // The peer copies' handshake allocates: before the two streams start.
    TESSERA_DEVICE_CALL("peer copies' handshake", halo_.prepare(*exchange));
    TESSERA_DEVICE_CALL("halo refresh and forces", pipe_.refresh_and_compute(
                                                       [&](const DeviceStream& on) {
                                                         halo_.refresh(pipe_.atoms(), *exchange, on);
                                                       },
                                                       halo_forward(*exchange)));
  }
  void queue_force_checks(long step) override { TESSERA_DEVICE_CALL("force checks", pipe_.queue_checks(step)); }
  HaloOverlap halo_overlap() override {
    const HaloTimes t = TESSERA_DEVICE_CALL("halo times", pipe_.halo_times());
    return {t.halo, t.hidden};
  }
  long builds() const override { return pipe_.list().builds; }
  void set_builds(long n) override { pipe_.list().builds = n; }

  double max_displacement_sq() const override {
    return TESSERA_DEVICE_CALL("displacement check", pipe_.max_displacement_sq());
  }
  void queue_motion(double speed_sq, long step, bool displacement) override {
    TESSERA_DEVICE_CALL("motion guard",
                        guard_.queue(pipe_.stream(), pipe_.atoms(), pipe_.list(), speed_sq, step, displacement));
  }
  Motion read_motion() const override {
    const device::GuardRecord r = TESSERA_DEVICE_CALL("motion guard", guard_.read(pipe_.stream()));
    Motion m{r.step, r.id, r.x, r.y, r.z, r.vx, r.vy, r.vz, r.max_disp_sq};
    // The stream has run: these reads wait for nothing.
    for (const auto& f : TESSERA_DEVICE_CALL("force checks", pipe_.read_reports())) {
      if (f.failure.step >= 0 && (m.failure_step < 0 || f.failure.step < m.failure_step)) {
        m.failure_step = f.failure.step;
        m.failure = f.failure.text;
      }
      if (f.warning.step >= 0) m.warnings.emplace_back(f.warning.step, f.warning.text);
    }
    return m;
  }
  ThermoSums sums() const override { return TESSERA_DEVICE_CALL("thermo sums", pipe_.sums()); }
  TensorSums tensor_sums() const override { return TESSERA_DEVICE_CALL("pressure tensor sums", pipe_.tensor_sums()); }
  void set_virial_tensor(bool on) override { pipe_.set_virial_tensor(on); }
  AtomOps& ops() override { return ops_; }
  long long device_bytes_peak() const override { return device_memory().peak.load(); }
  void mark_phase(int phase) override {
    // What a device error reports, from here until the next mark.
    device_where().step = sim_.step();
    device_where().phase = phase_name(static_cast<Phase>(phase));
    TESSERA_DEVICE_CALL("phase mark", timeline_.mark(phase));
  }
  std::vector<double> device_phase_seconds() override {
    return TESSERA_DEVICE_CALL("phase times", timeline_.seconds());
  }

  const DeviceForcePipeline& pipeline() const { return pipe_; }

 private:
  // Several ranks: what a force forwards between its passes goes through
  // the halo, on every transport.
  DeviceForcePipeline::Forward halo_forward(const SwapExchange& exchange) {
    return [this, &exchange](const std::string& q, const DeviceStream& on) {
      const std::vector<double*> v =
          forwardable_arrays(pipe_.atoms(), q.c_str(), [](dvec<double>& d) { return raw(d); });
      HaloFields f;
      if (v.size() > static_cast<std::size_t>(HaloFields::kMaxWidth))
        throw std::invalid_argument("device halo: " + q + " has more values per atom than a forward carries");
      for (std::size_t c = 0; c < v.size(); ++c) f.v[c] = v[c];
      f.width = static_cast<int>(v.size());
      f.periodic = moves_with_image(q.c_str());
      halo_.forward(f, exchange, on);
    };
  }

  const Simulation& sim_;  // owns this engine; read for the step a device error names
  std::string description_;
  DeviceForcePipeline pipe_;
  DeviceAtomOps ops_;
  // Each call of HaloAtoms through TESSERA_DEVICE_CALL.
  class CheckedHaloAtoms final : public HaloAtoms {
   public:
    explicit CheckedHaloAtoms(DeviceHaloAtoms& d) : d_(d) {}
    std::size_t nlocal() const override { return d_.nlocal(); }
    std::size_t nall() const override { return d_.nall(); }
    void pick_ghosts(int d, int dir, double bound, std::size_t n, double shift, std::vector<int>& picked,
                     AtomStore& out) override {
      TESSERA_DEVICE_CALL("halo build", d_.pick_ghosts(d, dir, bound, n, shift, picked, out));
    }
    void add_ghosts(const AtomStore& in) override { TESSERA_DEVICE_CALL("halo build", d_.add_ghosts(in)); }
    void image_ghosts(int d, int dir, double bound, std::size_t n, double shift, std::vector<int>& picked) override {
      TESSERA_DEVICE_CALL("halo build", d_.image_ghosts(d, dir, bound, n, shift, picked));
    }
    void drop_ghosts() override { TESSERA_DEVICE_CALL("migration", d_.drop_ghosts()); }
    void take_leavers(int d, double lo, double hi, AtomStore& below, AtomStore& above) override {
      TESSERA_DEVICE_CALL("migration", d_.take_leavers(d, lo, hi, below, above));
    }
    void add_locals(const AtomStore& arrived) override { TESSERA_DEVICE_CALL("migration", d_.add_locals(arrived)); }

   private:
    DeviceHaloAtoms& d_;
  };

  DeviceHalo halo_;
  DeviceHaloAtoms migration_;
  CheckedHaloAtoms checked_;
  PhaseTimeline timeline_;
  mutable MotionGuard guard_;  // read_motion() is const: a read changes nothing
};

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
