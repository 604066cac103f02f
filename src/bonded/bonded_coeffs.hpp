#pragma once
// Coefficients of one bond or angle type, in the order of the style's
// coeff_names (LAMMPS's bond_coeff / angle_coeff order), as the deck or a
// data file's Bond Coeffs / Angle Coeffs section gives them.
#include <array>

namespace tessera {

struct BondedCoeffs {
  std::array<double, 4> c{0, 0, 0, 0};
};

// What a bond functor's eval reports besides the numbers.
enum class BondStatus {
  kOk,
  // FENE only: 1 - (r/R0)^2 fell below LAMMPS's SMALL (0.1) but r < R0.
  // LAMMPS warns "FENE bond too long" and clamps the log argument to SMALL;
  // eval does the same, and the caller decides whether to warn.
  kStretched,
  // FENE only: r >= R0, the energy is undefined. The caller must stop the
  // run naming the bond, its atoms, the step and the length (issue 29, must
  // have 6); energy and force are left at zero, never NaN.
  kBroken,
};

}  // namespace tessera
