#!/usr/bin/env bash
# `cmake --install` into a fresh prefix, then use only what it installed:
# the binary, the decks, the plot tool, and find_package(tessera) from a
# separate CMake project.
# Usage: install.sh BUILD_DIR VERSION   (VERSION: the project's, e.g. 0.1.0)
set -uo pipefail
# shellcheck source=/dev/null
source "$(dirname "${BASH_SOURCE[0]}")/../e2e/lib.sh"
build=$(realpath "$1")
version=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
cd "$work" || exit 1

cmake --install "$build" --prefix "$prefix" > install.txt 2>&1
check "cmake --install exits 0" test $? -eq 0
for f in bin/tessera bin/tessera-plot share/tessera/inputs/lj-melt.yaml share/tessera/slurm/temperature-sweep.sbatch \
         share/doc/tessera/README.md share/doc/tessera/deck.md share/doc/tessera/install.md \
         lib/cmake/tessera/tesseraConfig.cmake lib/cmake/tessera/tesseraConfigVersion.cmake; do
  check "installed $f" test -s "$prefix/$f"
done
check "bin/tessera and bin/tessera-plot are executable" test -x "$prefix/bin/tessera" -a -x "$prefix/bin/tessera-plot"

# Nothing of the build tree or the sources may be needed from here on.
export PATH="$prefix/bin:$PATH"
tessera --version > version.txt 2>&1
check "installed tessera --version exits 0" test $? -eq 0
check "--version reports $version" grep -q "^tessera $version " version.txt
tessera validate "$prefix/share/tessera/inputs/lj-melt.yaml" > validate.txt 2>&1
check "installed tessera validates the installed lj-melt deck" grep -q "OK (32000 atoms" validate.txt
n=0
for deck in "$prefix"/share/tessera/inputs/*.yaml; do
  tessera validate "$deck" > /dev/null 2>&1 || { echo "  $deck does not validate"; n=$((n + 1)); }
done
check "every installed deck validates (data files installed beside them)" test $n -eq 0
tessera-plot --help > plot-help.txt 2>&1
check "installed tessera-plot --help exits 0" test $? -eq 0

# A consumer project: finds the package, runs the imported executable at
# build time, and refuses a version the package does not claim to be.
mkdir consumer
cat > consumer/CMakeLists.txt <<'EOF'
cmake_minimum_required(VERSION 3.20)
project(consumer LANGUAGES NONE)
find_package(tessera ${WANT} REQUIRED)
if(NOT TARGET tessera::tessera OR NOT TARGET tessera::plot)
  message(FATAL_ERROR "tessera::tessera or tessera::plot missing")
endif()
message(STATUS "tessera ${tessera_VERSION} decks: ${tessera_INPUTS_DIR}")
file(GENERATE OUTPUT where.txt CONTENT "$<TARGET_FILE:tessera::tessera>\n")
add_custom_command(OUTPUT validated.stamp
  COMMAND tessera::tessera validate ${tessera_INPUTS_DIR}/lj-melt.yaml
  COMMAND ${CMAKE_COMMAND} -E touch validated.stamp
  VERBATIM)
add_custom_target(check_tessera ALL DEPENDS validated.stamp)
EOF
cmake -S consumer -B consumer-build -DCMAKE_PREFIX_PATH="$prefix" -DWANT="${version%.*}" > consumer.txt 2>&1
check "find_package(tessera ${version%.*} REQUIRED) configures" test $? -eq 0
check "the package reports its version and decks" grep -q "tessera $version decks: $prefix/share/tessera/inputs" consumer.txt
check "tessera::tessera is the installed binary" test "$(cat consumer-build/where.txt)" = "$prefix/bin/tessera"
cmake --build consumer-build >> consumer.txt 2>&1
check "tessera::tessera runs in the consumer's build" test -e consumer-build/validated.stamp
cmake -S consumer -B consumer-too-new -DCMAKE_PREFIX_PATH="$prefix" -DWANT=99.0 > too-new.txt 2>&1
check "find_package(tessera 99.0) is refused" test $? -ne 0

((fail)) && cat install.txt version.txt validate.txt consumer.txt too-new.txt
exit $fail
