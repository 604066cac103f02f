#!/usr/bin/env bash
# Quick start, part 1: install dependencies, build the `tessera` binary alone
# (CUDA included when the toolkit is there, as build.sh decides) and run the
# LJ melt deck. The tests are left to scripts/test.sh, so the first thermo
# line does not wait for them to compile.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TESSERA_BUILD_DIR:-$root/build}
echo "run-lj-melt: installing dependencies (scripts/install-deps.sh) ..."
bash "$root/scripts/install-deps.sh"
echo "run-lj-melt: configuring and building tessera (scripts/build.sh) ..."
TARGETS=tessera bash "$root/scripts/build.sh"
echo "run-lj-melt: running $build/src/app/tessera run inputs/lj-melt.yaml ..."
"$build/src/app/tessera" run "$root/inputs/lj-melt.yaml"
