#!/usr/bin/env bash
# Issue 25, "a check that cannot be wasted": the GPU check's two halves
# (scripts/gpu/, docs/gpu.md) on a machine without a GPU, so that the one
# device call a session may get cannot be lost to the scripts themselves.
#  - run-on-device.sh finds the compiled-in reference path in any build
#    folder: this one, and a Makefiles one with no build.ninja (where it
#    once exited 1 with no message);
#  - it packs a bundle from this build folder (SKIP_BUILD=1, PEERS=0); a
#    failure names what failed and removes the half-made bundle; a bundle
#    over its limit is refused, naming the device tool's 64 MiB;
#  - device-run.sh, run from that bundle with no GPU and with binaries that
#    hang, ends within its BUDGET_S, leaves at most 8 files in $OUT (at most
#    2 folders deep, each under 16 MiB, names [A-Za-z0-9._-]), and a
#    results.md with a row for every step, in order;
#  - thermo-verdict.awk passes agreement within its tolerance and fails the
#    rest (a larger difference, nan, a run cut short).
# Usage: gpu_check.sh SOURCE_DIR BUILD_DIR
root=$1
build=$2
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
scripts=$root/scripts/gpu
scratch=$(mktemp -d "$PWD/gpu-check.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
cd "$scratch" || exit 1
export PEERS=0 SKIP_BUILD=1

# The steps device-run.sh must report, in the order it must run them.
steps=(gpu-tests cpu-reference verdict-double verdict-mixed verdict-2-ranks verdict-2-ranks-peer
  bench-32k-double bench-32k-mixed bench-32k-double-1-lane bench-2m-double bench-2m-mixed bench-16m-double bench-16m-mixed
  bench-2m-clusters-mixed bench-eam-32k-double bench-eam-32k-mixed bench-chain-32k-double bench-chain-32k-mixed
  profile peers memcheck racecheck)

# out_ok DIR: the device tool's limits on what comes back.
out_ok() {
  local dir=$1 f n=0 ok=0
  while IFS= read -r -d '' f; do
    n=$((n + 1))
    [[ ${f##*/} =~ ^[A-Za-z0-9._-]+$ ]] || { echo "  bad name: $f"; ok=1; }
    if [[ -L $f || ! -f $f ]]; then echo "  not a plain file: $f"; ok=1; fi
    (($(stat -c %s "$f") < 16777216)) || { echo "  16 MiB or more: $f"; ok=1; }
  done < <(find "$dir" -mindepth 1 ! -type d -print0)
  while IFS= read -r -d '' f; do
    [[ ${f##*/} =~ ^[A-Za-z0-9._-]+$ ]] || { echo "  bad folder name: $f"; ok=1; }
  done < <(find "$dir" -mindepth 1 -type d -print0)
  ((n <= 8)) || { echo "  $n files (at most 8)"; ok=1; }
  [[ -z $(find "$dir" -mindepth 4) ]] || { echo "  more than 2 folders deep:"; find "$dir" -mindepth 4; ok=1; }
  [[ -s $dir/results.md ]] || { echo "  no results.md"; ok=1; }
  return $ok
}
# rows_ok RESULTS: the step table has a row for every step, in order, and
# none is "not reached" (the call ended before it).
rows_ok() {
  local got want
  got=$(awk -F'|' 'on && !/^[|]/ {exit} on && !/^[|] ---/ {gsub(/ /, "", $2); print $2} /^[|] step [|] what [|]/ {on = 1}' "$1")
  want=$(printf '%s\n' "${steps[@]}")
  [[ $got == "$want" ]] || { echo "  rows:"; echo "$got" | sed 's/^/    /'; return 1; }
  ! grep -q '| not reached |$' "$1"
}
# outcome_is RESULTS ID PATTERN: the outcome column of a step's row matches
# the glob PATTERN.
outcome_is() {
  local got
  got=$(grep "^| $2 |" "$1" | awk -F' [|] ' '{print $5}')
  # shellcheck disable=SC2053
  [[ $got == $3 ]] || { echo "  $2: $got"; return 1; }
}

# 1. The compiled-in reference path, whatever the generator.
ref=$(bash "$scripts/run-on-device.sh" --reference-dir "$build" 2>lookup.err)
rc=$?
check "reference path of this build folder: exit 0" test $rc -eq 0
check "reference path of this build folder holds the melts ($ref)" test -f "$ref/lj_melt.data"
check "CMake wrote it into gpu-reference-dir.txt, whatever the generator" \
  test "$(cat "$build/gpu-reference-dir.txt" 2>/dev/null)" = "$ref"
mkdir -p make/tests/device/CMakeFiles/tessera_gpu_tests.dir make/src/app
touch make/Makefile
# The line the Makefiles generator writes (CMake 3.25).
echo 'CUDA_DEFINES = -DTESSERA_CUDA_ARCHITECTURES=\"90\" -DTESSERA_REFERENCE_DIR=\"/makefiles/tests/device/../reference\"' \
  >make/tests/device/CMakeFiles/tessera_gpu_tests.dir/flags.make
got=$(bash "$scripts/run-on-device.sh" --reference-dir make 2>&1)
rc=$?
check "Makefiles build folder (no build.ninja): the path from flags.make, exit 0" \
  test "$rc:$got" = "0:/makefiles/tests/device/../reference"
echo /from/cmake >make/gpu-reference-dir.txt
check "Makefiles build folder: gpu-reference-dir.txt comes first" \
  test "$(bash "$scripts/run-on-device.sh" --reference-dir make 2>&1)" = /from/cmake
rm make/gpu-reference-dir.txt make/tests/device/CMakeFiles/tessera_gpu_tests.dir/flags.make
got=$(bash "$scripts/run-on-device.sh" --reference-dir make 2>lookup.err)
rc=$?
check "a build folder that names no path: CMake's default, exit 0" \
  test "$rc:$got" = "0:$root/tests/device/../reference"
check "... and says so on stderr" grep -q "taking CMake's default" lookup.err

# 2. Bundling from a Makefiles build folder (stand-in binaries: /bin/true
# passes every `tessera validate`), over its limit and within it; and a
# failure half-way (/bin/false refuses the decks).
cp /bin/true make/src/app/tessera
cp /bin/true make/tests/device/tessera_gpu_tests
echo 'CUDA_DEFINES = -DTESSERA_REFERENCE_DIR=\"/makefiles/tests/device/../reference\"' \
  >make/tests/device/CMakeFiles/tessera_gpu_tests.dir/flags.make
TESSERA_BUILD_DIR=make BUNDLE_DIR=$scratch/over BUNDLE_LIMIT_MIB=0 bash "$scripts/run-on-device.sh" >over.out 2>&1
check "a bundle over BUNDLE_LIMIT_MIB: exit 1" test $? -eq 1
check "... its packed size is printed" grep -q 'MiB packed' over.out
check "... the refusal names the device tool's 64 MiB" grep -q 'over BUNDLE_LIMIT_MIB=0 (the device tool carries at most 64 MiB' over.out
check "... and the bundle is removed" test ! -e over
TESSERA_BUILD_DIR=make BUNDLE_DIR=$scratch/made bash "$scripts/run-on-device.sh" >made.out 2>&1
check "a Makefiles build folder bundles: exit 0" test $? -eq 0
check "... with flags.make's reference path in the manifest" \
  grep -qx 'reference dir: /makefiles/tests/device/../reference' made/MANIFEST.txt
cp /bin/false make/src/app/tessera
TESSERA_BUILD_DIR=make BUNDLE_DIR=$scratch/half bash "$scripts/run-on-device.sh" >half.out 2>&1
check "a failure half-way: exit 1" test $? -eq 1
check "... names what failed" grep -q 'run-on-device: tessera validate refuses the generated inputs/verdict.yaml' half.out
check "... removes the half-made bundle" test ! -e half
check "... and says so" grep -q 'removed the half-made bundle' half.out

# 3. The bundle of this build folder.
BUNDLE_DIR=$scratch/bundle TESSERA_BUILD_DIR=$build bash "$scripts/run-on-device.sh" >bundle.out 2>&1
rc=$?
check "run-on-device.sh SKIP_BUILD=1 on this build folder: exit 0" test $rc -eq 0
((rc == 0)) || cat bundle.out
check "... prints the packed size" grep -Eq '^bundle: .*, [0-9.]+ MiB packed' bundle.out
check "... the bundle is device-run.sh, MANIFEST.txt and payload.tar.gz" \
  test "$(ls bundle 2>/dev/null | tr '\n' ' ')" = "MANIFEST.txt device-run.sh payload.tar.gz "
check "... its manifest has the compiled-in reference path" grep -qxF "reference dir: $ref" bundle/MANIFEST.txt

# 4. The device half with no GPU: every step runs or says why not.
s=$SECONDS
OUT=$scratch/out BUDGET_S=60 bash bundle/device-run.sh >device.out 2>&1
rc=$? took=$((SECONDS - s))
check "device-run.sh without a GPU: exit 0" test $rc -eq 0
check "... ends within its 60 s budget ($took s)" test $took -le 60
check "... what comes back is within the device tool's limits" out_ok out
check "... results.md has a row for every step, in order" rows_ok out/results.md
check "... the CPU reference ran" outcome_is out/results.md cpu-reference 'ok: Performance:*'
check "... the call's output ends with results.md" test "$(tail -n 5 device.out)" = "$(tail -n 5 out/results.md)"

# 5. Binaries that hang: the budget still holds, and results.md says where.
mkdir hang
tar -xzf bundle/payload.tar.gz -C hang
cp bundle/device-run.sh bundle/MANIFEST.txt hang/
for b in tessera tessera_gpu_tests; do
  printf '#!/bin/sh\ncase "$1" in --version|info) exit 0 ;; esac\nexec sleep 600\n' >"hang/bin/$b"
done
s=$SECONDS
OUT=$scratch/out-hang BUDGET_S=20 bash hang/device-run.sh >hang.out 2>&1
rc=$? took=$((SECONDS - s))
check "device-run.sh with hanging binaries: exit 0" test $rc -eq 0
check "... ends within its 20 s budget ($took s)" test $took -le 20
check "... what comes back is within the device tool's limits" out_ok out-hang
check "... results.md has a row for every step, in order" rows_ok out-hang/results.md
check "... the first step timed out" outcome_is out-hang/results.md gpu-tests 'timed out after *'
check "... the next ones were not run, for lack of time" outcome_is out-hang/results.md cpu-reference 'not run: out of time*'
check "... down to the last one" outcome_is out-hang/results.md bench-2m-clusters-mixed 'not run: out of time*'

# 5b. The test cases one process each: a case that crashes costs only
# itself, a case that fails is named, and a name with a comma reaches Catch
# escaped (a stand-in for tessera_gpu_tests that speaks Catch's -f).
cat >cases.sh <<'EOF'
#!/bin/bash
if [ "$1" = --list-test-names-only ]; then printf 'first, with a comma\ncrashes\nfails\nlast\n'; exit 4; fi
[ "$1" = -f ] || exit 2
name=$(cat "$2")
case $name in
  'first\, with a comma' | last) echo "0.001 s: ${name//\\/}"; echo "All tests passed (1 assertion in 1 test case)" ;;
  crashes) kill -SEGV $$ ;;
  fails) echo "test cases: 1 | 1 failed"; exit 1 ;;
  *) echo "No test cases matched '$name'"; exit 0 ;;
esac
EOF
chmod +x cases.sh
bash "$scripts/device-run.sh" --test-rounds ./cases.sh --durations yes >cases.out 2>&1
rc=$?
check "test rounds: a crash and a failure make exit 1" test $rc -eq 1
check "... and every case ran, the summary names them" \
  grep -qx 'gpu-tests summary: 4 test cases: 2 passed, 1 failed (fails), 1 crashed (crashes)' cases.out
check "... the case after the crash ran" grep -qx '0.001 s: last' cases.out

# 6. The verdicts' judge.
printf 'step,temp,pe,ke,etotal,press\n0,1.44,-6.7733680532529643,2.16,-4.6134355532529527,-5.0197072590855774\n10,1.11,-6.28,1.67,-4.61,-2.51\n' >ref.csv
sed 's/-6.7733680532529643/-6.7733680532529700/' ref.csv >close.csv
sed 's/-6.7733680532529643/-6.7733680532000000/' ref.csv >far.csv
sed 's/-6.7733680532529643/nan/' ref.csv >nan.csv
head -2 ref.csv >short.csv
# verdict_is TOL COLS FILE RC REGEX: thermo-verdict.awk on ref.csv and FILE
# exits RC and says something matching REGEX.
verdict_is() {
  local out rc
  out=$(awk -v tol="$1" -v cols="$2" -f "$scripts/thermo-verdict.awk" ref.csv "$3")
  rc=$?
  [[ $rc == "$4" && $out =~ $5 ]] || { echo "  exit $rc: $out"; return 1; }
}
check "verdict: 8e-16 apart passes 1e-10" verdict_is 1e-10 temp,pe,ke,etotal,press close.csv 0 \
  '^PASS max relative difference [0-9.]+e-16 \(pe at step 0\) over 2 thermo lines'
check "verdict: 8e-12 apart fails 1e-12" verdict_is 1e-12 pe,etotal,press far.csv 1 '^FAIL max relative difference 7.8[0-9]e-12'
check "verdict: 8e-12 apart passes 1e-10" verdict_is 1e-10 pe,etotal,press far.csv 0 '^PASS'
check "verdict: nan fails" verdict_is 1 pe nan.csv 1 '^FAIL not a number at step 0'
check "verdict: a run cut short fails" verdict_is 1 pe short.csv 1 '^FAIL the run has 1 thermo lines, the reference 2'
exit $fail
