#!/usr/bin/env bash
# GPU peers next to Tessera, on the device machine, in the same call
# (benchmarks/gpu-peers/README.md). Runs from the peers bundle (DEST/run.sh,
# filled by benchmarks/gpu-peers/bundle.sh):
#
#   bash run.sh --tessera PATH_TO_TESSERA --lib LIBDIR --work WORKDIR \
#               --budget SECONDS --summary SUMMARY_FILE [--mpi MPI_PREFIX]
#
# --lib is what Tessera needs on LD_LIBRARY_PATH; lmp's own libraries are in
# the bundle (lammps/lib). --mpi is the device bundle's relocated Open MPI
# (its mpi/ folder): lmp is an MPI build and runs as LAMMPS_RANKS ranks
# (default: the machine's cores, at most 16) sharing the one GPU, the layout
# LAMMPS's GPU package is meant for (it leaves integration, packing and
# ghost exchange to the host cores). Every run is capped with `timeout`, and the whole
# script ends within --budget seconds. Everything goes to stdout; the markdown
# summary (engine, precision, atoms, atom-steps/s, Tessera/peer) is rewritten
# after every run, and each measured figure is printed as a CSV line
#   figure,DATE,COMMIT,GPU,ENGINE,PRECISION,LAYOUT,ATOMS,RANKS,ATOM_STEPS_PER_S
# (the columns of benchmarks/results/gpu-figures.csv, with the engine in the
# backend column). A run that fails prints
#   figure-failed,DATE,COMMIT,GPU,ENGINE,PRECISION,LAYOUT,ATOMS,RANKS,REASON
# and the next one runs.
#
# The systems (all fcc at density 0.8442, T0 = 1.44, cutoff 2.5, skin 0.3, NVE,
# dt 0.005, in this order, each pair Tessera first):
#   1. shifted-force LJ, 1,048,576 atoms: Tessera mixed (lj/smooth/linear,
#      cells [64,64,64], list checked every step) vs gamdpy float32
#   2. in.lj (lj/cut, neigh every 20 check no), 2,048,000 atoms: Tessera double
#      vs lmp-double -sf gpu, Tessera mixed vs lmp-mixed -sf gpu
#   3. shifted-force LJ, 4,194,304 atoms (cells [128,128,64]): Tessera mixed vs gamdpy
#   4. in.lj, 16,384,000 atoms: as 2.
#   5. gamdpy at 1,048,576 atoms again with the compute plan gamdpy's
#      benchmarks/README.md lists for an RTX 4090 (pb 512, tp 2, no NIII)
# What does not fit in the budget is listed as not run.
#
# Exit status: 0 every figure measured; 1 some run failed or was not run;
# 2 usage; 77 no usable GPU (nothing run; the summary says why).
set -u

usage() { echo "usage: bash run.sh --tessera PATH --lib LIBDIR --work WORKDIR --budget SECONDS --summary FILE [--mpi MPI_PREFIX]" >&2; exit 2; }
TESSERA="" LIB="" WORK="" BUDGET="" SUMMARY="" MPI_PREFIX=""
while [ $# -gt 0 ]; do
  case "$1" in
    --tessera) TESSERA="${2:-}"; shift 2 ;;
    --lib) LIB="${2:-}"; shift 2 ;;
    --work) WORK="${2:-}"; shift 2 ;;
    --budget) BUDGET="${2:-}"; shift 2 ;;
    --summary) SUMMARY="${2:-}"; shift 2 ;;
    --mpi) MPI_PREFIX="${2:-}"; shift 2 ;;
    -h|--help) sed -n '2,37p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown argument '$1'" >&2; usage ;;
  esac
done
[ -n "$TESSERA" ] && [ -n "$WORK" ] && [ -n "$BUDGET" ] && [ -n "$SUMMARY" ] || usage
[[ "$BUDGET" =~ ^[0-9]+$ ]] || { echo "run.sh: --budget must be whole seconds, got '$BUDGET'" >&2; exit 2; }

