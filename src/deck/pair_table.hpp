#pragma once
#include <vector>

#include "deck/deck.hpp"
#include "potentials/pair_coeffs.hpp"

namespace tessera {

// Coefficients for every type pair: explicit deck entries first, the mixing
// rule for unlike pairs not given. (ntypes+1)^2 entries, row-major, symmetric.
// Errors point at the deck's potential.coeffs entries.
std::vector<PairCoeffs> resolve_pair_table(const PotentialSpec& spec, int ntypes);

}  // namespace tessera
