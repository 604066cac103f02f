#pragma once
#include <array>
#include <string>

namespace tessera {

// How coefficients of unlike type pairs are derived when the deck does not
// give them. Lorentz-Berthelot (arithmetic lengths, geometric energies) is
// the default; "none" demands every pair explicitly.
enum class Mixing { kLorentzBerthelot, kGeometric, kNone };

// Raw coefficients of one type pair, in the order of the potential's
// coeff_names, plus that pair's cutoff.
struct PairCoeffs {
  std::array<double, 4> c{0, 0, 0, 0};
  double cutoff = 0;
};

}  // namespace tessera