T0=$(date +%s)
left() { echo $((BUDGET - ($(date +%s) - T0))); }
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$WORK" || { echo "run.sh: cannot create --work $WORK" >&2; exit 2; }
WORK="$(cd "$WORK" && pwd)"
case "$SUMMARY" in /*) ;; *) SUMMARY="$PWD/$SUMMARY" ;; esac
mkdir -p "$(dirname "$SUMMARY")"
case "$TESSERA" in /*) ;; *) TESSERA="$PWD/$TESSERA" ;; esac
[ -n "$LIB" ] && case "$LIB" in /*) ;; *) LIB="$PWD/$LIB" ;; esac
[ -n "$MPI_PREFIX" ] && case "$MPI_PREFIX" in /*) ;; *) MPI_PREFIX="$PWD/$MPI_PREFIX" ;; esac
cd "$WORK" || exit 2

GAMDPY_COMMIT=unknown LAMMPS_VERSION=20220106 LAMMPS_PRECS=""
# shellcheck disable=SC1091
[ -f "$HERE/peers.env" ] && . "$HERE/peers.env"
DATE=$(date -u +%F)
LMP_RANKS=${LAMMPS_RANKS:-$(nproc)}
((LMP_RANKS > 16)) && LMP_RANKS=16
GPU="none"
TCOMMIT="unknown"
FAILED=0

echo "== gpu-peers run.sh: budget ${BUDGET} s, work $WORK, summary $SUMMARY, bundle $HERE"

# ---- summary: rows kept in an array, the file rewritten after each change ----
ROWS=()
NOTES=()
write_summary() {
  {
    echo "## GPU peers, same call ($DATE, $GPU)"
    echo
    echo "Tessera $TCOMMIT; gamdpy ${GAMDPY_COMMIT:0:12}; LAMMPS $LAMMPS_VERSION GPU package ($LMP_RANKS ranks sharing the GPU)."
    echo "fcc 0.8442, cutoff 2.5, skin 0.3, NVE. Tessera/peer > 1: Tessera is faster."
    echo
    echo "| system | engine | precision | atoms | atom-steps/s | Tessera/peer | note |"
    echo "| --- | --- | --- | ---: | ---: | ---: | --- |"
    local r
    for r in "${ROWS[@]}"; do echo "$r"; done
    if [ ${#NOTES[@]} -gt 0 ]; then
      echo
      for r in "${NOTES[@]}"; do echo "- $r"; done
    fi
    echo
    echo "budget ${BUDGET} s, used $(( $(date +%s) - T0 )) s"
  } > "$SUMMARY.tmp" && mv "$SUMMARY.tmp" "$SUMMARY"
}
note() { NOTES+=("$*"); echo "== note: $*"; write_summary; }
write_summary

# figure ENGINE PRECISION LAYOUT ATOMS RATE COMMIT [RANKS]
figure() { echo "figure,$DATE,$6,$GPU,$1,$2,$3,$4,${7:-1},$5"; }
failed() { echo "figure-failed,$DATE,$6,$GPU,$1,$2,$3,$4,${7:-1},$5"; FAILED=1; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (a > 0 && b > 0) printf "%.2f", a / b; else printf "-" }'; }

# ---- 0. is there a GPU? ----
if ! command -v nvidia-smi >/dev/null 2>&1; then
  why="no nvidia-smi on this machine: no NVIDIA driver, so no GPU to run the peers on"
elif ! smi=$(timeout 20 nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1) || [ -z "$smi" ]; then
  why="nvidia-smi found no usable GPU: $(echo "$smi" | head -1)"
else
  why=""
  GPU=$(echo "$smi" | head -1 | cut -d, -f1 | sed 's/^ *//; s/ *$//')
  echo "== GPU: $smi"
fi
if [ -n "$why" ]; then
  echo "== gpu-peers: nothing run: $why"
  note "nothing run: $why"
  exit 77
fi

# ---- Tessera ----
TLD="${LIB}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if [ -x "$TESSERA" ]; then
  TCOMMIT=$(env LD_LIBRARY_PATH="$TLD" "$TESSERA" --version 2>/dev/null | grep -o 'commit [0-9a-f]*' | head -1 | cut -c8-14)
  [ -n "$TCOMMIT" ] || TCOMMIT=unknown
  echo "== tessera: $TESSERA (commit $TCOMMIT)"
