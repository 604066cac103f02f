#!/usr/bin/env bash
# The whole test suite (minus the `long` label) under AddressSanitizer +
# UndefinedBehaviorSanitizer + LeakSanitizer, CPU backend (issue 8):
#   bash tests/sanitize/run.sh BUILD_DIR [CTEST ARGS...]
# (the device_omp unit tests and slurm.requeue are left out: see below).
# Configures BUILD_DIR with -DTESSERA_CUDA=OFF -DTESSERA_SANITIZE=ON (gcc,
# through scripts/build.sh), builds, and runs ctest there. Extra arguments go
# to ctest (e.g. -R e2e.mpi to run one test).
#
# Any sanitizer report fails the test that caused it: the process exits with
# code 86 at once (ASan halts on the first error, UBSan too as the build has
# -fno-sanitize-recover, LSan checks at exit), a code the engine never uses,
# and every test checks the engine's exit code.
# ASan and LSan reports are written to BUILD_DIR/sanitizer-logs/report.<exe>.<pid>
# instead of stderr (the e2e scripts compare stderr with expected one-line
# messages and keep engine output in scratch folders they delete); this
# script prints them all at the end and fails if there is one, even when the
# test that caused it passed. UBSan reports go to the engine's stderr: gcc
# 12's libubsan ignores log_path in -fno-sanitize-recover builds.
# The options reach every engine process: ctest, the e2e scripts, mpirun
# (local launches pass the environment to the ranks) and sbatch (its default
# --export=ALL) all hand on the environment exported here.
# Exit code: ctest's, or 1 when ctest passed but a report was found.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:?usage: tests/sanitize/run.sh BUILD_DIR [CTEST ARGS...]}
shift
mkdir -p "$build"
build=$(cd "$build" && pwd)
started=$SECONDS

# The device_omp unit tests are left out (TESSERA_DEVICE_UNIT_TESTS=OFF):
# their Thrust-heavy sources took most of the sanitized build (1,247 s of
# CI's 70 minutes, 2026-11-26), while the same device pipeline still runs
# sanitized end to end through tessera_hostdev (e2e.device_backend), and the
# unit tests themselves run unsanitized in the main suite.
# Only the targets the tests run are built: tessera_checkpoint_bench (57 s
# of sanitized compiling) is run by no test, and builds in the main suite.
# A test added for another target fails here on its missing executable:
# add the target to this list.
TARGETS="tessera tessera_unit_tests fake_nvml tessera_hostdev" \
  TESSERA_BUILD_DIR=$build bash "$root/scripts/build.sh" -DTESSERA_CUDA=OFF -DTESSERA_SANITIZE=ON \
  -DTESSERA_DEVICE_UNIT_TESTS=OFF \
  > "$build/sanitize-build.log" 2>&1 || { tail -n 40 "$build/sanitize-build.log"; exit 2; }
echo "sanitize: build done after $((SECONDS - started)) s"

logs=$build/sanitizer-logs
rm -rf "$logs"
mkdir -p "$logs"
# Shared by ASan, UBSan and LSan (the "common" flags: each tool reads its
# own variable). exitcode 86: a code the engine never uses, so a report is
# never mistaken for an expected error exit (2, 3, 4, 75) and tells itself
# apart from an internal error (1).
common="exitcode=86:halt_on_error=1:abort_on_error=0:print_stacktrace=1:log_path=$logs/report:log_exe_name=1:disable_coredump=1"
# allocator_may_return_null=1: a malloc the allocator cannot satisfy returns
# NULL as it does outside ASan. HDF5 asks for ~5e15 bytes on one corrupted
# checkpoint of the bad-input catalogue and copes with NULL (exit 2); ASan's
# default would end the process instead. Sizes that do succeed are checked as
# usual.
export ASAN_OPTIONS="$common:detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1:strict_string_checks=1:fast_unwind_on_malloc=0:allocator_may_return_null=1"
export UBSAN_OPTIONS="$common"
# fast_unwind_on_malloc=0 (in ASAN_OPTIONS): OpenMPI, HDF5 and the C
# library are built without frame pointers, so the fast unwinder stops at
# their first frame; the slow one records whole allocation stacks, which the
# suppressions in lsan.supp need to match on (ompi_mpi_init, ...) instead of
# a whole library. print_suppressions=0: a suppressed leak writes nothing, so
# a log file is always a finding.
export LSAN_OPTIONS="suppressions=$here/lsan.supp:print_suppressions=0"
echo "sanitize: ASAN_OPTIONS=$ASAN_OPTIONS"
echo "sanitize: UBSAN_OPTIONS=$UBSAN_OPTIONS"
echo "sanitize: LSAN_OPTIONS=$LSAN_OPTIONS"

