#!/usr/bin/env bash
# Regenerates the figures the test suite or a run can regenerate (issue 26,
# item 3), so that none is copied by hand and left to go stale:
#  - the README's validation table (Tessera against LAMMPS: forces, energies,
#    g(r), MSD), measured by the tests that check them;
#  - the README's quick-start output (the LJ melt deck's thermo table and
#    `Performance:` line), from one run of inputs/lj-melt.yaml.
# Writes docs/figures.md (commit, machine, date and the exact command of each
# figure) and replaces the README's <!-- figures:validation:begin/end --> and
# <!-- figures:quickstart:begin/end --> blocks in place, then checks the
# result as ctest's e2e.readme_figures does. Commit the two files afterwards.
#
# Uses the build folder $TESSERA_BUILD_DIR (default build/), building only the
# two targets it needs there; a folder not yet configured is configured by
# scripts/build.sh. THREADS, when set, adds --threads THREADS to the run;
# unset, the run is the quick start's own command (all cores).
# About a minute on 2 cores with the targets already built.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath -m "${TESSERA_BUILD_DIR:-$root/build}")
cd "$root"

if [ -f "$build/CMakeCache.txt" ]; then
  echo "refresh-figures.sh: building tessera and tessera_unit_tests in $build ..."
  cmake --build "$build" --target tessera tessera_unit_tests
else
  TESSERA_BUILD_DIR=$build TARGETS="tessera tessera_unit_tests" bash scripts/build.sh
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A fresh folder, so that no figure of an earlier build is picked up.
export TESSERA_FIGURES_DIR=$work/figures

# The tests run as ctest runs them (threads sleep while waiting: see
# tests/CMakeLists.txt); their figures do not depend on it.
echo "refresh-figures.sh: LAMMPS validation tests ..."
OMP_WAIT_POLICY=PASSIVE "$build/tests/tessera_unit_tests" "[lammps]" > "$work/unit.log" 2>&1 || {
  cat "$work/unit.log"; echo "refresh-figures.sh: the validation tests fail; no figures written" >&2; exit 1; }
echo "refresh-figures.sh: in-engine analysis against LAMMPS (tests/e2e/analysis.sh) ..."
OMP_WAIT_POLICY=PASSIVE bash tests/e2e/analysis.sh "$build/src/app/tessera" "$root" > "$work/analysis.log" 2>&1 || {
  cat "$work/analysis.log"; echo "refresh-figures.sh: tests/e2e/analysis.sh fails; no figures written" >&2; exit 1; }

# The quick start's run, as a user types it (scripts/run-lj-melt.sh's
# command, no OpenMP settings from this script), in a scratch folder (the
# deck writes lj-melt.thermo.csv beside where it runs).
thread_args=()
# OpenMP settings inherited from the caller change the timing: the command
# shown names them.
omp_env=$(env | grep '^OMP_' | sort | paste -sd' ' - || true)
[ -n "${THREADS:-}" ] && thread_args=(--threads "$THREADS")
echo "refresh-figures.sh: inputs/lj-melt.yaml ${thread_args[*]} ..."
# The load when the run starts goes beside its timing: on a shared machine
# it explains a slow figure.
load=$(cut -d' ' -f1 /proc/loadavg)
(cd "$work" && "$build/src/app/tessera" run "$root/inputs/lj-melt.yaml" "${thread_args[@]}") > "$work/run.log" 2>&1 || {
  cat "$work/run.log"; echo "refresh-figures.sh: the LJ melt run failed" >&2; exit 1; }

commit=$(git rev-parse --short HEAD)
# Uncommitted changes to what is built make the commit alone an incomplete
# name for the binary measured: say which files.
dirty=$(git diff --name-only HEAD -- src kernels tests cmake CMakeLists.txt | sed 's|/.*|/|' | sort -u | paste -sd' ' -)
[ -n "$dirty" ] && commit="$commit + uncommitted changes in ${dirty// /, }"
model=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
os=$(sed -n 's/^PRETTY_NAME="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' /etc/os-release)
machine="${model:-unknown CPU}, $(nproc) cores, ${os:-unknown OS}"
# The build folder as the command would be typed from the checkout's root.
shown_build=$(realpath -m --relative-to="$root" "$build")

/usr/bin/python3 scripts/figures.py render README.md "$TESSERA_FIGURES_DIR" "$work/run.log" docs/figures.md \
  --commit "$commit" --machine "$machine" --date "$(date -u +%Y-%m-%d)" --build "$shown_build" --load "$load" \
  --run-command "${omp_env:+$omp_env }$shown_build/src/app/tessera run inputs/lj-melt.yaml${thread_args[*]:+ ${thread_args[*]}}"
/usr/bin/python3 scripts/figures.py check README.md "$TESSERA_FIGURES_DIR"
echo "refresh-figures.sh: wrote docs/figures.md and the README's figure blocks (commit $commit)"
