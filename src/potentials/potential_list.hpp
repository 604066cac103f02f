#pragma once
// Every potential Tessera has, for the tables that must hold them all: the
// CPU registry (registry.cpp) and the device engines (kernels/device_engine.cu,
// tests/device). Adding a potential: its header here and its name in the list.
#include "potentials/lj_cut.hpp"
#include "potentials/lj_smooth_linear.hpp"
#include "potentials/morse.hpp"

namespace tessera {

template <class... Pots>
struct PotentialList {};

using Potentials = PotentialList<LJCut, LJSmoothLinear, Morse>;

}  // namespace tessera