else
  note "no Tessera binary at $TESSERA: peers run without a same-call ratio"
fi

# deck NAME STYLE CELLS EVERY CHECK STEPS: writes NAME.yaml in the work folder
deck() {
  cat > "$1.yaml" <<EOF
# Generated by benchmarks/gpu-peers/run.sh: $1
units: lj
system:
  lattice: {style: fcc, density: 0.8442, cells: [$3]}
  masses: [1.0]
velocity: {temperature: 1.44, seed: 87287}
potential:
  style: $2
  cutoff: 2.5
  coeffs:
    - {types: [1, 1], epsilon: 1.0, sigma: 1.0}
neighbor: {skin: 0.3, every: $4, delay: 0, check: $5}
integrator: {style: nve, dt: 0.005}
run: {steps: $6}
output:
  thermo: {every: 0, file: $1.thermo.csv}
EOF
}

# why_failed RC CAP KEYLINE LOG: why a run gave no figure
why_failed() {
  local why=$3
  if [ "$1" -eq 124 ] || [ "$1" -eq 137 ]; then why="timed out after $2 s${why:+; $why}"; fi
  [ -n "$why" ] || why="exit $1: $(grep -v '^ ' "$4" | grep -v '^$' | tail -1 | cut -c1-150)"
  echo "$why"
}

# cap WANT MIN: the seconds a run may take now, or nothing if fewer than MIN are left
cap() {
  local l
  l=$(( $(left) - 5 ))
  (( l < $2 )) && return 1
  (( l < $1 )) && echo "$l" || echo "$1"
}

# run_tessera SYSTEM DECK PRECISION ATOMS WANT -> sets TRATE
run_tessera() {
  local sys=$1 deckname=$2 prec=$3 atoms=$4 want=$5 c rc rate log
  TRATE=""
  [ -x "$TESSERA" ] || return 0
  log="$WORK/tessera-$deckname-$prec.log"
  if ! c=$(cap "$want" 20); then
    failed tessera "$prec" rows "$atoms" "not run: out of budget" "$TCOMMIT"
    ROWS+=("| $sys | tessera | $prec | $atoms | not run | | out of budget |"); write_summary
    return 0
  fi
  echo "== tessera run $deckname.yaml --backend cuda --precision $prec (at most $c s)"
  timeout -k 5 "$c" env LD_LIBRARY_PATH="$TLD" "$TESSERA" run "$deckname.yaml" --backend cuda --precision "$prec" \
    > "$log" 2>&1
  rc=$?
  cat "$log"
  rate=$(grep -E '^Performance:' "$log" | tail -1 | awk '{print $2}')
  if [ $rc -eq 0 ] && [ -n "$rate" ]; then
    TRATE=$(awk -v r="$rate" 'BEGIN{printf "%.4e", r}')
    figure tessera "$prec" rows "$atoms" "$TRATE" "$TCOMMIT"
    ROWS+=("| $sys | tessera | $prec | $atoms | $TRATE | | \`Performance:\` line, rows layout |")
  else
    local why
    why=$(why_failed $rc "$c" "$(grep -iE 'error' "$log" | head -1 | cut -c1-150)" "$log")
    failed tessera "$prec" rows "$atoms" "$(echo "$why" | tr ',' ';')" "$TCOMMIT"
    ROWS+=("| $sys | tessera | $prec | $atoms | failed | | $(echo "$why" | tr '|' '/') |")
  fi
  write_summary
}

# peer_row SYSTEM ENGINE PRECISION LAYOUT ATOMS RATE TESSERA_RATE COMMIT NOTE [RANKS]
peer_row() {
  figure "$2" "$3" "$4" "$5" "$6" "$8" "${10:-1}"
  ROWS+=("| $1 | $2 | $3 | $5 | $6 | $(ratio "$7" "$6") | $9 |")
  write_summary
}
peer_fail() {  # SYSTEM ENGINE PRECISION LAYOUT ATOMS REASON COMMIT [RANKS]
  failed "$2" "$3" "$4" "$5" "$(echo "$6" | tr ',' ';')" "$7" "${8:-1}"
  local what=failed
  case "$6" in "not run"*) what="not run" ;; esac
  ROWS+=("| $1 | $2 | $3 | $5 | $what | | $(echo "$6" | tr '|' '/') |")
  write_summary
}

