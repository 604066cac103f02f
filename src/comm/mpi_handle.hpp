#pragma once
// The MPI handle behind a parallel Communicator, for a library that drives
// MPI itself (parallel HDF5's MPI-IO driver). Only such glue includes this,
// so the rest of Tessera stays free of mpi.h.
// The C API only: the deprecated C++ bindings need their own library.
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

#include "comm/communicator.hpp"

namespace tessera {

// Throws std::logic_error for a serial communicator (MPI may not even be
// initialised then).
MPI_Comm mpi_handle(const Communicator& c);

}  // namespace tessera
