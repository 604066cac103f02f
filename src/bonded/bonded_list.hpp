#pragma once
// Every bond and angle style Tessera has, for the tables that must hold
// them all (bonded/bonded_registry.hpp, the deck, the device engine).
// Adding a style: its header here and its name in the list; the unit tests
// (tests/unit/bonded_test.cpp) then check it.
#include "bonded/angle_cosine.hpp"
#include "bonded/angle_cosine_squared.hpp"
#include "bonded/angle_harmonic.hpp"
#include "bonded/bond_fene.hpp"
#include "bonded/bond_harmonic.hpp"

namespace tessera {

template <class... Styles>
struct BondedStyleList {};

using BondStyles = BondedStyleList<BondHarmonic, BondFENE>;
using AngleStyles = BondedStyleList<AngleHarmonic, AngleCosine, AngleCosineSquared>;

}  // namespace tessera