# ---- gamdpy ----
PY=$(command -v python3 || true)
GAMDPY_OK=0
GAMDPY_ENV=()
GCOMMIT="gamdpy-${GAMDPY_COMMIT:0:7}"
gamdpy_probe() {
  local c out rc
  if [ -z "$PY" ]; then GAMDPY_WHY="no python3 on this machine"; return 1; fi
  if [ ! -f "$HERE/gamdpy/src/gamdpy/__init__.py" ]; then GAMDPY_WHY="no gamdpy source in the bundle"; return 1; fi
  c=$(cap 60 15) || { GAMDPY_WHY="out of budget"; return 1; }
  echo "== gamdpy probe: $PY gamdpy_lj.py --probe (at most $c s)"
  out=$(timeout -k 5 "$c" env PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 "$PY" "$HERE/gamdpy_lj.py" --gamdpy "$HERE/gamdpy/src" --probe 2>&1)
  rc=$?
  echo "$out"
  if [ $rc -ne 0 ] && [ -d /usr/local/cuda/nvvm ] && [ -z "${CUDA_HOME:-}" ] && echo "$out" | grep -qiE 'nvvm|libdevice|cuda_home|CUDA toolkit'; then
    # numba-cuda finds NVVM and libdevice through CUDA_HOME when its pip wheels lack them
    c=$(cap 60 15) || { GAMDPY_WHY="out of budget"; return 1; }
    echo "== gamdpy probe again with CUDA_HOME=/usr/local/cuda (at most $c s)"
    out=$(timeout -k 5 "$c" env CUDA_HOME=/usr/local/cuda PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 "$PY" "$HERE/gamdpy_lj.py" --gamdpy "$HERE/gamdpy/src" --probe 2>&1)
    rc=$?
    echo "$out"
    [ $rc -eq 0 ] && GAMDPY_ENV=(CUDA_HOME=/usr/local/cuda)
  fi
  if [ $rc -ne 0 ]; then
    GAMDPY_WHY=$(echo "$out" | grep -E '^GAMDPY_FAIL' | head -1 | cut -c13-200)
    [ -n "$GAMDPY_WHY" ] || GAMDPY_WHY="probe exit $rc: $(echo "$out" | grep -v '^ ' | tail -1 | cut -c1-150)"
    return 1
  fi
  return 0
}

# run_gamdpy SYSTEM CELLS ATOMS STEPS_PER_BLOCK BLOCKS WANT TESSERA_RATE [PLAN]
run_gamdpy() {
  local sys=$1 cells=$2 atoms=$3 spb=$4 blocks=$5 want=$6 trate=$7 gplan=${8:-default} c rc log res rate plan
  log="$WORK/gamdpy-$atoms-$gplan.log"
  if [ $GAMDPY_OK -ne 1 ]; then
    peer_fail "$sys" gamdpy single - "$atoms" "not run: $GAMDPY_WHY" "$GCOMMIT"; return
  fi
  if ! c=$(cap "$want" 45); then
    peer_fail "$sys" gamdpy single - "$atoms" "not run: out of budget" "$GCOMMIT"; return
  fi
  echo "== gamdpy float32 $cells ($atoms atoms, plan $gplan), $blocks x $spb timed steps after one untimed block (at most $c s)"
  timeout -k 5 "$c" env "${GAMDPY_ENV[@]}" PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 \
    "$PY" "$HERE/gamdpy_lj.py" --gamdpy "$HERE/gamdpy/src" --cells "$cells" \
    --steps-per-block "$spb" --blocks "$blocks" --skin 0.3 --plan "$gplan" > "$log" 2>&1
  rc=$?
  cat "$log"
  res=$(grep -E '^GAMDPY_RESULT' "$log" | tail -1)
  if [ $rc -eq 0 ] && [ -n "$res" ]; then
    rate=$(echo "$res" | grep -o 'atom_steps_per_s=[^ ]*' | head -1 | cut -d= -f2)
    plan=$(echo "$res" | grep -o 'plan=[^ ]*' | cut -d= -f2)
    peer_row "$sys" gamdpy single "$plan" "$atoms" "$rate" "$trate" "$GCOMMIT" \
      "float32; CUDA events over the timed blocks, JIT and a warm-up block excluded; $gplan plan $plan"
  else
    peer_fail "$sys" gamdpy single - "$atoms" \
      "$(why_failed $rc "$c" "$(grep -E '^GAMDPY_FAIL' "$log" | head -1 | cut -c13-200)" "$log")" "$GCOMMIT"
  fi
}

