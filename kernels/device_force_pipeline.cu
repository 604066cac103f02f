// The device force pipeline (kernels/device) for the CUDA system. The same
// headers are built for Thrust's OpenMP system and tested against the CPU
// backend (tests/device); instantiating them here makes nvcc compile every
// algorithm and functor for the GPU in each CUDA build.
#include "device/force_pipeline.hpp"
#include "potentials/lj_cut.hpp"
#include "potentials/morse.hpp"

template class tessera::device::DeviceForcePipeline<tessera::LJCut>;
template class tessera::device::DeviceForcePipeline<tessera::Morse>;
