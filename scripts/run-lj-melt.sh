#!/usr/bin/env bash
# Quick start, part 1: install dependencies, build, and run the LJ melt deck.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/install-deps.sh"
bash "$root/scripts/build.sh"
"${TESSERA_BUILD_DIR:-$root/build}/src/app/tessera" run "$root/inputs/lj-melt.yaml"