# ---- LAMMPS GPU package ----
LCOMMIT="lammps-$LAMMPS_VERSION"
LMP_LD="$HERE/lammps/lib${LIB:+:$LIB}"
LMP_OK=0
# The bundle's relocated Open MPI (docs/gpu.md): OPAL_PREFIX finds its
# plugins; -x passes the library path to the ranks.
MPIRUN=(env OPAL_PREFIX="$MPI_PREFIX" OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  PMIX_MCA_pcompress_base_silence_warning=1 OMP_NUM_THREADS=1
  "$MPI_PREFIX/bin/mpirun" --oversubscribe --bind-to none -x LD_LIBRARY_PATH -x OMP_NUM_THREADS)
lammps_probe() {
  local p out rc
  p=$(echo "$LAMMPS_PRECS" | awk '{print $1}')
  if [ -z "$p" ] || [ ! -x "$HERE/lammps/bin/lmp-$p" ]; then LMP_WHY="no lmp in the bundle"; return 1; fi
  if [ -z "$MPI_PREFIX" ] || [ ! -x "$MPI_PREFIX/bin/mpirun" ]; then
    LMP_WHY="lmp is an MPI build and no --mpi prefix with bin/mpirun was given"; return 1
  fi
  out=$(timeout -k 5 30 env LD_LIBRARY_PATH="$LMP_LD" "${MPIRUN[@]}" -np 1 "$HERE/lammps/bin/lmp-$p" -h 2>&1 | head -120)
  rc=$?
  if echo "$out" | grep -q 'GLIBC_\|error while loading'; then
    # the bundled libstdc++ needs a newer glibc than this machine has: use the machine's own
    echo "$out" | grep -m1 'GLIBC_\|error while loading'
    echo "== lmp: trying without the bundled libraries"
    LMP_LD=""
    out=$(timeout -k 5 30 env LD_LIBRARY_PATH="$LIB" "${MPIRUN[@]}" -np 1 "$HERE/lammps/bin/lmp-$p" -h 2>&1 | head -120)
  fi
  # A binary that starts prints its GPU package's build in its help.
  if ! echo "$out" | grep -q '^GPU package API:'; then
    LMP_WHY="lmp -h failed: $(echo "$out" | grep -v '^$' | head -1 | cut -c1-150)"
    return 1
  fi
  echo "$out" | sed -n '1,12p'
  return 0
}

# The in.lj benchmark of LAMMPS's bench/ folder, with the run length a variable.
cat > "$WORK/in.lj-peers" <<'EOF'
# LAMMPS bench/in.lj system, written out by Tessera's benchmarks/gpu-peers/run.sh
variable x index 1
variable y index 1
variable z index 1
variable steps index 100
variable xx equal 20*$x
variable yy equal 20*$y
variable zz equal 20*$z
units lj
atom_style atomic
lattice fcc 0.8442
region box block 0 ${xx} 0 ${yy} 0 ${zz}
create_box 1 box
create_atoms 1 box
mass 1 1.0
velocity all create 1.44 87287 loop geom
pair_style lj/cut 2.5
pair_coeff 1 1 1.0 1.0 2.5
neighbor 0.3 bin
neigh_modify delay 0 every 20 check no
fix 1 all nve
run ${steps}
EOF

