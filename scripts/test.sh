#!/usr/bin/env bash
# Quick start, part 2: install dependencies, build, and run the whole test
# suite (unit, LAMMPS validation and end-to-end tests; GPU and long tests are
# labelled and left out: see docs/testing.md).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TESSERA_BUILD_DIR:-$root/build}
bash "$root/scripts/install-deps.sh"
bash "$root/scripts/build.sh"
cd "$build"
ctest --output-on-failure --parallel "$(nproc)" --label-exclude long
