#!/usr/bin/env bash
# The device half of a GPU check (docs/gpu.md). run-on-device.sh copies this
# script into .device/bundle/; the device tool runs it there as
#   bash .device/bundle/device-run.sh
# It needs nothing on the device machine but the NVIDIA driver (and uses the
# machine's compute-sanitizer when the bundle has none).
#
# A GPU is lent once, for one call, which may be cut short. So the steps run
# most valuable first, each with a time cap cut to what the budget has
# left, and results.md is rewritten after every step: a call killed at any
# point still brings back every verdict reached. Nothing aborts the script:
# a step that fails, times out or finds no GPU is recorded with its exit
# code and the next one runs. Without a GPU each GPU step ends with a 'no
# usable GPU' line, the CPU reference runs, and results.md is still written.
#
# The steps, in this order:
#   verdicts    gpu-tests: tessera_gpu_tests, every test case in a process
#               of its own (--test-rounds below); cpu-reference:
#               the verdict deck (32,000 atoms, 100 steps) on the CPU; then
#               the same deck on the GPU, judged against it by
#               thermo-verdict.awk: verdict-double (1e-10 relative, every
#               column), verdict-mixed (1e-5 on pe, etotal, press),
#               verdict-2-ranks (mpirun -np 2 sharing the GPU, host-staged
#               halo, 1e-10), verdict-2-ranks-peer (peer_copies: auto:
#               passes on the self-test line and the 2-rank thermo bit for
#               bit)
#   benchmarks  32k, 2M and 16M atoms in double and mixed, 2M mixed on the
#               cluster list, in.eam and in.chain (32k) in double and
#               mixed; profile: ncu's time of every kernel in 30 steps of
#               the 2M melt (when ncu is there); then the GPU peers
#               (peers/run.sh) if bundled
#   sanitizers  memcheck on a 4,000-atom, 50-step run; racecheck on it with
#               what time is left
#
# What it writes into $OUT, and nothing else (the device tool brings back 8
# files at most, each under 16 MiB; a larger one keeps its last 15 MiB):
#   results.md       the step table (exit, seconds, outcome, verdict or key
#                    line), the halo lines of the 2-rank runs, the last
#                    thermo line of each benchmark, the peers' summary, the
#                    figure rows
#   system.txt       date, host, glibc, the bundle's manifest, nvidia-smi,
#                    tessera info, compute-sanitizer --version
#   gpu-tests.log    tessera_gpu_tests --durations yes, case by case
#   verdicts.log     the CPU reference and the four GPU runs, their thermo
#                    CSVs and PASS/FAIL lines
#   bench.log        the benchmark runs and their thermo CSVs, and the
#                    profile's kernels by name
#   peers.log        peers/run.sh's output
#   sanitizer.log    memcheck, then racecheck
#   gpu-figures.csv  figure rows (no header): Tessera's benchmarks (backend
#                    cuda, for benchmarks/results/gpu-figures.csv) and the
#                    peers'
#
# Environment: OUT (default /tmp/tessera-gpu-out), BUDGET_S (seconds for the
# whole script, unpacking included; default 420, so that the call ends
# within 8 minutes, well inside the device tool's 10), PEERS_CAP_S (the
# peers' step at most; default 150: their full list needs 6 to 8 minutes).
set -uo pipefail

