#pragma once
#include <memory>
#include <string>
#include <vector>

#include "forces/force.hpp"
#include "potentials/pair_coeffs.hpp"

namespace tessera {

struct AtomStore;
struct NeighborList;

// A pair potential with its per-type-pair parameter table, ready to run:
// a force of one pass (forces/force.hpp).
class PairStyle : public Force {
 public:
  // Forces, per-atom energies and virials of the local atoms, stored (the
  // pair style alone, as tests and tables use it).
  void compute(AtomStore& atoms, const NeighborList& list) const { compute_pass(0, atoms, list, PassOptions{}); }
  // One pair at squared distance r2, for tests and tables.
  virtual void eval_pair(int ti, int tj, double r2, double& fpair, double& energy) const = 0;
};

// What the registry knows of a potential before any coefficients exist.
struct PairStyleEntry {
  std::string name;
  std::vector<std::string> coeff_names;
  PairCoeffs (*mix)(const PairCoeffs&, const PairCoeffs&, Mixing);
  // Why these coefficients make no sense, or nullptr when they are fine.
  const char* (*check)(const PairCoeffs&);
  // table: (ntypes+1)^2 entries, row-major, every pair of real types filled.
  std::unique_ptr<PairStyle> (*make)(int ntypes, const std::vector<PairCoeffs>& table, bool shift);
};

const std::vector<PairStyleEntry>& pair_styles();
const PairStyleEntry* find_pair_style(const std::string& name);

}  // namespace tessera
