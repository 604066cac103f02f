#pragma once
// The model of LAMMPS's two-type molecular melt (tests/reference/mol_melt.data,
// make_references.sh): lj/cut with unmixed unlike pairs, harmonic bonds of
// two types, an angle style and special_bonds as given. Shared by the LAMMPS
// comparison (tests/unit/lammps_molecular_test.cpp), the outputs'
// (tests/unit/topology_outputs_test.cpp) and the device's
// (tests/device/molecular_device_test.cpp).
#include <string>

namespace tessera::test {

// The bonds' and the unlike pair's coefficients come from the data file
// (Bond Coeffs, PairIJ Coeffs) in one case and the deck in the others.
// `neighbor`: more keys of the neighbor block (", layout: clusters").
inline std::string mol_model(const std::string& angles, const std::string& special,
                             const std::string& neighbor = "") {
  return R"(
potential:
  style: lj/cut
  cutoff: 2.5
  mixing: none
  coeffs:
    - {types: [1, 1], epsilon: 1.0, sigma: 1.0}
    - {types: [2, 2], epsilon: 0.8, sigma: 1.1}
    - {types: [1, 2], epsilon: 0.9, sigma: 1.05}
bonds:
  style: harmonic
  coeffs:
    - {type: 1, K: 200.0, r0: 1.0}
    - {type: 2, K: 150.0, r0: 1.1}
angles:
)" + angles + "special_bonds: " +
         special + "\nneighbor: {skin: 0.3, every: 1, delay: 0, check: true" + neighbor +
         "}\nintegrator: {style: nve, dt: 0.005}\n";
}

inline const std::string kHarmonic = "  style: harmonic\n  coeffs:\n    - {type: 1, K: 50.0, theta0: 110.0}\n"
                                     "    - {type: 2, K: 40.0, theta0: 120.0}\n";

}  // namespace tessera::test
