// Device instantiations of every physics functor. The CUDA backend (see
// docs/architecture.md) launches these; building them in every CUDA build
// makes a functor that is not device-clean a compile error, not a surprise.
#include "for_each_atom.cuh"
#include "integrate/step_functors.hpp"
#include "potentials/lj_cut.hpp"
#include "potentials/morse.hpp"
#include "potentials/pair_force.hpp"

namespace tessera {

template cudaError_t cuda_for<PairForce<LJCut>>(int, const PairForce<LJCut>&, cudaStream_t, int);
template cudaError_t cuda_for<PairForce<Morse>>(int, const PairForce<Morse>&, cudaStream_t, int);
template cudaError_t cuda_for<HalfKick>(int, const HalfKick&, cudaStream_t, int);
template cudaError_t cuda_for<Drift>(int, const Drift&, cudaStream_t, int);
template cudaError_t cuda_for<LangevinForce>(int, const LangevinForce&, cudaStream_t, int);
template cudaError_t cuda_for<ScaleVelocity>(int, const ScaleVelocity&, cudaStream_t, int);

}  // namespace tessera