# `device-run.sh --test-rounds BIN ARGS...`: each of BIN's test cases in a
# process of its own, as ctest runs them (catch_discover_tests). A case
# that crashes (a fault on a device pointer, an abort) then ends only
# itself, and no case sees what an earlier one left in the process (the
# switches in atoms/atom_fields.hpp are per process, as a run is). Catch
# takes each name through `-f`, with `,`, `[`, `]` and `\` escaped.
# Kernels load lazily here: these cases are not timed. Prints each case's
# output, then one line: "gpu-tests summary: N test cases: P passed, F
# failed, C crashed (names)". Exit 0 when all passed, 77 when BIN finds no
# GPU, else 1.
if [[ ${1:-} == --test-rounds ]]; then
  bin=$2
  shift 2
  export CUDA_MODULE_LOADING=LAZY
  rounds=$(mktemp -d /tmp/tessera-test-rounds.XXXXXX)
  # (Catch 2's exit status after a listing is the number of cases listed.)
  "$bin" --list-test-names-only | grep -v '^$' >"$rounds/names"
  [[ -s $rounds/names ]] || { echo "gpu-tests: cannot list $bin's test cases"; exit 1; }
  total=$(wc -l <"$rounds/names")
  passed=0 failed=() crashed=()
  while IFS= read -r name; do
    printf '%s\n' "$name" | sed 's/[][\\,]/\\&/g' >"$rounds/spec"
    "$bin" -f "$rounds/spec" "$@" </dev/null >"$rounds/out" 2>&1
    rc=$?
    cat "$rounds/out"
    if ((rc == 77)); then rm -rf "$rounds"; exit 77; fi
    if ! grep -q '^All tests passed\|^test cases:' "$rounds/out" && ((rc == 0)); then
      rc=1  # a name Catch did not find: never a pass
      echo "== gpu-tests: no test case ran for \"$name\""
    fi
    if ((rc == 0)); then
      passed=$((passed + 1))
    elif ((rc >= 128)); then
      crashed+=("$name")
      echo "== gpu-tests: \"$name\" crashed (exit $rc)"
    else
      failed+=("$name")
    fi
  done <"$rounds/names"
  rm -rf "$rounds"
  names() { (($#)) && printf ' (%s)' "$(printf '%s; ' "$@" | sed 's/; $//')"; }
  echo "gpu-tests summary: $total test cases: $passed passed, ${#failed[@]} failed$(names "${failed[@]}"), ${#crashed[@]} crashed$(names "${crashed[@]}")"
  ((passed == total)) && exit 0
  exit 1
fi

start=$SECONDS
budget=${BUDGET_S:-420}
OUT=${OUT:-/tmp/tessera-gpu-out}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)  # the steps run in another folder
results=$OUT/results.md
# The only names that may be in $OUT (the device tool's limit is 8 files).
outputs=(results.md system.txt gpu-tests.log verdicts.log bench.log peers.log sanitizer.log gpu-figures.csv)
for f in "${outputs[@]}"; do : >"$OUT/$f"; done

# The steps, in the order they run: id and what it is. results.md has a row
# for each from the start ("not reached"), so that a call cut short shows
# where it stopped.
plan=(
  "gpu-tests|tessera_gpu_tests, every test case in a process of its own"
  "cpu-reference|verdict deck on the CPU (32,000 atoms, 100 steps): the reference"
  "verdict-double|verdict deck on the GPU, double, against the CPU: 1e-10 relative on temp, pe, ke, etotal, press"
  "verdict-mixed|verdict deck on the GPU, --precision mixed, against the CPU: 1e-5 relative on pe, etotal, press"
  "verdict-2-ranks|verdict deck, mpirun -np 2 sharing the GPU, host-staged halo, against the CPU: 1e-10 relative"
  "verdict-2-ranks-peer|verdict deck, mpirun -np 2, peer_copies: auto: self-test passed and thermo bitwise verdict-2-ranks's"
  "bench-32k-double|lj-melt.yaml, 32,000 atoms, double"
  "bench-32k-mixed|lj-melt.yaml, 32,000 atoms, mixed"
  "bench-32k-double-1-lane|lj-melt.yaml, double, TESSERA_PAIR_LANES=1: one thread an atom, against the default 8 lanes at 32k"
  "bench-2m-double|lj-melt-2m.yaml, 2,048,000 atoms, double"
  "bench-2m-mixed|lj-melt-2m.yaml, 2,048,000 atoms, mixed"
  "bench-16m-double|lj-melt-16m.yaml, 16,384,000 atoms, double"
  "bench-16m-mixed|lj-melt-16m.yaml, 16,384,000 atoms, mixed"
  "bench-2m-clusters-mixed|lj-melt-2m-clusters.yaml, 2,048,000 atoms, mixed, cluster neighbour list"
  "bench-eam-32k-double|eam-32k.yaml, LAMMPS's in.eam: 32,000 Cu atoms, Cu_u3.eam, 1000 steps, double"
  "bench-eam-32k-mixed|eam-32k.yaml, mixed"
  "bench-chain-32k-double|chain-32k.yaml, LAMMPS's in.chain under NVE: 32,000 FENE beads, 2000 steps, double"
  "bench-chain-32k-mixed|chain-32k.yaml, mixed"
  "profile|Nsight Compute: each kernel's time in 30 steps of the 2M melt, double (summed by kernel)"
  "peers|the GPU peers (benchmarks/gpu-peers/, peers/run.sh)"
  "memcheck|compute-sanitizer memcheck --leak-check full, sanitizer.yaml (4,000 atoms, 50 steps)"
  "racecheck|compute-sanitizer racecheck, sanitizer.yaml, with the time left"
)
declare -A what=() exitc=() secs=() outcome=()
ids=()
for p in "${plan[@]}"; do
  id=${p%%|*}
  ids+=("$id")
  what[$id]=${p#*|}
  exitc[$id]=""
  secs[$id]=""
  outcome[$id]="not reached"
done
gpu_line="(not looked at yet)"
commit="" arch="" cs="" note=""
halo="" thermo_rows=() peers_summary=""
t_start=$(date -u +%Y-%m-%dT%H:%M:%SZ)
# Written outside $OUT and moved in, so that a kill mid-write leaves the
# previous results.md and $OUT never holds a ninth file.
results_tmp=$(mktemp /tmp/tessera-results.XXXXXX)

left() { echo $((budget - (SECONDS - start))); }

# results.md, whole, after every step.
write_results() {
  local id
  {
    echo "# Tessera GPU check, $t_start"
    echo
    echo "- machine: $(hostname), $(nproc) cores; GPU: $gpu_line"
    echo "- bundle: ${commit:-unknown commit}, architectures ${arch:-unknown}"
    echo "- compute-sanitizer: ${cs:-not found}"
    echo "- $((SECONDS - start)) s of a ${budget} s budget so far${note:+; $note}"
    echo
    echo "| step | what | exit | s | outcome |"
    echo "| --- | --- | --- | --- | --- |"
    for id in "${ids[@]}"; do
      echo "| $id | ${what[$id]} | ${exitc[$id]:--} | ${secs[$id]:--} | ${outcome[$id]} |"
    done
    echo
    echo "Verdicts: thermo every 10 steps of the 100, the GPU run against the CPU's, relative difference |a - b| / max(|a|, |b|):"
    echo "double 1e-10 on every column, mixed 1e-5 on pe, etotal and press; the peer-copies run bit for bit the host-staged 2-rank run's."
    echo "Exit 77: no usable GPU (the test binary's skip code); 2 with 'no usable GPU': the same from tessera; 124: timed out; 3: a sanitizer finding."
    if [[ -n $halo ]]; then
      echo
      echo "The halo of the 2-rank runs (transport, self-test, hidden part, rebuild traffic):"
      echo
      echo '```'
      echo "$halo"
      echo '```'
    fi
    if ((${#thermo_rows[@]})); then
      echo
      echo "Last thermo line of each benchmark:"
      echo
      echo "| run | step | temp | pe | etotal | press |"
      echo "| --- | --- | --- | --- | --- | --- |"
      printf '%s\n' "${thermo_rows[@]}"
    fi
    if [[ -n $peers_summary ]]; then
      echo
      echo "## GPU peers (peers/run.sh's summary)"
      echo
      echo "$peers_summary"
    fi
    if [[ -s $OUT/gpu-figures.csv ]]; then
      # The plan reads cpu and cuda rows only (src/plan/figures.cpp refuses
      # any other backend), so the peers' rows are listed apart.
      echo
      echo "Rows for benchmarks/results/gpu-figures.csv (append them there with this file):"
      echo
      echo '```csv'
      awk -F, '$4 == "cuda" || $4 == "cpu"' "$OUT/gpu-figures.csv"
      echo '```'
      if awk -F, '$4 != "cuda" && $4 != "cpu" { found = 1 } END { exit !found }' "$OUT/gpu-figures.csv"; then
        echo
        echo "The peers' rows (same columns, the engine as backend; for the results file, not for gpu-figures.csv):"
        echo
        echo '```csv'
        awk -F, '$4 != "cuda" && $4 != "cpu"' "$OUT/gpu-figures.csv"
        echo '```'
      fi
    fi
  } >"$results_tmp"
  mv -f "$results_tmp" "$results"
}

# Only the eight names, flat, each under 16 MiB (a log keeps its end).
guard_out() {
  local f
  for f in "$OUT"/* "$OUT"/.[!.]*; do
    [[ -e $f || -L $f ]] || continue
    case " ${outputs[*]} " in
      *" ${f##*/} "*) [[ -f $f && ! -L $f ]] && continue ;;
    esac
    rm -rf "$f"
    note="removed ${f##*/} from the output folder (not one of its 8 files)"
  done
  for f in "${outputs[@]}"; do
    if [[ -f $OUT/$f ]] && (($(stat -c %s "$OUT/$f") > 15728640)); then
      { echo "[... cut: the first part of this file, to keep it under the device tool's 16 MiB]"; tail -c 15000000 "$OUT/$f"; } >"$OUT/$f.tmp"
      mv -f "$OUT/$f.tmp" "$OUT/$f"
    fi
  done
}
checkpoint() {
  guard_out
  write_results
}

write_results
echo "== device-run: budget $budget s, results in $OUT"

# The bundle travels packed (the device tool carries at most 64 MiB, and
# the CUDA binaries alone are more than half of that): unpack it first.
B=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
self=$B/$(basename "${BASH_SOURCE[0]}")  # for --test-rounds
work=$(mktemp -d /tmp/tessera-gpu-work.XXXXXX)
trap 'rm -rf "$work" "$results_tmp" ${unpacked:+"$unpacked"}' EXIT
unpacked=""
if [[ -f $B/payload.tar.gz ]]; then
  unpacked=$(mktemp -d /tmp/tessera-bundle.XXXXXX)
  if ! tar -xzf "$B/payload.tar.gz" -C "$unpacked" 2>"$work/untar.err"; then
    note="cannot unpack $B/payload.tar.gz: $(head -c 300 "$work/untar.err")"
    for id in "${ids[@]}"; do outcome[$id]="not run: the bundle could not be unpacked"; done
    checkpoint
    cat "$results"
    exit 1
  fi
  cp "$B/MANIFEST.txt" "$unpacked/" 2>/dev/null
  B=$unpacked
fi
commit=$(sed -n 's/^commit: *//p' "$B/MANIFEST.txt" 2>/dev/null)
arch=$(sed -n 's/^architectures: *//p' "$B/MANIFEST.txt" 2>/dev/null)

# Our binaries find their libraries in the bundle. Only our commands get
# LD_LIBRARY_PATH, so that nvidia-smi and the shell tools keep the
# machine's. CUDA_MODULE_LOADING=EAGER loads every kernel at the CUDA
# runtime's start, so that no timed loop pays for loading one.
LIB=$B/lib
ours() { env LD_LIBRARY_PATH="$LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" OMP_WAIT_POLICY=PASSIVE CUDA_MODULE_LOADING=EAGER "$@"; }
# A bundled library that needs a newer glibc than this machine's (the bundle
# comes from Debian 12, glibc 2.36) is left out, so the machine's own copy
# of it is used instead.
for _ in 1 2 3 4 5; do
  bad=$(ours timeout 30 "$B/bin/tessera" --version 2>&1 | grep -o "$LIB/[^:]*: version .GLIBC_[0-9.]*. not found" |
    sed 's/: version.*//' | sort -u)
  [[ -z $bad ]] && break
  if [[ $LIB == "$B/lib" ]]; then
    LIB=$work/lib
    mkdir -p "$LIB"
    ln -s "$B"/lib/* "$LIB/"
  fi
  for f in $bad; do
    echo "== left out of the bundle's libraries (needs a newer glibc): $(basename "$f")" | tee -a "$OUT/system.txt"
    rm -f "$LIB/$(basename "$f")"
  done
done
# The same as a command, for timeout and compute-sanitizer to run.
OURS=(env "LD_LIBRARY_PATH=$LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" OMP_WAIT_POLICY=PASSIVE CUDA_MODULE_LOADING=EAGER)
# More environment for one benchmark (bench below), empty for the others.
BENCH_ENV=()

# --- the machine ----------------------------------------------------------
{
  echo "== date: $(date -u +%Y-%m-%dT%H:%M:%SZ), host $(hostname), $(nproc) cores, kernel $(uname -r)"
  echo "== glibc: $(getconf GNU_LIBC_VERSION 2>/dev/null)"
  echo "== bundle (MANIFEST.txt):"
  cat "$B/MANIFEST.txt" 2>/dev/null
  echo "== nvidia-smi"
  if command -v nvidia-smi >/dev/null; then
    timeout 30 nvidia-smi 2>&1 || echo "nvidia-smi: exit $?"
  else
    echo "nvidia-smi: not found: no NVIDIA driver on this machine"
  fi
  echo "== tessera info"
  ours timeout 30 "$B/bin/tessera" info 2>&1 || echo "tessera info: exit $?"
} >>"$OUT/system.txt" 2>&1
gpu_line=$(timeout 30 nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1)
gpu_line=${gpu_line:-"no GPU (nvidia-smi: $(command -v nvidia-smi >/dev/null && echo 'failed' || echo 'not found'))"}
gpu_name=$(timeout 30 nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | tr -d ',')

# compute-sanitizer: the bundle's, else the machine's.
for c in "$B/compute-sanitizer/compute-sanitizer" "$(command -v compute-sanitizer 2>/dev/null)" \
  /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer; do
  [[ -n $c && -x $c ]] && { cs=$c; break; }
done
if [[ -z $cs ]]; then
  cs=$(find /usr/local /opt -maxdepth 6 -name compute-sanitizer -type f -perm -u+x 2>/dev/null | head -1)
fi
{
  echo "== compute-sanitizer: ${cs:-not found}"
  [[ -n $cs ]] && timeout 30 "$cs" --version 2>&1 | tail -3
} >>"$OUT/system.txt" 2>&1

# The device tests read the LAMMPS melts at the path compiled into them (the
# build machine's checkout). Make that path lead to the bundle's copy.
ref=$(sed -n 's/^reference dir: *//p' "$B/MANIFEST.txt" 2>/dev/null)
if [[ -n $ref && ! -e $ref/lj_melt.data ]]; then
  resolved=$(realpath -m "$ref")
  # (both spellings' folders must exist: "tests/device/../reference")
  if mkdir -p "$(dirname "$resolved")" "$(dirname "$ref")" 2>/dev/null && ln -sfn "$B/reference" "$resolved" 2>/dev/null &&
    [[ -e $ref/lj_melt.data ]]; then
    echo "== reference files: $resolved -> $B/reference" >>"$OUT/system.txt"
  else
    echo "== reference files: could not link $resolved (the tests that read melts will fail)" >>"$OUT/system.txt"
  fi
fi
# The EAM tests read lammps-data's potential files at Debian's path.
pots=/usr/share/lammps/potentials
if [[ -d $B/potentials && ! -e $pots/Cu_u3.eam ]]; then
  if mkdir -p "$(dirname "$pots")" 2>/dev/null && ln -sfn "$B/potentials" "$pots" 2>/dev/null && [[ -e $pots/Cu_u3.eam ]]; then
    echo "== potential files: $pots -> $B/potentials" >>"$OUT/system.txt"
  else
    echo "== potential files: could not link $pots (the EAM device tests will fail)" >>"$OUT/system.txt"
  fi
fi
checkpoint

# run_step ID CAP LOG KEY_REGEX CMD...: runs CMD for at most CAP seconds
# (less when the budget has less left: 5 s stay for the kill and 5 for the
# results), its output appended to LOG and kept in $work/step.out; sets
# rc and the step's row (exit, seconds, outcome with the last line of its
# output matching KEY_REGEX). A step with under 5 s left is not run.
reserve=10
run_step() {
  local id=$1 cap=$2 log=$3 key=$4
  shift 4
  local remain=$(($(left) - reserve))
  ((remain < cap)) && cap=$remain
  : >"$work/step.out"
  if ((cap < 5)); then
    rc=-1
    exitc[$id]="-"
    secs[$id]=0
    outcome[$id]="not run: out of time (budget $budget s)"
    echo "== $id: not run, out of time" | tee -a "$log"
    return
  fi
  echo "== $id (at most $cap s): $*" | tee -a "$log"
  local s=$SECONDS
  timeout -k 5 "$cap" "$@" >"$work/step.out" 2>&1
  rc=$?
  cat "$work/step.out" >>"$log"
  secs[$id]=$((SECONDS - s))
  exitc[$id]=$rc
  local line
  line=$(grep -E "$key" "$work/step.out" | tail -1 | tr '|' '/' | cut -c1-200)
  case $rc in
    0) outcome[$id]="ok" ;;
    77) outcome[$id]="skipped (no usable GPU)" ;;
    124 | 137) outcome[$id]="timed out after $cap s" ;;
    127) outcome[$id]="command not found" ;;
    *) outcome[$id]="failed" ;;
  esac
  if ((rc != 0 && rc != 77)) && grep -q 'no usable GPU' "$work/step.out"; then
    outcome[$id]="skipped (no usable GPU)"
  fi
  outcome[$id]+="${line:+: $line}"
  echo "== $id: exit $rc after ${secs[$id]} s (${outcome[$id]})" | tee -a "$log"
}

