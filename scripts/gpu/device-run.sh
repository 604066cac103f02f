#!/usr/bin/env bash
# The device half of a GPU check (docs/gpu.md). run-on-device.sh copies this
# script into .device/bundle/; the device tool runs it there as
#   bash .device/bundle/device-run.sh
# It needs nothing on the device machine but the NVIDIA driver (and uses the
# machine's compute-sanitizer when the bundle has none). Every step is
# recorded, exit code and seconds, and the next one runs whatever happened;
# without a GPU each step ends with a 'no GPU' line and results.md is still
# written. What it writes into $OUT (8 files at most come back):
#   results.md          the table of steps, exit codes, seconds, key lines,
#                       and rows for benchmarks/results/gpu-figures.csv
#   system.txt          nvidia-smi, tessera info, compute-sanitizer --version
#   gpu-tests.log       tessera_gpu_tests, all test cases
#   memcheck.log        the same under compute-sanitizer --tool memcheck
#   racecheck.log       a subset under compute-sanitizer --tool racecheck
#   run-32k.log         tessera run lj-melt.yaml --backend cuda (32,000 atoms),
#                       double then --precision mixed
#                       and the same deck --backend cpu, for comparison
#   run-cuda-clusters.log the 2M and 16M melts, mixed, neighbor.layout: clusters
#   run-cuda-2m-16m.log lj-melt-2m.yaml and lj-melt-16m.yaml --backend cuda
#                       (2,048,000 and 16,384,000 atoms), both precisions,
#                       and the 2M melt on 2 and 4 ranks sharing the GPU
#                       (the bundle's Open MPI under OPAL_PREFIX)
#
# Environment: OUT (default /tmp/tessera-gpu-out), BUDGET_S (seconds for all
# steps, default 540: the device call's limit is 600), MEMCHECK_TESTS and
# RACECHECK_TESTS (Catch2 test specs; default all, and '~[stepper]').
set -uo pipefail
B=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# The bundle travels packed (the device tool carries at most 64 MiB, and
# the CUDA binaries alone are more than half of that): unpack it first.
if [[ -f $B/payload.tar.gz ]]; then
  unpacked=$(mktemp -d /tmp/tessera-bundle.XXXXXX)
  if ! tar -xzf "$B/payload.tar.gz" -C "$unpacked"; then
    echo "device-run: cannot unpack $B/payload.tar.gz" >&2
    exit 1
  fi
  cp "$B/MANIFEST.txt" "$unpacked/" 2>/dev/null
  B=$unpacked
fi
OUT=${OUT:-/tmp/tessera-gpu-out}
mkdir -p "$OUT"
budget=${BUDGET_S:-540}
t0=$(date +%s)
work=$(mktemp -d /tmp/tessera-gpu-work.XXXXXX)
results=$OUT/results.md
rows=()

