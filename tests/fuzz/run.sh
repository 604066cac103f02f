#!/usr/bin/env bash
# Builds the libFuzzer targets with clang in BUILD_DIR and runs each one for a
# budget, one after the other (they are CPU-bound; the machines have 2 cores).
# Prints per target: executions, crashes/hangs/OOMs (artifacts), peak RSS.
#
# Usage: tests/fuzz/run.sh BUILD_DIR [SECONDS_PER_TARGET=30] [TARGETS...]
#   FUZZ_RUNS=N      stop each target after N executions instead (or first)
#   FUZZ_SEED=S      libFuzzer's random seed (default 0: a new one each run);
#                    with FUZZ_RUNS and a fresh work folder a fixed seed makes
#                    the run repeatable, which is what CI uses
#   FUZZ_WORK=DIR    keep the growing corpora and artifacts there (default
#                    BUILD_DIR/fuzz-work); the seed corpus in the repo is
#                    only read, never written.
# Exit code: 0 when no target found anything, 1 otherwise, 2 on a build error.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:?usage: run.sh BUILD_DIR [SECONDS] [TARGETS...]}
secs=${2:-30}
shift $(( $# >= 2 ? 2 : $# ))
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(deck lammps_data checkpoint checkpoint_sealed)
work=${FUZZ_WORK:-$build/fuzz-work}
runs=${FUZZ_RUNS:--1}

# The fuzz build instruments the whole library, so it needs its own folder.
if [ ! -f "$build/CMakeCache.txt" ]; then
  CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DTESSERA_FUZZ=ON -DTESSERA_CUDA=OFF -DBUILD_TESTING=OFF > "$build.configure.log" 2>&1 \
    || { cat "$build.configure.log"; exit 2; }
fi
cmake --build "$build" --target fuzz_all > "$build/fuzz-build.log" 2>&1 || { tail -n 30 "$build/fuzz-build.log"; exit 2; }

# HDF5 mallocs whatever size a corrupted header names and copes when malloc
# returns NULL, as it does in a normal build; ASan would abort instead
# (allocation-size-too-big). Let malloc fail as it does outside ASan; sizes
# that succeed but exceed -rss_limit_mb are still reported.
export ASAN_OPTIONS=${ASAN_OPTIONS:-allocator_may_return_null=1}
# HDF5 1.10 leaks small blocks on some of its own error paths (corrupted
# metadata); those are not ours to fix, and would hide our leaks.
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$here/lsan.supp}
found=0
for t in "${targets[@]}"; do
  seeds="$here/corpus/${t%_sealed}"
  mkdir -p "$work/$t/corpus" "$work/$t/artifacts"
  log="$work/$t/fuzz.log"
  # -rss_limit_mb also caps single allocations (malloc_limit defaults to it):
  # a reader that asks for gigabytes on a small input is a finding.
  # -timeout: one input taking longer than 10 s counts as a hang.
  "$build/tests/fuzz/fuzz_$t" -max_total_time="$secs" -runs="$runs" -seed="${FUZZ_SEED:-0}" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$work/$t/artifacts/" "$work/$t/corpus" "$seeds" > "$log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -n 1)
  arts=$(find "$work/$t/artifacts" -type f | wc -l)
  rate=$(sed -n 's/.*exec\/s: \([0-9]*\).*/\1/p' "$log" | tail -n 1)
  printf '%-18s executions %-10s last exec/s %-7s peak RSS %5s MB  findings %s  (exit %s)\n' \
    "$t" "${execs:-?}" "${rate:-?}" "${rss:-?}" "$arts" "$rc"
  if [ "$rc" -ne 0 ] || [ "$arts" -gt 0 ]; then
    found=1
    grep -m 3 -E "ERROR|SUMMARY" "$log" | sed 's/^/    /'
    find "$work/$t/artifacts" -type f | sed 's/^/    artifact: /'
  fi
done
exit $found
