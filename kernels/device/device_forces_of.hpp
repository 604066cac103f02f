#pragma once
// The device forces of a run: each member of the host's force list
// (src/forces/force_list.hpp) as the device pipeline runs it. Adding a
// potential to potential_list.hpp gives it its device twin here.
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "device/pair_forces.hpp"
#include "forces/force_list.hpp"
#include "potentials/pair_style_impl.hpp"
#include "potentials/potential_list.hpp"

namespace tessera::device {
inline namespace TESSERA_DEVICE_SYSTEM_NS {

using DeviceForces = std::vector<std::unique_ptr<DeviceForce>>;

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

// Every force of `forces`, in order. Throws std::invalid_argument naming the
// first force with no device version.
template <class... Pots>
DeviceForces device_forces(PotentialList<Pots...> pots, const ForceList& forces, int ntypes, DeviceStream s) {
  DeviceForces out;
  for (std::size_t k = 0; k < forces.size(); ++k) {
    auto d = device_force_of(pots, forces[k], ntypes, s);
    if (!d) throw std::invalid_argument(std::string(forces[k].name()) + " has no device version");
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
