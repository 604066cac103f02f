#!/usr/bin/env bash
# Configures and builds Tessera in build/ (or $TESSERA_BUILD_DIR).
# CUDA is built when the toolkit is at /usr/local/cuda; pass -DTESSERA_CUDA=OFF
# (or any other CMake option) as arguments to change that.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TESSERA_BUILD_DIR:-$root/build}
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
cmake -S "$root" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build "$build" --parallel "$(nproc)"