# Our binaries find their libraries in the bundle. Only their commands get
# LD_LIBRARY_PATH, so that nvidia-smi and the shell tools keep the machine's.
LIB=$B/lib
ours() { env LD_LIBRARY_PATH="$LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" OMP_WAIT_POLICY=PASSIVE "$@"; }
# A bundled library that needs a newer glibc than this machine's (the bundle
# comes from Debian 12, glibc 2.36) is left out, so the machine's own copy
# of it is used instead.
for _ in 1 2 3 4 5; do
  bad=$(ours "$B/bin/tessera" --version 2>&1 | grep -o "$LIB/[^:]*: version .GLIBC_[0-9.]*. not found" |
    sed 's/: version.*//' | sort -u)
  [[ -z $bad ]] && break
  if [[ $LIB == "$B/lib" ]]; then
    LIB=$work/lib
    mkdir -p "$LIB"
    ln -s "$B"/lib/* "$LIB/"
  fi
  for f in $bad; do
    echo "== left out of the bundle's libraries (needs a newer glibc): $(basename "$f")"
    rm -f "$LIB/$(basename "$f")"
  done
done
# The same as a command, for timeout and compute-sanitizer to run.
OURS=(env "LD_LIBRARY_PATH=$LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" OMP_WAIT_POLICY=PASSIVE)

left() { echo $((budget - ($(date +%s) - t0))); }

# step NAME CAP LOG KEY_REGEX CMD...: runs CMD with at most CAP seconds (less
# when the budget is short), appends its output to LOG, records a row with
# the exit code, the seconds and the last line matching KEY_REGEX.
step() {
  local name=$1 cap=$2 log=$3 key=$4
  shift 4
  local remain
  remain=$(left)
  ((remain < cap)) && cap=$remain
  if ((cap < 10)); then
    last_rc=-1
    rows+=("| $name | not run | 0 | out of time (budget ${budget} s) |")
    echo "== $name: not run, out of time" | tee -a "$log"
    return
  fi
  echo "== $name (at most ${cap} s): $*" | tee -a "$log"
  local s=$SECONDS rc
  timeout -k 10 "$cap" "$@" >>"$log" 2>&1
  rc=$?
  last_rc=$rc
  local secs=$((SECONDS - s)) outcome
  case $rc in
    0) outcome=ok ;;
    77) outcome="skipped (no usable GPU)" ;;
    124 | 137) outcome="timed out after ${cap} s" ;;
    127) outcome="command not found" ;;
    *) outcome="failed" ;;
  esac
  local line
  line=$(grep -E "$key" "$log" | tail -1 | tr '|' '/' | cut -c1-220)
  rows+=("| $name | $rc | $secs | $outcome: ${line:-no summary line} |")
  echo "== $name: exit $rc after ${secs} s ($outcome)" | tee -a "$log"
}

# --- the machine -------------------------------------------------------
sys=$OUT/system.txt
{
  echo "== date: $(date -u +%Y-%m-%dT%H:%M:%SZ), host $(hostname), $(nproc) cores, kernel $(uname -r)"
  echo "== glibc: $(getconf GNU_LIBC_VERSION 2>/dev/null)"
  echo "== bundle:"
  head -8 "$B/MANIFEST.txt" 2>/dev/null
  echo "== nvidia-smi"
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi 2>&1 || echo "nvidia-smi: exit $?"
  else
    echo "nvidia-smi: not found: no NVIDIA driver on this machine"
  fi
  echo "== tessera info"
  ours "$B/bin/tessera" info 2>&1 || echo "tessera info: exit $?"
} >"$sys" 2>&1
cat "$sys"
gpu_line=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1)
gpu_line=${gpu_line:-"no GPU (nvidia-smi: $(command -v nvidia-smi >/dev/null && echo 'failed' || echo 'not found'))"}

# compute-sanitizer: the bundle's, else the machine's.
cs=""
for c in "$B/compute-sanitizer/compute-sanitizer" "$(command -v compute-sanitizer 2>/dev/null)" \
  /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer; do
  [[ -n $c && -x $c ]] && { cs=$c; break; }
done
if [[ -z $cs ]]; then
  cs=$(find /usr/local /opt -maxdepth 6 -name compute-sanitizer -type f -perm -u+x 2>/dev/null | head -1)
fi
{
  echo "== compute-sanitizer: ${cs:-not found}"
  [[ -n $cs ]] && "$cs" --version 2>&1 | tail -3
} | tee -a "$sys"

# The device tests read the LAMMPS melts at the path compiled into them (the
# build machine's checkout). Make that path lead to the bundle's copy.
ref=$(sed -n 's/^reference dir: *//p' "$B/MANIFEST.txt" 2>/dev/null)
if [[ -n $ref && ! -e $ref/lj_melt.data ]]; then
  resolved=$(realpath -m "$ref")
  # (both spellings' folders must exist: "tests/device/../reference")
  if mkdir -p "$(dirname "$resolved")" "$(dirname "$ref")" 2>/dev/null && ln -sfn "$B/reference" "$resolved" 2>/dev/null &&
    [[ -e $ref/lj_melt.data ]]; then
    echo "== reference files: $resolved -> $B/reference" | tee -a "$sys"
  else
    echo "== reference files: could not link $resolved (the tests that read melts will fail)" | tee -a "$sys"
  fi
fi

