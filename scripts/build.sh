#!/usr/bin/env bash
# Configures and builds Tessera in build/ (or $TESSERA_BUILD_DIR).
# CUDA is built when the toolkit is at /usr/local/cuda; pass -DTESSERA_CUDA=OFF
# (or any other CMake option) as arguments to change that.
# TARGETS="tessera" (space-separated) builds only those targets: the quick
# start needs the binary alone, not the test executables, whose CUDA sources
# take most of a fresh build. Unset or empty: everything.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TESSERA_BUILD_DIR:-$root/build}
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
echo "build.sh: configuring in $build ..."
cmake -S "$root" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release "$@"
read -r -a targets <<< "${TARGETS:-}"
if [ ${#targets[@]} -eq 0 ]; then
  echo "build.sh: building every target ..."
  cmake --build "$build" --parallel "$(nproc)"
else
  echo "build.sh: building ${targets[*]} ..."
  cmake --build "$build" --parallel "$(nproc)" --target "${targets[@]}"
fi
echo "build.sh: built in $build"
