#pragma once
// Where a force's kernel leaves each local atom's sums: forces, energy,
// virial and, on the steps that ask, the virial tensor. The list's first
// force stores them, the later ones add (PassOptions::accumulate). One
// struct for every kernel, CPU and device, pair, many-body and bonded, so
// the accumulate rule is written once.
#include "core/host_device.hpp"

namespace tessera {

struct KernelOutputs {
  double* fx = nullptr;
  double* fy = nullptr;
  double* fz = nullptr;
  double* pe = nullptr;
  double* virial = nullptr;
  bool accumulate = false;  // add to fx ... virial instead of storing (a later force of the list)
  // The per-atom virial tensor (xx yy zz xy xz yz), or all null when the
  // step does not ask for it (its sums cost a third more arithmetic).
  double* tensor[6] = {nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
  // false on a step that reads no energy or virial (no thermo, output or
  // barostat due; Simulation checks that none is read): a kernel may then
  // skip both sums and store zero for them, forces unchanged to the bit.
  // The tensor, when asked, is computed either way.
  bool energy = true;

  TESSERA_HD bool with_tensor() const { return tensor[0] != nullptr; }
  // Atom i's force, energy and virial.
  TESSERA_HD void write(int i, double f0, double f1, double f2, double e, double w) const {
    put(fx, i, f0);
    put(fy, i, f1);
    put(fz, i, f2);
    put(pe, i, e);
    put(virial, i, w);
  }
  // Atom i's virial tensor (six values; the tensor arrays must be there).
  TESSERA_HD void write_tensor(int i, const double* t) const {
    for (int c = 0; c < 6; ++c) put(tensor[c], i, t[c]);
  }

 private:
  TESSERA_HD void put(double* a, int i, double v) const { a[i] = accumulate ? a[i] + v : v; }
};

}  // namespace tessera