tests=$B/bin/tessera_gpu_tests
cp "$B"/inputs/*.yaml "$work/"
cd "$work" || exit 1

# --- the steps, most important first; the sanitizers take what is left --
step "tessera_gpu_tests (all)" 120 "$OUT/gpu-tests.log" \
  'All tests passed|test cases:|skipped, no usable|error while loading' \
  "${OURS[@]}" "$tests" --durations yes
# thermo NAME LOG [TAG]: the run's thermo CSV goes to the end of its log, and its
# last line (step 100) into results.md.
thermo_rows=()
thermo() {
  if [[ -f $1 ]]; then
    { echo "== $1"; cat "$1"; } >>"$2"
    thermo_rows+=("| $(basename "$2" .log)${3:+ $3} | $(tail -1 "$1" | tr ',' ' ' | awk '{print $1" | "$2" | "$3" | "$5" | "$6}') |")
    rm -f "$1"
  fi
}
# figure LOG PRECISION LAYOUT ATOMS RANKS: the run the last step logged, when
# it succeeded, as a row of benchmarks/results/gpu-figures.csv (printed in
# results.md, to be copied there; `tessera plan` estimates time per step
# from those rows).
figure_rows=()
gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | tr -d ',')
commit=$(sed -n 's/^commit: *//p' "$B/MANIFEST.txt" 2>/dev/null | tr -d ',')
figure() {
  ((last_rc == 0)) || return 0
  local rate
  rate=$(grep -E '^Performance:' "$1" | tail -1 | awk '{print $2}')
  [[ -n $rate && -n $gpu_name ]] || return 0
  figure_rows+=("$(date -u +%F),${commit:-unknown},$gpu_name,cuda,$2,$3,$4,$5,$rate")
}
step "run lj-melt.yaml --backend cuda (32,000 atoms)" 60 "$OUT/run-32k.log" \
  '^Performance:|[Ee]rror|error while loading' \
  "${OURS[@]}" "$B/bin/tessera" run lj-melt.yaml --backend cuda
thermo lj-melt.thermo.csv "$OUT/run-32k.log" cuda
figure "$OUT/run-32k.log" double rows 32000 1
step "run lj-melt.yaml --backend cuda --precision mixed (32,000 atoms)" 60 "$OUT/run-32k.log" \
  '^Performance:|[Ee]rror|error while loading' \
  "${OURS[@]}" "$B/bin/tessera" run lj-melt.yaml --backend cuda --precision mixed
thermo lj-melt.thermo.csv "$OUT/run-32k.log" "cuda mixed"
figure "$OUT/run-32k.log" mixed rows 32000 1
step "run lj-melt.yaml --backend cpu (32,000 atoms, $(nproc) cores)" 60 "$OUT/run-32k.log" \
  '^Performance:|[Ee]rror|error while loading' \
  "${OURS[@]}" "$B/bin/tessera" run lj-melt.yaml --backend cpu
thermo lj-melt.thermo.csv "$OUT/run-32k.log" cpu
step "run lj-melt-2m.yaml --backend cuda (2,048,000 atoms)" 120 "$OUT/run-cuda-2m-16m.log" \
  '^Performance:|[Ee]rror|error while loading' \
  "${OURS[@]}" "$B/bin/tessera" run lj-melt-2m.yaml --backend cuda
thermo lj-melt-2m.thermo.csv "$OUT/run-cuda-2m-16m.log"
figure "$OUT/run-cuda-2m-16m.log" double rows 2048000 1
step "run lj-melt-2m.yaml --backend cuda --precision mixed (2,048,000 atoms)" 120 "$OUT/run-cuda-2m-16m.log" \
  '^Performance:|[Ee]rror|error while loading' \
  "${OURS[@]}" "$B/bin/tessera" run lj-melt-2m.yaml --backend cuda --precision mixed
thermo lj-melt-2m.thermo.csv "$OUT/run-cuda-2m-16m.log" mixed
figure "$OUT/run-cuda-2m-16m.log" mixed rows 2048000 1
step "run lj-melt-16m.yaml --backend cuda (16,384,000 atoms)" 150 "$OUT/run-cuda-2m-16m.log" \
  '^Performance:|[Ee]rror|error while loading' \
  "${OURS[@]}" "$B/bin/tessera" run lj-melt-16m.yaml --backend cuda
thermo lj-melt-16m.thermo.csv "$OUT/run-cuda-2m-16m.log" 16m
figure "$OUT/run-cuda-2m-16m.log" double rows 16384000 1
step "run lj-melt-16m.yaml --backend cuda --precision mixed (16,384,000 atoms)" 150 "$OUT/run-cuda-2m-16m.log" \
  '^Performance:|[Ee]rror|error while loading' \
  "${OURS[@]}" "$B/bin/tessera" run lj-melt-16m.yaml --backend cuda --precision mixed
