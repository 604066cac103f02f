#include "backend/cpu_positions.hpp"

#include "atoms/atom_store.hpp"
#include "forces/force.hpp"

namespace tessera {

bool pack_positions(const AtomStore& a, std::vector<double>& pos) {
  const long nall = static_cast<long>(a.nall());
  pos.resize(4 * nall);
  double* p = pos.data();
  int other_types = 0;
#pragma omp parallel for schedule(static) reduction(+ : other_types)
  for (long i = 0; i < nall; ++i) {
    p[4 * i] = a.x[i];
    p[4 * i + 1] = a.y[i];
    p[4 * i + 2] = a.z[i];
    p[4 * i + 3] = a.type[i];
    other_types += a.type[i] != 1;
  }
  return other_types == 0;
}

KernelOutputs kernel_outputs(AtomStore& a, const PassOptions& opt) {
  KernelOutputs o;
  o.fx = a.fx.data();
  o.fy = a.fy.data();
  o.fz = a.fz.data();
  o.pe = a.pe.data();
  o.virial = a.virial.data();
  o.accumulate = opt.accumulate;
  o.energy = opt.energy;
  for (int c = 0; c < 6; ++c) o.tensor[c] = opt.tensor[c];
  return o;
}

}  // namespace tessera
