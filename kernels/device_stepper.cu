// The device step loop (kernels/device/device_stepper.hpp) for the CUDA
// system, so each CUDA build compiles the integrator's device path, the
// guard's reduction and the loop for the GPU; tests/device runs the same
// header on Thrust's OpenMP system.
#include "device/device_stepper.hpp"
#include "potentials/lj_cut.hpp"
#include "potentials/morse.hpp"

template class tessera::device::DeviceStepper<tessera::LJCut>;
template class tessera::device::DeviceStepper<tessera::Morse>;