thermo lj-melt-16m.thermo.csv "$OUT/run-cuda-2m-16m.log" "16m mixed"
figure "$OUT/run-cuda-2m-16m.log" mixed rows 16384000 1
# Several ranks sharing the one GPU (issue 5): the 2M melt on 2 and 4 ranks,
# through the bundle's Open MPI (Debian's, not CUDA-aware: host-staged
# halo, chosen by auto and self-tested at start). Each summary gives the
# halo's device seconds and the part hidden behind the inner forces.
if [[ -x $B/mpi/bin/mpirun ]]; then
  MPI=(env "LD_LIBRARY_PATH=$LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" OMP_WAIT_POLICY=PASSIVE OPAL_PREFIX="$B/mpi"
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PMIX_MCA_pcompress_base_silence_warning=1
    "$B/mpi/bin/mpirun" --oversubscribe --bind-to none -x LD_LIBRARY_PATH -x OMP_WAIT_POLICY -x OMP_NUM_THREADS)
  for np in 2 4; do
    step "mpirun -np $np lj-melt-2m.yaml --backend cuda (ranks sharing the GPU)" 120 "$OUT/run-cuda-2m-16m.log" \
      '^Performance:|[Ee]rror|error while loading' \
      env OMP_NUM_THREADS=$(($(nproc) / np > 0 ? $(nproc) / np : 1)) "${MPI[@]}" -np $np "$B/bin/tessera" run lj-melt-2m.yaml --backend cuda
    [[ $np == 2 && -f lj-melt-2m.thermo.csv ]] && cp lj-melt-2m.thermo.csv staged-2.thermo.csv
    thermo lj-melt-2m.thermo.csv "$OUT/run-cuda-2m-16m.log" "$np ranks"
    figure "$OUT/run-cuda-2m-16m.log" double rows 2048000 $np
  done
  # Peer copies (deck peer_copies: auto; CUDA IPC between the two ranks'
  # buffers on the one GPU), never run on a GPU before: the log must show
  # their self-test passing, and the thermo must be the host-staged 2-rank
  # run's bit for bit (the same positions arrive).
  sed 's/lj-melt-2m\.thermo\.csv/lj-melt-2m-peer.thermo.csv/' lj-melt-2m.yaml >lj-melt-2m-peer.yaml
  echo "peer_copies: auto" >>lj-melt-2m-peer.yaml
  step "mpirun -np 2 lj-melt-2m-peer.yaml --backend cuda (peer copies, CUDA IPC)" 120 "$OUT/run-cuda-peer.log" \
    '^Performance:|^Halo |[Ee]rror|error while loading' \
    env OMP_NUM_THREADS=$(($(nproc) / 2)) "${MPI[@]}" -np 2 "$B/bin/tessera" run lj-melt-2m-peer.yaml --backend cuda
  if grep -q '^Halo       peer copies (CUDA IPC) self-test passed' "$OUT/run-cuda-peer.log" &&
    cmp -s staged-2.thermo.csv lj-melt-2m-peer.thermo.csv; then
    rows+=("| peer copies: self-test passed, thermo bitwise the host-staged run's | 0 | 0 | ok (run-cuda-peer.log) |")
  else
    rows+=("| peer copies: self-test passed, thermo bitwise the host-staged run's | 1 | 0 | FAILED (run-cuda-peer.log) |")
  fi
  thermo lj-melt-2m-peer.thermo.csv "$OUT/run-cuda-peer.log" "2 ranks peer"
else
  rows+=("| mpirun (ranks sharing the GPU) | not run | 0 | the bundle has no Open MPI (run-on-device.sh found none) |")
fi

# The cluster neighbour list (issue 7's memory lever): the same decks with
# neighbor.layout: clusters (made by run-on-device.sh), mixed precision; its
# speed and bytes per atom against the rows above.
for size in 2m 16m; do
  step "run lj-melt-$size-clusters.yaml --backend cuda --precision mixed" 150 "$OUT/run-cuda-clusters.log" \
    '^Performance:|^Device memory:|[Ee]rror|error while loading' \
    "${OURS[@]}" "$B/bin/tessera" run "lj-melt-$size-clusters.yaml" --backend cuda --precision mixed
  thermo "lj-melt-$size-clusters.thermo.csv" "$OUT/run-cuda-clusters.log" "$size mixed clusters"
  figure "$OUT/run-cuda-clusters.log" mixed clusters "$([[ $size == 2m ]] && echo 2048000 || echo 16384000)" 1