# --- verdicts ---------------------------------------------------------------
tests=$B/bin/tessera_gpu_tests
cp "$B"/inputs/* "$work/"
cd "$work" || exit 1
key_run='^Performance:|[Ee]rror|no usable GPU|error while loading'

run_step gpu-tests 150 "$OUT/gpu-tests.log" \
  'gpu-tests summary|skipped, no usable|error while loading' \
  "${OURS[@]}" bash "$self" --test-rounds "$tests" --durations yes
checkpoint

V=$OUT/verdicts.log
# verdict_run ID TAG CMD...: a run of verdict.yaml; its thermo CSV is kept as
# TAG.csv and appended to the log.
verdict_run() {
  local id=$1 tag=$2
  shift 2
  rm -f verdict.thermo.csv
  run_step "$id" "$@"
  if [[ -f verdict.thermo.csv ]]; then
    mv verdict.thermo.csv "$tag.csv"
    { echo "== $tag.csv"; cat "$tag.csv"; } >>"$V"
  fi
}
# judge ID TAG TOL COLS: the run's thermo against the CPU reference; the
# PASS/FAIL line becomes the row's outcome.
judge() {
  local id=$1 tag=$2 v
  if [[ ${outcome[$id]} == skipped* || ${outcome[$id]} == "not run"* ]]; then return; fi
  if ((rc != 0)); then
    outcome[$id]="FAIL (exit $rc) ${outcome[$id]}"
  elif [[ ! -f cpu.csv ]]; then
    outcome[$id]="FAIL: no CPU reference to judge against (cpu-reference: ${outcome[cpu-reference]})"
  elif [[ ! -f $tag.csv ]]; then
    outcome[$id]="FAIL: the run wrote no thermo CSV"
  else
    v=$(awk -v tol="$3" -v cols="$4" -f "$B/thermo-verdict.awk" cpu.csv "$tag.csv" 2>&1)
    outcome[$id]=${v:-"FAIL: thermo-verdict.awk said nothing"}
  fi
  echo "== $id: ${outcome[$id]}" | tee -a "$V"
}

verdict_run cpu-reference cpu 40 "$V" "$key_run" "${OURS[@]}" "$B/bin/tessera" run verdict.yaml --backend cpu
verdict_run verdict-double double 40 "$V" "$key_run" "${OURS[@]}" "$B/bin/tessera" run verdict.yaml --backend cuda
judge verdict-double double 1e-10 temp,pe,ke,etotal,press
checkpoint
verdict_run verdict-mixed mixed 40 "$V" "$key_run" "${OURS[@]}" "$B/bin/tessera" run verdict.yaml --backend cuda --precision mixed
judge verdict-mixed mixed 1e-5 pe,etotal,press
checkpoint

# Two ranks sharing the one GPU (issue 5), through the bundle's Open MPI
# (Debian's, not CUDA-aware: host-staged halo, chosen by auto and
# self-tested at start). Then peer copies (CUDA IPC between the two ranks'
# buffers), never run on a GPU before: the log must show their self-test
# passing, and the thermo must be the host-staged run's bit for bit (the
# same positions arrive).
if [[ -x $B/mpi/bin/mpirun ]]; then
  threads=$(($(nproc) / 2 > 0 ? $(nproc) / 2 : 1))
  MPI=(env "LD_LIBRARY_PATH=$LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" OMP_WAIT_POLICY=PASSIVE CUDA_MODULE_LOADING=EAGER
    "OMP_NUM_THREADS=$threads" OPAL_PREFIX="$B/mpi"
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PMIX_MCA_pcompress_base_silence_warning=1
    "$B/mpi/bin/mpirun" --oversubscribe --bind-to none -x LD_LIBRARY_PATH -x OMP_WAIT_POLICY -x OMP_NUM_THREADS
    -x CUDA_MODULE_LOADING -np 2)
  verdict_run verdict-2-ranks ranks2 45 "$V" "$key_run|^Halo " "${MPI[@]}" "$B/bin/tessera" run verdict.yaml --backend cuda
  judge verdict-2-ranks ranks2 1e-10 temp,pe,ke,etotal,press
  staged=$work/step.out.ranks2
  cp "$work/step.out" "$staged"
  checkpoint
  verdict_run verdict-2-ranks-peer peer 45 "$V" "$key_run|^Halo " "${MPI[@]}" "$B/bin/tessera" run verdict-peer.yaml --backend cuda
  if [[ ${outcome[verdict-2-ranks-peer]} == skipped* || ${outcome[verdict-2-ranks-peer]} == "not run"* ]]; then
    :
  else
    if ((rc != 0)); then
      outcome[verdict-2-ranks-peer]="FAIL (exit $rc) ${outcome[verdict-2-ranks-peer]}"
    elif ! grep -q '^Halo       peer copies (CUDA IPC) self-test passed' "$work/step.out"; then
      outcome[verdict-2-ranks-peer]="FAIL: no 'peer copies (CUDA IPC) self-test passed' line; $(grep -E '^Halo|peer cop' "$work/step.out" | tail -1 | tr '|' '/' | cut -c1-200)"
    elif ! [[ -f ranks2.csv && -f peer.csv ]] || ! cmp -s ranks2.csv peer.csv; then
      outcome[verdict-2-ranks-peer]="FAIL: thermo not bitwise verdict-2-ranks's ($(cmp ranks2.csv peer.csv 2>&1 | head -1))"
    else
      outcome[verdict-2-ranks-peer]="PASS self-test passed, thermo bitwise the host-staged run's"
    fi
    echo "== verdict-2-ranks-peer: ${outcome[verdict-2-ranks-peer]}" | tee -a "$V"
  fi
  halo=$(cat "$staged" "$work/step.out" | grep -E '^(Halo|Performance:|Rebuilds)' | cut -c1-200)
else
  for id in verdict-2-ranks verdict-2-ranks-peer; do
    outcome[$id]="not run: the bundle has no Open MPI (run-on-device.sh found none)"
  done
fi
checkpoint

# --- benchmarks -------------------------------------------------------------
# bench ID CAP DECK PRECISION LAYOUT ATOMS [FIGURE]: one timed run; when it
# succeeds, its Performance: figure becomes a row of gpu-figures.csv (what
# `tessera plan` estimates an LJ deck's time per step from; not with
# FIGURE 0, the other potentials) and its last thermo line a row of
# results.md.
bench() {
  local id=$1 cap=$2 deck=$3 precision=$4 layout=$5 atoms=$6 figure=${7:-1} csv rate
  csv=${deck%.yaml}.thermo.csv
  rm -f "$csv"
  run_step "$id" "$cap" "$OUT/bench.log" "$key_run" \
    "${OURS[@]}" "${BENCH_ENV[@]}" "$B/bin/tessera" run "$deck" --backend cuda --precision "$precision"
  if [[ -f $csv ]]; then
    { echo "== $csv"; cat "$csv"; } >>"$OUT/bench.log"
    thermo_rows+=("| $id | $(tail -1 "$csv" | awk -F, '{print $1" | "$2" | "$3" | "$5" | "$6}') |")
  fi
  rate=$(grep -E '^Performance:' "$work/step.out" | tail -1 | awk '{print $2}')
  if ((rc == 0)); then
    outcome[$id]="ok: $(grep -E '^Performance:|^Device memory:' "$work/step.out" | cut -c1-120 | paste -sd ';' -)"
  fi
  if ((rc == 0 && figure)) && [[ -n $rate && -n $gpu_name ]]; then
    # A bundle built with uncommitted changes says so in the commit column.
    local at=${commit%% *}
    [[ $commit == *"local changes"* ]] && at+="+local"
    echo "$(date -u +%F),$at,$gpu_name,cuda,$precision,$layout,$atoms,1,$rate" >>"$OUT/gpu-figures.csv"
  fi
  checkpoint
}
bench bench-32k-double 30 lj-melt.yaml double rows 32000
bench bench-32k-mixed 30 lj-melt.yaml mixed rows 32000
# The same with one thread an atom: what the rows' lanes (below 2^18 atoms)
# bring, measured in the same call. Not a figure of the CSV.
BENCH_ENV=(TESSERA_PAIR_LANES=1)
bench bench-32k-double-1-lane 30 lj-melt.yaml double rows 32000 0
BENCH_ENV=()
bench bench-2m-double 60 lj-melt-2m.yaml double rows 2048000
bench bench-2m-mixed 60 lj-melt-2m.yaml mixed rows 2048000
bench bench-16m-double 90 lj-melt-16m.yaml double rows 16384000
bench bench-16m-mixed 90 lj-melt-16m.yaml mixed rows 16384000
bench bench-2m-clusters-mixed 60 lj-melt-2m-clusters.yaml mixed clusters 2048000
bench bench-eam-32k-double 30 eam-32k.yaml double rows 32000 0
bench bench-eam-32k-mixed 30 eam-32k.yaml mixed rows 32000 0
bench bench-chain-32k-double 30 chain-32k.yaml double rows 32000 0
bench bench-chain-32k-mixed 30 chain-32k.yaml mixed rows 32000 0

# Where the device's time goes: Nsight Compute times every kernel of 30
# steps of the 2M melt (ncu serialises them, so the run's own time means
# nothing here; compare the kernels' sum with bench-2m-double's loop time
# for what the host adds). Kernels are grouped by their Tessera functor,
# or by the rest of their name; the table (calls, total ms, share) goes to
# bench.log and its top rows to results.md.
ncu_bin=$(command -v ncu 2>/dev/null || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
if [[ -n $ncu_bin && -x $ncu_bin ]]; then
  run_step profile 60 "$work/profile.csv" 'error|ERROR|no usable GPU' \
    "${OURS[@]}" "$ncu_bin" --clock-control none --metrics gpu__time_duration.sum --csv --print-units base \
    --print-kernel-base demangled "$B/bin/tessera" run profile-2m.yaml --backend cuda --precision double
  awk -f "$B/ncu-kernels.awk" "$work/profile.csv" >"$work/profile.rows" 2>"$work/profile.examples"
  {
    echo "== profile: kernels of 30 steps of the 2M melt, double, by name ($ncu_bin)"
    awk '{ t += $1 } END { printf "%.3f ms in %d kinds of kernel\n", t, NR }' "$work/profile.rows"
    sort -rn "$work/profile.rows"
  } >"$work/profile.txt"
  cat "$work/profile.txt" "$work/profile.examples" >>"$OUT/bench.log"
  grep -E '==PROF==|==ERROR==|Loop time|Performance' "$work/profile.csv" | head -20 >>"$OUT/bench.log"
  if ((rc == 0)); then
    outcome[profile]="ok: $(sed -n 2p "$work/profile.txt"); top: $(sed -n 3,6p "$work/profile.txt" | cut -c1-100 | paste -sd ';' -)"
  fi
else
  outcome[profile]="not run: no ncu on this machine"
fi
checkpoint

# The GPU peers (benchmarks/gpu-peers/, bundled as peers/): one step, with
# 45 s kept for memcheck; told its budget, it should end by itself inside
# it. Its summary (markdown) goes into results.md, its `figure,` lines into
# gpu-figures.csv.
if [[ -f $B/peers/run.sh ]]; then
  MPI_PREFIX_ARG=()
  [[ -x $B/mpi/bin/mpirun ]] && MPI_PREFIX_ARG=(--mpi "$B/mpi")
  pcap=$(($(left) - reserve - 45))
  ((pcap > ${PEERS_CAP_S:-150})) && pcap=${PEERS_CAP_S:-150}
  rm -f "$work/peers-summary.md"
  mkdir -p "$work/peers"
  run_step peers "$pcap" "$OUT/peers.log" '[Ee]rror|FAIL|[Ss]ummary' \
    env -u OUT CUDA_MODULE_LOADING=EAGER bash "$B/peers/run.sh" --tessera "$B/bin/tessera" --lib "$LIB" \
    --work "$work/peers" --budget $((pcap > 20 ? pcap - 10 : pcap)) --summary "$work/peers-summary.md" \
    ${MPI_PREFIX_ARG[@]+"${MPI_PREFIX_ARG[@]}"}
  grep '^figure,' "$work/step.out" | sed 's/^figure,//' >>"$OUT/gpu-figures.csv"
  [[ -f $work/peers-summary.md ]] && peers_summary=$(head -c 20000 "$work/peers-summary.md")
else
  outcome[peers]="not run: the bundle has no peers/run.sh ($(sed -n 's/^peers: *//p' "$B/MANIFEST.txt" 2>/dev/null))"
  echo "no peers in this bundle: ${outcome[peers]}" >>"$OUT/peers.log"
