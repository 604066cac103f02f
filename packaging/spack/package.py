# Spack recipe for Tessera (issue 9). Not part of Spack's builtin repository:
# put it in a repo of your own as packages/tessera/package.py (docs/install.md).
# It has not been built by Spack in this project's CI; the CMake options and
# dependencies it passes are the ones the top-level CMakeLists.txt reads.

from spack.package import *


class Tessera(CMakePackage, CudaPackage):
    """Molecular dynamics engine for short-range pair potentials (LJ, Morse),
    C++17 with an OpenMP CPU backend, MPI domain decomposition, crash-safe HDF5
    checkpoints, H5MD trajectories and a CUDA backend in progress."""

    homepage = "https://example.org/tessera"
    # Placeholder: point `git` at the project's repository before use.
    # `spack dev-build` / `spack develop` from a checkout do not fetch, so
    # they work without it.
    git = "https://example.org/tessera.git"

    version("main", branch="main")

    variant("plot", default=True,
            description="Run-time dependencies of tessera-plot (Python, NumPy, Matplotlib, h5py)")

    depends_on("cmake@3.25:", type="build")
    depends_on("mpi")
    # The parallel HDF5 C library; checkpoints use the 1.10 file format.
    depends_on("hdf5@1.10:+mpi")
    depends_on("yaml-cpp@0.7:")
    depends_on("fmt@9:")
    depends_on("cli11@2:")
    depends_on("xxhash@0.8:")
    # The unit tests use the Catch2 v2 single header (catch2/catch.hpp), and
    # the top-level CMakeLists.txt looks Catch2 up even when tests are off,
    # so it is needed at build time too.
    depends_on("catch2@2.13:2", type=("build", "test"))

    with when("+plot"):
        depends_on("python@3.8:", type="run")
        depends_on("py-numpy", type="run")
        depends_on("py-matplotlib", type="run")
        depends_on("py-h5py", type="run")

    # C++17 device code; the CMake default architecture is sm_90.
    depends_on("cuda@11.8:", when="+cuda")
    conflicts("cuda_arch=none", when="+cuda",
              msg="give the GPU architecture, e.g. +cuda cuda_arch=90")

    def cmake_args(self):
        spec = self.spec
        args = [
            self.define_from_variant("TESSERA_CUDA", "cuda"),
            self.define("BUILD_TESTING", self.run_tests),
        ]
        if spec.satisfies("+cuda"):
            args.append(self.define("CMAKE_CUDA_COMPILER", spec["cuda"].prefix.bin.nvcc))
            args.append(self.define("CMAKE_CUDA_ARCHITECTURES", ";".join(spec.variants["cuda_arch"].value)))
        return args

    @run_after("install")
    def use_spack_python(self):
        # The script's shebang names Debian's /usr/bin/python3; under Spack it
        # must be the Python that has the numpy/matplotlib/h5py above.
        if self.spec.satisfies("+plot"):
            filter_file(r"^#!/usr/bin/python3$", "#!" + self.spec["python"].command.path,
                        join_path(self.prefix.bin, "tessera-plot"))

    @run_after("install")
    @on_package_attributes(run_tests=True)
    def check_install(self):
        tessera = Executable(join_path(self.prefix.bin, "tessera"))
        tessera("--version")
        tessera("validate", join_path(self.prefix.share, "tessera", "inputs", "lj-melt.yaml"))