done

# memcheck: every test case. racecheck looks only at shared memory, which
# only CUB's kernels (sort, scan, reduce) use; the cases outside [stepper]
# run each of those kernels (ghosts, sort, lists, forces, reductions), and
# the stepper cases repeat them over hundreds of steps at racecheck's much
# higher cost (RACECHECK_TESTS='' runs them all). A sanitizer's finding makes
# the step's exit code 3.
memcheck_spec=${MEMCHECK_TESTS:-}
racecheck_spec=${RACECHECK_TESTS-'~[stepper]'}
if [[ -n $cs ]]; then
  step "compute-sanitizer memcheck (${memcheck_spec:-all test cases})" 200 "$OUT/memcheck.log" \
    'ERROR SUMMARY|All tests passed|test cases:|skipped, no usable|error while loading' \
    "${OURS[@]}" "$cs" --tool memcheck --leak-check full --error-exitcode 3 --print-limit 50 \
    "$tests" --durations yes ${memcheck_spec:+"$memcheck_spec"}
  step "compute-sanitizer racecheck (${racecheck_spec:-all test cases})" 200 "$OUT/racecheck.log" \
    'RACECHECK SUMMARY|ERROR SUMMARY|All tests passed|test cases:|skipped, no usable|error while loading' \
    "${OURS[@]}" "$cs" --tool racecheck --racecheck-report all --error-exitcode 3 --print-limit 50 \
    "$tests" --durations yes ${racecheck_spec:+"$racecheck_spec"}
else
  for t in memcheck racecheck; do
    echo "compute-sanitizer not found on this machine or in the bundle" >"$OUT/$t.log"
    rows+=("| compute-sanitizer $t | not run | 0 | compute-sanitizer not found |")
  done
fi

# --- results -------------------------------------------------------------
{
  echo "# Tessera GPU check, $(date -u +%Y-%m-%d)"
  echo
  echo "- machine: $(hostname), $(nproc) cores; GPU: $gpu_line"
  echo "- bundle: $(sed -n 's/^commit: *//p' "$B/MANIFEST.txt" 2>/dev/null), architectures $(sed -n 's/^architectures: *//p' "$B/MANIFEST.txt" 2>/dev/null)"
  echo "- compute-sanitizer: ${cs:-not found}"
  echo "- total: $(($(date +%s) - t0)) s of a ${budget} s budget"
  echo
  echo "| step | exit | seconds | outcome: key line of its log |"
  echo "| --- | --- | --- | --- |"
  printf '%s\n' "${rows[@]}"
  echo
  if ((${#thermo_rows[@]})); then
    echo "Last thermo line of each run (the 32k runs should agree to round-off):"
    echo
    echo "| run | step | temp | pe | etotal | press |"
    echo "| --- | --- | --- | --- | --- | --- |"
    printf '%s\n' "${thermo_rows[@]}"
    echo
  fi
  if ((${#figure_rows[@]})); then
    echo "Rows for benchmarks/results/gpu-figures.csv (append them there; \`tessera plan\` estimates from them):"
    echo
    echo '```csv'
    printf '%s\n' "${figure_rows[@]}"
    echo '```'
    echo
  fi
  halo=$(grep -h -E '^(== mpirun|== run lj-melt-2m|Performance:|Halo exchange hidden|Halo       |Rebuilds on the)' \
    "$OUT/run-cuda-2m-16m.log" 2>/dev/null | grep -v ': exit ' | sed 's/ (at most [0-9]* s):.*//')
  if [[ -n $halo ]]; then
    echo "The halo on the GPU (the 2M melt; its transport, self-test, hidden part and rebuild traffic per run):"
    echo
    echo '```'
    echo "$halo"
    echo '```'
    echo
  fi
  echo "Exit 77: no usable GPU (the test binary's skip code); 124: timed out; the logs are beside this file."
} >"$results"

# Nothing over the device tool's 16 MiB a file comes back: keep each log's end.
for f in "$OUT"/*; do
  if [[ -f $f && $(stat -c %s "$f") -gt 15000000 ]]; then
    tail -c 15000000 "$f" >"$f.tmp" && mv "$f.tmp" "$f"
  fi
done
rm -rf "$work"
echo
cat "$results"
