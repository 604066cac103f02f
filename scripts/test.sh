#!/usr/bin/env bash
# Quick start, part 2: install dependencies, build every target, and run the
# whole test suite (unit, LAMMPS validation and end-to-end tests; GPU and
# long tests are labelled and left out: see docs/testing.md).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TESSERA_BUILD_DIR:-$root/build}
echo "test.sh: installing dependencies (scripts/install-deps.sh) ..."
bash "$root/scripts/install-deps.sh"
echo "test.sh: configuring and building every target (scripts/build.sh) ..."
# Everything, whatever the caller's environment asks for: the suite needs
# the test executables too.
TARGETS= bash "$root/scripts/build.sh"
echo "test.sh: dependencies and build took $SECONDS s"
echo "test.sh: running the test suite (ctest in $build) ..."
cd "$build"
ctest --output-on-failure --parallel "$(nproc)" --label-exclude long
