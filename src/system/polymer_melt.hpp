#pragma once
// A Kremer-Grest bead-spring melt built from the deck (issue 29): M linear
// chains of N beads as non-overlapping random walks in a cubic periodic box,
// then a soft push-off so that a FENE + WCA run can start with an ordinary
// time step. Reduced (lj) units throughout.
//
// Deterministic: the walks draw from the counter-based generator
// (random/philox.hpp) with counters (chain, draw number), the push-off is a
// fixed sequence of steepest-descent steps with per-atom writes, and only
// +, *, / and sqrt are used, so every rank and every machine builds the same
// melt bit for bit.
#include <cstdint>
#include <string>
#include <vector>

namespace tessera {

struct BuiltSystem;

struct PolymerMeltSpec {
  long long chains = 0;       // M
  long long beads = 0;        // N, beads per chain
  double density = 0.85;      // beads per unit volume; the box side is (M N / density)^(1/3)
  double bond_length = 0.97;  // the walk's step; FENE (K 30, R0 1.5) + WCA rests at 0.97
  std::uint64_t seed = 0;
  int bead_type = 1;  // every bead has this type

  // Walk: a new bead is rejected closer than walk_min_distance to any bead
  // but its bonded predecessor, and redrawn up to walk_tries times before
  // the chain backs up a few beads. After walk_backtracks backtracks the
  // rest of that chain may come 0.05 closer, down to walk_lowest_distance
  // (the last chains of a dense melt of long chains need it); past that, an
  // error.
  double walk_min_distance = 0.8;
  double walk_lowest_distance = 0.6;
  int walk_tries = 200;
  int walk_backtracks = 200;

  // Push-off: steepest descent on a soft repulsion A (1 - r/rc)^2 (r < rc,
  // bonded neighbours excluded) plus harmonic bonds K (r - bond_length)^2,
  // each bead moving at most pushoff_max_step per iteration, until no
  // non-bonded pair is closer than pushoff_min_distance and no bond is
  // further than pushoff_bond_tolerance from bond_length (or
  // pushoff_iterations have passed: then an error). pushoff_iterations 0:
  // no push-off, the walks as placed.
  double pushoff_min_distance = 0.85;
  double pushoff_bond_tolerance = 0.03;
  double pushoff_cutoff = 1.122462048309373;  // 2^(1/6)
  double pushoff_max_step = 0.02;
  long long pushoff_iterations = 20000;
};

// What the build did, for logs and tests.
struct PolymerMeltReport {
  long long walk_backtracks = 0;  // over all chains
  long long walk_restarts = 0;    // chains begun again from a new first bead
  long long walk_lowered = 0;     // times a stuck chain's distance was lowered
  double walk_min_distance = 0;   // smallest non-bonded distance after the walks
  long long pushoff_iterations = 0;
  double min_distance = 0;  // smallest non-bonded distance at the end
  double min_bond = 0, max_bond = 0;
};

// The melt as a BuiltSystem: box [0, L)^3, atoms with ids 1..M N chain by
// chain, bead by bead, positions wrapped into the box with image flags so
// that the unwrapped chains are continuous, zero velocities, masses from
// `masses` (index 0 unused, ntypes + 1 entries), molecule id = chain 1..M,
// bonds between consecutive beads (type 1, ids 1..M (N-1)). Impossible
// specs (a box too small, a walk that cannot be placed, a push-off that
// does not converge) are InputErrors that name the chain and bead.
BuiltSystem build_polymer_melt(const PolymerMeltSpec& spec, int ntypes, const std::vector<double>& masses,
                               PolymerMeltReport* report = nullptr);

}  // namespace tessera