# run_lammps SYSTEM PREC REPLICAS ATOMS STEPS WANT TESSERA_RATE
run_lammps() {
  local sys=$1 prec=$2 rep=$3 atoms=$4 steps=$5 want=$6 trate=$7 c rc log loop rate
  log="$WORK/lammps-gpu-$prec-$atoms.log"
  if [ $LMP_OK -ne 1 ]; then
    peer_fail "$sys" lammps-gpu "$prec" - "$atoms" "not run: $LMP_WHY" "$LCOMMIT" "$LMP_RANKS"; return
  fi
  if [ ! -x "$HERE/lammps/bin/lmp-$prec" ]; then
    peer_fail "$sys" lammps-gpu "$prec" - "$atoms" "not run: no lmp-$prec in the bundle" "$LCOMMIT" "$LMP_RANKS"; return
  fi
  if ! c=$(cap "$want" 30); then
    peer_fail "$sys" lammps-gpu "$prec" - "$atoms" "not run: out of budget" "$LCOMMIT" "$LMP_RANKS"; return
  fi
  echo "== mpirun -np $LMP_RANKS lmp-$prec -sf gpu -pk gpu 1 in.lj x=y=z=$rep ($atoms atoms, $steps steps; at most $c s)"
  timeout -k 5 "$c" env LD_LIBRARY_PATH="$LMP_LD" "${MPIRUN[@]}" -np "$LMP_RANKS" \
    "$HERE/lammps/bin/lmp-$prec" -sf gpu -pk gpu 1 \
    -var x "$rep" -var y "$rep" -var z "$rep" -var steps "$steps" \
    -in "$WORK/in.lj-peers" -log "$WORK/log.lammps-gpu-$prec-$atoms" -nocite > "$log" 2>&1
  rc=$?
  cat "$log"
  # "Loop time of T on P procs for S steps with N atoms": the run loop only
  loop=$(grep -E '^Loop time of' "$log" | tail -1)
  if [ $rc -eq 0 ] && [ -n "$loop" ]; then
    rate=$(echo "$loop" | awk '{ printf "%.4e", $9 * $12 / $4 }')
    peer_row "$sys" lammps-gpu "$prec" gpu-neigh "$atoms" "$rate" "$trate" "$LCOMMIT" \
      "$LMP_RANKS ranks sharing the GPU, -sf gpu -pk gpu 1; from its Loop time" "$LMP_RANKS"
  else
    peer_fail "$sys" lammps-gpu "$prec" - "$atoms" \
      "$(why_failed $rc "$c" "$(grep -iE 'ERROR|Cuda driver error' "$log" | head -1 | cut -c1-150)" "$log")" "$LCOMMIT" "$LMP_RANKS"
  fi
}

# ---- the decks ----
deck sf-1m lj/smooth/linear "64, 64, 64" 1 true 2000
deck sf-4m lj/smooth/linear "128, 128, 64" 1 true 500
deck inlj-2m lj/cut "80, 80, 80" 20 false 500
deck inlj-16m lj/cut "160, 160, 160" 20 false 100

if gamdpy_probe; then GAMDPY_OK=1; else note "gamdpy: $GAMDPY_WHY"; fi
if lammps_probe; then LMP_OK=1; else note "lammps-gpu: $LMP_WHY"; fi

S1="shifted-force LJ 1M"
run_tessera "$S1" sf-1m mixed 1048576 60; T1=$TRATE
run_gamdpy "$S1" 64,64,64 1048576 500 4 150 "$T1"

# inlj_pairs SYSTEM DECK ATOMS REPLICAS STEPS TESSERA_CAP LAMMPS_CAP: Tessera
# then lmp, in double, then in mixed
inlj_pairs() {
  local p
  for p in double mixed; do
    run_tessera "$1" "$2" "$p" "$3" "$6"
    run_lammps "$1" "$p" "$4" "$3" "$5" "$7" "$TRATE"
  done
}

inlj_pairs "in.lj 2M" inlj-2m 2048000 4 500 60 120

S3="shifted-force LJ 4M"
run_tessera "$S3" sf-4m mixed 4194304 60
run_gamdpy "$S3" 128,128,64 4194304 125 4 150 "$TRATE"

inlj_pairs "in.lj 16M" inlj-16m 16384000 8 100 90 180

# 5. if time is left: gamdpy at 1M with the plan its README lists for an RTX 4090
run_gamdpy "$S1" 64,64,64 1048576 500 4 120 "$T1" rtx4090-1m

echo "== gpu-peers: done in $(( $(date +%s) - T0 )) s of ${BUDGET} s"
cat "$SUMMARY"
exit $FAILED