# tests/e2e/bad_inputs.sh runs every engine call under `ulimit -v 4 GiB` (a
# small bad input must not make the engine allocate gigabytes). ASan cannot
# start under an address-space limit: it reserves terabytes of (unbacked)
# shadow address space at start-up. This stand-in for the bash builtin, which
# bash scripts started from here inherit as an exported function, turns
# `ulimit -v KB` into ASan's own limit: past KB of resident memory malloc
# returns NULL (soft_rss_limit_mb with allocator_may_return_null=1), and so
# does a single allocation of KB or more (max_allocation_size_mb), which the
# engine reports like a failed allocation under the real limit. Every other
# use of ulimit goes to the builtin.
ulimit() {
  if [[ $# -eq 2 && $1 == -v && $2 =~ ^[0-9]+$ ]]; then
    export ASAN_OPTIONS="$ASAN_OPTIONS:soft_rss_limit_mb=$(($2 / 1024)):max_allocation_size_mb=$(($2 / 1024))"
    return 0
  fi
  builtin ulimit "$@"
}
export -f ulimit

# Ranks that mpirun starts record allocation stacks with the fast unwinder
# and skip the leak check at exit, unless TESSERA_RANK_LEAK_CHECK=1 is set
# for that launch (tests/e2e/lib.sh, `leak_checked`). Why: the leak check
# needs whole stacks (fast_unwind_on_malloc=0 above, for lsan.supp), and
# unwinding every malloc of Open MPI's start-up that way made a launch of
# 4 ranks take 10.8 s instead of 4.3 s, and e2e.mpi 149 s instead of 31 s
# (this machine, 2026-11-28); MPI launches were most of the stage. ASan and
# UBSan still check every rank; the leak check still runs on every
# single-process run and on the multi-rank launches the e2e scripts mark
# (N-to-M restart, balanced restart, device ranks, bonds across ranks).
# A stand-in first in PATH rather than a shell function, so that launches
# through `timeout`, Python or a batch script take it too.
if real_mpirun=$(command -v mpirun); then
  mkdir -p "$build/sanitize-bin"
  cat > "$build/sanitize-bin/mpirun" <<EOF
#!/usr/bin/env bash
# Written by tests/sanitize/run.sh, which says why.
if [[ \${TESSERA_RANK_LEAK_CHECK:-0} != 1 ]]; then
  export ASAN_OPTIONS="\$ASAN_OPTIONS:fast_unwind_on_malloc=1:detect_leaks=0"
fi
exec "$real_mpirun" "\$@"
EOF
  chmod +x "$build/sanitize-bin/mpirun"
  export PATH="$build/sanitize-bin:$PATH"
  # The stand-in checked before the suite: a 2-rank program that leaks must
  # be reported (exit 86) when its launch asks for the leak check, and
  # must not be otherwise; a stand-in that silently dropped the check
  # everywhere would fail here.
  self=$build/sanitize-selfcheck
  rm -rf "$self" && mkdir -p "$self"
  printf '%s\n' '#include <mpi.h>' '#include <stdlib.h>' \
    'int main(int c, char** v) { MPI_Init(&c, &v); void* volatile p = malloc(4096); p = 0; MPI_Finalize(); return 0; }' \
    > "$self/leak.c"
  if ! mpicc -fsanitize=address -g -O1 "$self/leak.c" -o "$self/leak" > "$self/build.log" 2>&1; then
    cat "$self/build.log"; echo "sanitize: could not build the mpirun stand-in's self-check"; exit 2
  fi
  (export ASAN_OPTIONS="$ASAN_OPTIONS:log_path=$self/checked"
   TESSERA_RANK_LEAK_CHECK=1 mpirun --allow-run-as-root --oversubscribe -np 2 "$self/leak" > "$self/checked.out" 2>&1)
  checked=$?
  (export ASAN_OPTIONS="$ASAN_OPTIONS:log_path=$self/plain"
   mpirun --allow-run-as-root --oversubscribe -np 2 "$self/leak" > "$self/plain.out" 2>&1)
  plain=$?
  if ((checked != 86)) || ! grep -qs "LeakSanitizer" "$self"/checked.* || ((plain != 0)); then
    echo "sanitize: the mpirun stand-in does not do what it says: leak_checked launch exit $checked" \
      "(want 86 and a LeakSanitizer report), plain launch exit $plain (want 0)"
    exit 2
  fi
  echo "sanitize: mpirun stand-in checked: a leak_checked launch reports a leak, a plain one does not"
fi

# The e2e scripts run the same checks on smaller systems, and repeat a path
# less where they repeat it many times (tests/e2e/lib.sh, `sized`): the
# sanitizers need each path run, not run long (docs/reliability.md).
export TESSERA_TEST_SANITIZED=1

cd "$build"
# The sanitizers make the engine some 3-10 times slower; tests without their
# own TIMEOUT get 1 hour instead of ctest's 1,500 s default.
# slurm.requeue is left out: it runs alone (RUN_SERIAL) and took 382 s
# sanitized, a sixth of the stage, for engine code (signals, checkpoints,
# restarts) that e2e.stop, e2e.kill and e2e.restart run sanitized already;
# it runs unsanitized in the main suite. So are two unit tests of
# statistical physics (thousands of steps for a mean temperature: 80 s
# sanitized, CI 2026-11-27): the same integrators run sanitized in
# e2e.restart; the two run unsanitized in the main suite. (The 1000-step
# LAMMPS trajectory test stays: it is e2e.readme_figures's fixture.)
# Two more run only unsanitized (CI 2026-11-27, 60 s sanitized together):
# the 100 NVE steps of the 32,000-bead in.chain melt (its forces at step 0
# stay sanitized, and the molecular 100-step test runs the same bonded and
# special-pair code on a smaller melt), and the reading of every EAM file
# that lammps-data installs (the readers stay sanitized through the three
# files of the EAM force tests and the bad-file cases).
skip='^slurm\.requeue$'
skip+='|^Langevin holds the set temperature$'
skip+='|^Nose-Hoover chain holds the set temperature and conserves its energy$'
skip+='|^in\.chain: 100 NVE steps follow LAMMPS to 1e-8$'
skip+='|^EAM files: every funcfl, setfl and Finnis-Sinclair file of lammps-data reads$'
ctest --output-on-failure --parallel "$(nproc)" --label-exclude long --exclude-regex "$skip" \
  --timeout 3600 "$@"
rc=$?
echo "sanitize: ctest exit code $rc after $((SECONDS - started)) s in all"

reports=0
for f in "$logs"/report*; do
  [[ -e $f ]] || continue
  if grep -Eq "ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|SUMMARY: " "$f"; then
    reports=$((reports + 1))
    echo "=== sanitizer report $f"
  else
    echo "=== sanitizer message (not an error) $f"
  fi
  head -n 80 "$f"
done
echo "sanitize: $reports sanitizer report(s) in $logs"
if ((rc == 0 && reports > 0)); then rc=1; fi
exit "$rc"
