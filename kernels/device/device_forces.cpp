// device_forces (device_system.hpp): the device twins of a run's forces,
// built once per device system like device_system.cpp. It is a source of
// its own so that nvcc may contract the force kernels' multiply-adds into
// FMAs (kernels/CMakeLists.txt, TESSERA_CUDA_FMA) while the rest of the
// pipeline, whose positions, ghosts and sums are compared with the CPU's
// bit for bit, is built without. Adding a potential to potential_list.hpp
// gives it its device twin here.
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "bonded/bonded_forces.hpp"
#include "bonded/bonded_list.hpp"
#include "device/bonded_forces.hpp"
#include "device/device_system.hpp"
#include "device/eam_forces.hpp"
#include "device/pair_forces.hpp"
#include "potentials/pair_style_impl.hpp"
#include "potentials/potential_list.hpp"

namespace tessera::device {
inline namespace TESSERA_DEVICE_SYSTEM_NS {

namespace {

// The device twin of `f`, one of the pair styles of `Pots`, or null when it
// has none.
template <class... Pots>
std::unique_ptr<DeviceForce> device_force_of(PotentialList<Pots...>, const Force& f, int ntypes, DeviceStream s) {
  std::unique_ptr<DeviceForce> d;
  auto twin = [&](auto* style) {
    using Style = std::remove_cv_t<std::remove_pointer_t<decltype(style)>>;
    if (d || !style) return;
    d = std::make_unique<DevicePairForce<typename Style::Potential>>(ntypes, style->params(), s);
  };
  (twin(dynamic_cast<const PairStyleImpl<Pots>*>(&f)), ...);
  return d;
}

// The twin of `f` when it is a bond or angle force of one of the `Styles`
// (bonded/bonded_list.hpp), or null.
template <template <class> class HostOf, template <class> class DeviceOf, class... Styles>
std::unique_ptr<DeviceForce> bonded_twin(BondedStyleList<Styles...>, const Force& f,
                                         const std::shared_ptr<const DeviceIdMap>& map, DeviceStream s) {
  std::unique_ptr<DeviceForce> d;
  auto twin = [&](auto* host) {
    using Host = std::remove_cv_t<std::remove_pointer_t<decltype(host)>>;
    if (d || !host) return;
    d = std::make_unique<DeviceOf<typename Host::StyleType>>(host->params(), host->atoms().reach(), map, s);
  };
  (twin(dynamic_cast<const HostOf<Styles>*>(&f)), ...);
  return d;
}

// The twin of the special-pair correction over the pair style of `Pots` it
// corrects, or null.
template <class... Pots>
std::unique_ptr<DeviceForce> special_twin(PotentialList<Pots...>, const Force& f, int ntypes,
                                          const std::shared_ptr<const DeviceIdMap>& map, DeviceStream s) {
  const auto* c = dynamic_cast<const SpecialPairCorrection*>(&f);
  if (!c) return nullptr;
  std::unique_ptr<DeviceForce> d;
  auto twin = [&](auto* style) {
    using Style = std::remove_cv_t<std::remove_pointer_t<decltype(style)>>;
    if (d || !style) return;
    d = std::make_unique<DeviceSpecialCorrection<typename Style::Potential>>(ntypes, style->params(), c->factors(),
                                                                            map, s);
  };
  (twin(dynamic_cast<const PairStyleImpl<Pots>*>(&c->pair())), ...);
  return d;
}

}  // namespace

DeviceForces device_forces(const ForceList& forces, int ntypes, DeviceStream s) {
  DeviceForces out;
  std::shared_ptr<const DeviceIdMap> map;  // shared by the bonded twins of one list
  for (std::size_t k = 0; k < forces.size(); ++k) {
    auto d = device_force_of(Potentials{}, forces[k], ntypes, s);
    if (!d) {
      if (!map) map = std::make_shared<const DeviceIdMap>(s);
      d = bonded_twin<BondForce, DeviceBondForce>(BondStyles{}, forces[k], map, s);
      if (!d) d = bonded_twin<AngleForce, DeviceAngleForce>(AngleStyles{}, forces[k], map, s);
      if (!d) d = special_twin(Potentials{}, forces[k], ntypes, map, s);
      if (!d) d = eam_twin(forces[k], s);
    }
    if (!d) throw std::invalid_argument(std::string(forces[k].name()) + " has no device version");
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
