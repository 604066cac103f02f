#include "backend/cpu_positions.hpp"

#include "atoms/atom_store.hpp"
#include "backend/cpu_shares.hpp"
#include "forces/force.hpp"

namespace tessera {

bool pack_positions(const AtomStore& a, std::vector<double>& pos) {
  const long nall = static_cast<long>(a.nall()), nlocal = static_cast<long>(a.nlocal);
  pos.resize(4 * nall);
  double* p = pos.data();
  int other_types = 0;
  const auto pack = [&](long begin, long end) {
    int others = 0;
    for (long i = begin; i < end; ++i) {
      p[4 * i] = a.x[i];
      p[4 * i + 1] = a.y[i];
      p[4 * i + 2] = a.z[i];
      p[4 * i + 3] = a.type[i];
      others += a.type[i] != 1;
    }
    return others;
  };
#pragma omp parallel reduction(+ : other_types)
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const Share mine = share_of(pos_chunks(nlocal), t, nt);
    other_types += pack(mine.begin * kPosChunk, std::min(nlocal, mine.end * kPosChunk));
    const Share ghosts = share_of(nall - nlocal, t, nt);
    other_types += pack(nlocal + ghosts.begin, nlocal + ghosts.end);
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