fi
checkpoint

# --- sanitizers -------------------------------------------------------------
# memcheck on a short run of the whole engine (lists, sort, ghosts, forces,
# thermo sums); racecheck, which looks only at shared memory (CUB's sort,
# scan and reduce), on the same run with what time is left. A finding makes
# the exit code 3.
if [[ -n $cs ]]; then
  run_step memcheck 60 "$OUT/sanitizer.log" 'ERROR SUMMARY|no usable GPU|error while loading' \
    "${OURS[@]}" "$cs" --tool memcheck --leak-check full --error-exitcode 3 --print-limit 50 \
    "$B/bin/tessera" run sanitizer.yaml --backend cuda
  checkpoint
  run_step racecheck 120 "$OUT/sanitizer.log" 'RACECHECK SUMMARY|ERROR SUMMARY|no usable GPU|error while loading' \
    "${OURS[@]}" "$cs" --tool racecheck --racecheck-report all --error-exitcode 3 --print-limit 50 \
    "$B/bin/tessera" run sanitizer.yaml --backend cuda
else
  for id in memcheck racecheck; do outcome[$id]="not run: compute-sanitizer not found"; done
  echo "compute-sanitizer not found on this machine or in the bundle" >>"$OUT/sanitizer.log"
fi
checkpoint
echo
cat "$results"
