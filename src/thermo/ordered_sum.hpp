#pragma once
// Sums over a rank's atoms in one order, fixed by the atom count alone, so
// that the CPU backend, every GPU (whatever its number of SMs) and every
// thread count add the same numbers the same way: a Nose-Hoover run, whose
// thermostat feeds on the kinetic energy every step, follows the same
// trajectory when a restart lands on another card or another core count.
// A library reduction splits the work by the hardware it finds.
//
// Atoms go in blocks of kBlock; within a block, atom i is added to lane
// i % kLanes, each lane in atom order; a block is its lanes added in order,
// and the total is the blocks added in order. The lanes are what a GPU
// warp reads coalesced.
#include "core/host_device.hpp"

namespace tessera::ordered_sum {

constexpr long kBlock = 4096;
constexpr int kLanes = 32;

inline long blocks(long n) { return (n + kBlock - 1) / kBlock; }

// Lane `lane` of block `b` into acc[0, NV): per_atom(i, acc) adds atom i's
// NV values.
template <int NV, class F>
TESSERA_HD void lane_sum(long n, long b, int lane, const F& per_atom, double* acc) {
  for (int v = 0; v < NV; ++v) acc[v] = 0;
  const long end = (b + 1) * kBlock < n ? (b + 1) * kBlock : n;
  for (long i = b * kBlock + lane; i < end; i += kLanes) per_atom(i, acc);
}

// A block's NV values from its lanes' (lanes[lane * NV + v]).
template <int NV>
TESSERA_HD void block_sum(const double* lanes, double* out) {
  for (int v = 0; v < NV; ++v) out[v] = 0;
  for (int l = 0; l < kLanes; ++l)
    for (int v = 0; v < NV; ++v) out[v] += lanes[l * NV + v];
}

// The total from the blocks' values (per_block[b * NV + v]).
template <int NV>
void total(const double* per_block, long nblocks, double* out) {
  for (int v = 0; v < NV; ++v) out[v] = 0;
  for (long b = 0; b < nblocks; ++b)
    for (int v = 0; v < NV; ++v) out[v] += per_block[b * NV + v];
}

// The per-atom terms of the thermo sums, for every backend.
struct MassVelocitySq {
  const int* type;
  const double* mass_of_type;
  const double* vx;
  const double* vy;
  const double* vz;
  TESSERA_HD void operator()(long i, double* acc) const {
    acc[0] += mass_of_type[type[i]] * (vx[i] * vx[i] + vy[i] * vy[i] + vz[i] * vz[i]);
  }
};

// m v^2 per axis (the barostat's anisotropic kinetic pressure).
struct MassVelocityAxes {
  MassVelocitySq v;
  TESSERA_HD void operator()(long i, double* acc) const {
    const double m = v.mass_of_type[v.type[i]];
    acc[0] += m * (v.vx[i] * v.vx[i]);
    acc[1] += m * (v.vy[i] * v.vy[i]);
    acc[2] += m * (v.vz[i] * v.vz[i]);
  }
};

// m v^2, energy, virial trace: ThermoSums's three.
struct ThermoTerms {
  MassVelocitySq mv2;
  const double* pe;
  const double* virial;
  TESSERA_HD void operator()(long i, double* acc) const {
    mv2(i, acc);
    acc[1] += pe[i];
    acc[2] += virial[i];
  }
};

// The pressure tensor's sums, xx yy zz xy xz yz each: m v_a v_b, then the
// per-atom virial tensor.
struct TensorTerms {
  MassVelocitySq v;
  const double* w[6];
  TESSERA_HD void operator()(long i, double* acc) const {
    const double m = v.mass_of_type[v.type[i]];
    const double vel[3] = {v.vx[i], v.vy[i], v.vz[i]};
    constexpr int a[6] = {0, 1, 2, 0, 0, 1}, b[6] = {0, 1, 2, 1, 2, 2};
    for (int c = 0; c < 6; ++c) acc[c] += m * vel[a[c]] * vel[b[c]];
    for (int c = 0; c < 6; ++c) acc[6 + c] += w[c][i];
  }
};

}  // namespace tessera::ordered_sum
