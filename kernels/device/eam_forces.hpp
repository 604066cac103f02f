#pragma once
// The embedded-atom method on the device: the twin of EamForce
// (src/manybody/eam_force.hpp), running the same functors
// (src/manybody/eam_kernels.hpp) one thread per local atom, with the
// tables copied to the device once. Pass 0 leaves F'(rho) in the registered
// field the host force names; the pipeline forwards it to the ghosts
// (periodic images, or the halo between ranks) before pass 1, so in double
// each atom's numbers are the CPU's.
#include <memory>
#include <string>
#include <vector>

#include "device/device_atoms.hpp"
#include "device/device_force.hpp"
#include "device/neighbor_lists.hpp"
#include "device/pair_forces.hpp"
#include "manybody/eam_force.hpp"
#include "manybody/eam_kernels.hpp"

namespace tessera::device {
inline namespace TESSERA_DEVICE_SYSTEM_NS {

class DeviceEamForce final : public DeviceForce {
 public:
  DeviceEamForce(const EamForce& host, DeviceStream s)
      : stream_(s), view_(eam_view(host.tables())), forwarded_(host.forwarded_after(0)) {
    const EamTables& t = host.tables();
    assign(stream_, frho_, t.frho);  // host -> device, once
    assign(stream_, rhor_, t.rhor);
    assign(stream_, z2r_, t.z2r);
    assign(stream_, type2frho_, t.type2frho);
    assign(stream_, type2rhor_, t.type2rhor);
    assign(stream_, type2z2r_, t.type2z2r);
    view_.frho = raw(frho_);
    view_.rhor = raw(rhor_);
    view_.z2r = raw(z2r_);
    view_.type2frho = raw(type2frho_);
    view_.type2rhor = raw(type2rhor_);
    view_.type2z2r = raw(type2z2r_);
  }

  int passes() const override { return 2; }
  std::vector<std::string> forwarded_after(int pass) const override {
    return pass == 0 ? forwarded_ : std::vector<std::string>{};
  }
  // Pass 1 reads the ghosts' F', which exists only once pass 0 has run on
  // every rank and been forwarded.
  bool splits() const override { return false; }
  bool over_clusters() const override { return false; }

  void compute(int pass, DeviceAtoms& a, const DeviceNeighborList& nl, const dvec<int>* some, bool mixed,
               const PassOptions& opt) const override {
    const EamAtoms in{view_, raw(a.x), raw(a.y), raw(a.z), raw(a.type), raw(nl.index), raw(nl.count), 1, nl.pitch};
    if (pass == 0) {
      resize(stream_, embed_, static_cast<std::size_t>(a.nlocal));  // a no-op but at rebuilds
      if (mixed)
        over(a, some, EamDensity<float>{in, raw(a.embedding_derivative), raw(embed_)});
      else
        over(a, some, EamDensity<double>{in, raw(a.embedding_derivative), raw(embed_)});
      return;
    }
    if (opt.virial_tensor())
      return mixed ? forces<true, float>(in, a, some, opt) : forces<true, double>(in, a, some, opt);
    if (mixed)
      forces<false, float>(in, a, some, opt);
    else
      forces<false, double>(in, a, some, opt);
  }

 private:
  template <class F>
  void over(const DeviceAtoms& a, const dvec<int>* some, const F& f) const {
    if (some)
      for_each_index(stream_, static_cast<int>(some->size()), detail::OverAtoms<F>{raw(*some), f});
    else
      for_each_index(stream_, a.nlocal, f);
  }

  template <bool kTensor, class Real>
  void forces(const EamAtoms& in, DeviceAtoms& a, const dvec<int>* some, const PassOptions& opt) const {
    const EamForces<kTensor, Real> f{in, raw(a.embedding_derivative), raw(embed_), device_outputs(a, opt)};
    over(a, some, f);
  }

  DeviceStream stream_;
  EamView view_;  // its pointers into the device tables below
  std::vector<std::string> forwarded_;
  dvec<double> frho_, rhor_, z2r_;
  dvec<int> type2frho_, type2rhor_, type2z2r_;
  mutable dvec<double> embed_;  // F(rho_i) of the locals, from pass 0 to pass 1
};

// The twin of `f` when it is an EAM force, or null (device_system.cpp).
inline std::unique_ptr<DeviceForce> eam_twin(const Force& f, DeviceStream s) {
  const auto* host = dynamic_cast<const EamForce*>(&f);
  return host ? std::make_unique<DeviceEamForce>(*host, s) : nullptr;
}

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
