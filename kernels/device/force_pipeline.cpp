// DeviceForcePipeline's device work (force_pipeline.hpp), built once per
// device system: by nvcc in tessera_device_cuda (kernels/CMakeLists.txt), by
// g++ for Thrust's OpenMP system in tessera_device_omp (tests/device).
#include "device/force_pipeline.hpp"

#include <algorithm>

#include "device/device_ghosts.hpp"
#include "device/neighbor_build.hpp"
#include "device/reductions.hpp"
#include "device/spatial_sort.hpp"

namespace tessera::device {
inline namespace TESSERA_DEVICE_SYSTEM_NS {

DeviceForcePipeline::DeviceForcePipeline(const SubDomain& sd, double reach,
                                         std::vector<std::unique_ptr<DeviceForce>> forces, Options opt,
                                         DeviceStream s, DeviceStream halo)
    : sd_(sd),
      reach_(reach),
      opt_(opt),
      stream_(s),
      halo_stream_(halo),
      ghosts_(std::make_unique<DeviceGhosts>(s)),
      sorter_(std::make_unique<SpatialSorter>(s)),
      builder_(std::make_unique<DeviceNeighborBuilder>(s)),
      forces_(std::move(forces)),
      overlap_(s, halo),
      sums_(std::make_unique<OrderedSums>()) {
  if (forces_.empty()) throw std::invalid_argument("DeviceForcePipeline: no force to compute");
  while (split_forces_ < forces_.size() && forces_[split_forces_]->passes() == 1 && forces_[split_forces_]->splits())
    ++split_forces_;
  list_.stride = opt.initial_stride;
  list_.clustered = opt.clusters;
  list_.clusters.stride = opt.initial_stride;
}

DeviceForcePipeline::~DeviceForcePipeline() { quiesce(halo_stream_, stream_); }

void DeviceForcePipeline::upload(const AtomStore& a) { upload_atoms(stream_, a, atoms_); }
void DeviceForcePipeline::download(AtomStore& a) const { download_atoms(stream_, atoms_, a); }

void DeviceForcePipeline::rebuild() {
  ghosts_->wrap(atoms_, sd_.global);
  if (opt_.sort) sorter_->sort(atoms_, sd_, 0.5 * reach_);  // the CPU's sort cell size
  ghosts_->build(atoms_, sd_, reach_);
  builder_->build(atoms_, sd_, reach_, list_);
}

void DeviceForcePipeline::build_in_place() {
  ghosts_->build(atoms_, sd_, reach_);
  builder_->build(atoms_, sd_, reach_, list_);
}

void DeviceForcePipeline::wrap() {
  ghosts_->wrap(atoms_, sd_.global);
}

void DeviceForcePipeline::sort(const SubDomain& sd) { sorter_->sort(atoms_, sd, 0.5 * reach_); }

void DeviceForcePipeline::build_list(const SubDomain& sd) {
  sd_ = sd;
  builder_->build(atoms_, sd_, reach_, list_);
}

void DeviceForcePipeline::refresh_ghosts() { ghosts_->refresh(atoms_, sd_.global); }

void DeviceForcePipeline::set_virial_tensor(bool on) {
  virial_tensor_ = on;
  if (!on)
    for (auto& t : tensor_) release(stream_, t);
}

void DeviceForcePipeline::compute_forces(const Forward& forward) { run_list(nullptr, forward); }

void DeviceForcePipeline::refresh_ghosts_and_compute(bool split) {
  if (!split) {
    ghosts_->refresh(atoms_, sd_.global, stream_);
    return run_list(nullptr, periodic_forward());
  }
  refresh_and_compute([this](const DeviceStream& on) { ghosts_->refresh(atoms_, sd_.global, on); },
                      periodic_forward());
}

HaloTimes DeviceForcePipeline::halo_times() { return overlap_.times(); }

double DeviceForcePipeline::max_displacement_sq() const {
  return device::max_displacement_sq(stream_, atoms_, list_);
}

void DeviceForcePipeline::queue_checks(long step) const {
  for (const auto& f : forces_)
    if (f->may_fail()) f->queue_check(atoms_, step);
}

std::vector<DeviceForce::Report> DeviceForcePipeline::read_reports() const {
  std::vector<DeviceForce::Report> out;
  for (const auto& f : forces_)
    if (f->may_fail()) out.push_back(f->read_report());
  return out;
}

DeviceSums DeviceForcePipeline::sums() const { return sums_->thermo(stream_, atoms_); }

TensorSums DeviceForcePipeline::tensor_sums() const {
  const double* w[6];
  for (int c = 0; c < 6; ++c) w[c] = raw(tensor_[c]);
  return sums_->tensor(stream_, atoms_, w);
}

void DeviceForcePipeline::run_list(const dvec<int>* some, const Forward& forward, std::size_t first,
                                   std::size_t last) {
  PassOptions opt;
  if (virial_tensor_)
    for (int c = 0; c < 6; ++c) {
      resize(stream_, tensor_[c], static_cast<std::size_t>(atoms_.nlocal));  // a no-op but at rebuilds
      opt.tensor[c] = raw(tensor_[c]);
    }
  for (std::size_t k = first; k < std::min(last, forces_.size()); ++k) {
    const DeviceForce& f = *forces_[k];
    opt.accumulate = k > 0;
    for (int p = 0; p < f.passes(); ++p) {
      if (p > 0)
        for (const std::string& q : f.forwarded_after(p - 1)) forward(q, stream_);
      f.compute(p, atoms_, list_, some, opt_.mixed, opt);
    }
  }
}

DeviceForcePipeline::Forward DeviceForcePipeline::periodic_forward() {
  return [this](const std::string& q, const DeviceStream& on) { ghosts_->forward(atoms_, q, sd_.global, on); };
}

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
