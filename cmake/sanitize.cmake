# Issue 8: the test suite under AddressSanitizer + UndefinedBehaviorSanitizer
# (tests/sanitize/run.sh, docs/reliability.md#sanitizers).
#
# -DTESSERA_SANITIZE=ON instruments every C and C++ target of the project
# (library, engine, unit tests, benchmarks) and links them with the runtimes:
#  - address,undefined,float-cast-overflow: out-of-bounds accesses,
#    use-after-free/-return/-scope, double free, leaks at exit (LeakSanitizer,
#    part of ASan); signed integer overflow, bad shifts, misaligned and null
#    pointers, out-of-range bool/enum loads, and (not part of gcc's
#    "undefined", but of clang's) a double that does not fit the integer it is
#    converted to, e.g. a NaN coordinate turned into a cell index;
#  - -fno-sanitize-recover=undefined: the first undefined behaviour ends the
#    process with a non-zero exit code, so the test that hit it fails
#    (without it UBSan only prints and carries on);
#  - -O2 -g1 -fno-omit-frame-pointer: reports with file:line (inlined frames
#    included: -g1's line tables and function entries are all a report
#    reads; full -g made cpu_pair_kernel_avx512.cpp take 85 s to compile
#    instead of 53 s, 2026-11-28) and whole stacks; -O2 overrides the -O3 of
#    Release (the later flag wins); NDEBUG stays, as in the tested build. The result runs 7 to
#    12 times slower than Release. Code that runs once per run or output
#    frame builds at -O1 instead (TESSERA_SANITIZE_COLD_OPTIONS,
#    src/CMakeLists.txt);
#  - -no-pie at link time: the instrumented engine is a 120 MB position-
#    independent executable with 1.46 million relative relocations, and the
#    loader applying them was half of every sanitized process's start
#    (0.50 s of a `tessera validate`, 0.24 s without; the bad-input
#    catalogue alone starts the engine 266 times, and every unit test is a
#    process of its own). A fixed-address executable has none to apply;
#    ASan supports it on x86-64.
# Host compiler only: nvcc cannot build with these flags, hence CUDA OFF.
# Works with gcc (the compiler of the normal build; used by run.sh and CI)
# and clang.
option(TESSERA_SANITIZE "Build everything with AddressSanitizer + UBSan (CPU only; see tests/sanitize/run.sh)" OFF)
if(TESSERA_SANITIZE)
  if(TESSERA_CUDA)
    message(FATAL_ERROR "TESSERA_SANITIZE needs -DTESSERA_CUDA=OFF (nvcc cannot build with the sanitizers)")
  endif()
  if(TESSERA_FUZZ)
    message(FATAL_ERROR "TESSERA_SANITIZE and TESSERA_FUZZ are separate builds (the fuzz build already has ASan + UBSan)")
  endif()
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "^(GNU|Clang)$")
    message(FATAL_ERROR "TESSERA_SANITIZE needs gcc or clang, not ${CMAKE_CXX_COMPILER_ID}")
  endif()
  set(_tessera_sanitize_flags -fsanitize=address,undefined,float-cast-overflow
    -fno-sanitize-recover=undefined,float-cast-overflow
    -fno-omit-frame-pointer -g1 -O2)
  add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:${_tessera_sanitize_flags}>")
  add_link_options(-fsanitize=address,undefined,float-cast-overflow -no-pie)
  message(STATUS "TESSERA_SANITIZE: ${_tessera_sanitize_flags}")
endif()
