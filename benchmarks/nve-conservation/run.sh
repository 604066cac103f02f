#!/usr/bin/env bash
# NVE energy-conservation benchmark (issue 2): runs the same 4,000-atom LJ melt
# in LAMMPS and in Tessera, one after the other on one core each, then compares
# the drift of the total energy per atom (analyze.py).
#
# Usage: benchmarks/nve-conservation/run.sh [TESSERA_BINARY]
#   TESSERA_BINARY  default: <repo>/build/src/app/tessera
# Environment:
#   STEPS=N         shorten both runs to N steps (smoke test); the thermo interval
#                   becomes max(1, min(1000, N/100)). Results of a shortened run go
#                   to its kept scratch directory, not to benchmarks/results/.
#   RESULTS_DIR=D   where the markdown report and the PNG go
#                   (default: <repo>/benchmarks/results for a full run)
#   LMP=PATH        LAMMPS executable (default: /usr/bin/lmp)
#   LMP_SUFFIX=S    LAMMPS accelerator suffix, e.g. opt (default: none, the plain
#                   styles that issue 2's reference figures came from)
#   POTENTIAL=P     lj/cut (default: issue 2's energy-shifted lj/cut) or
#                   lj/smooth/linear (force-shifted, the control with no force
#                   jump at the cutoff), in both engines
#   PYTHON=PATH     Python with numpy and matplotlib (default: /usr/bin/python3)
#   KEEP_SCRATCH=1  keep the scratch directory of a full run
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
# shellcheck source=decks.sh
. "$here/decks.sh"

tessera="${1:-$repo/build/src/app/tessera}"
# Resolve a relative binary path against the caller's directory, before any cd.
case "$tessera" in
  /*) ;;
  *) tessera="$(pwd)/$tessera" ;;
esac
if [ ! -x "$tessera" ]; then
  echo "run.sh: Tessera binary not found or not executable: $tessera" >&2
  echo "run.sh: build it (ninja -C build tessera) or pass its path as the first argument" >&2
  exit 2
fi

lmp="${LMP:-/usr/bin/lmp}"
lmp_suffix="${LMP_SUFFIX:-}"
python="${PYTHON:-/usr/bin/python3}"
command -v "$lmp" >/dev/null || { echo "run.sh: LAMMPS not found: $lmp" >&2; exit 2; }
command -v "$python" >/dev/null || { echo "run.sh: Python not found: $python" >&2; exit 2; }

full_steps=100000
steps="${STEPS:-$full_steps}"
if ! [[ "$steps" =~ ^[1-9][0-9]*$ ]]; then
  echo "run.sh: STEPS must be a positive integer, got '$steps'" >&2
  exit 2
fi
potential="${POTENTIAL:-lj/cut}"
case "$potential" in
  lj/cut|lj/smooth/linear) ;;
  *) echo "run.sh: POTENTIAL must be lj/cut or lj/smooth/linear, got '$potential'" >&2; exit 2 ;;
esac
thermo_every=1000
if [ "$steps" -ne "$full_steps" ]; then
  thermo_every=$(( steps / 100 ))
  if [ "$thermo_every" -gt 1000 ]; then thermo_every=1000; fi
  if [ "$thermo_every" -lt 1 ]; then thermo_every=1; fi
fi

# Record the commit now: other work may commit while the benchmark runs.
commit="$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo '?')"
if [ -n "$(git -C "$repo" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
  tree_state=dirty
else
  tree_state=clean
fi

scratch="$(mktemp -d "${TMPDIR:-/tmp}/nve-conservation.XXXXXX")"
keep=0
if [ "$steps" -ne "$full_steps" ] || [ "${KEEP_SCRATCH:-0}" = 1 ]; then keep=1; fi
cleanup() {
  if [ "$keep" = 1 ]; then echo "run.sh: scratch kept in $scratch"; else rm -rf "$scratch"; fi
}
trap cleanup EXIT

if [ -n "${RESULTS_DIR:-}" ]; then
  results_dir="$RESULTS_DIR"
elif [ "$steps" -eq "$full_steps" ]; then
  results_dir="$repo/benchmarks/results"
else
  results_dir="$scratch/results"
fi
mkdir -p "$results_dir"

# Copy the decks into the scratch directory, rewriting the step count and the
# thermo interval when STEPS shortens the run.
sed -E -e "s/^run:.*/run: {steps: $steps}/" \
       -e "s/(thermo: \{every: )[0-9]+/\1$thermo_every/" \
  "$here/tessera.yaml" > "$scratch/tessera.yaml"
sed -E -e "s/^run([[:space:]]+)[0-9]+/run\1$steps/" \
       -e "s/^thermo([[:space:]]+)[0-9]+/thermo\1$thermo_every/" \
  "$here/lammps.lmp" > "$scratch/lammps.lmp"
if [ "$potential" = lj/smooth/linear ]; then
  to_smooth "$scratch/tessera.yaml" "$scratch/lammps.lmp" run.sh
fi
grep -q "steps: $steps}" "$scratch/tessera.yaml" || { echo "run.sh: could not set the Tessera step count" >&2; exit 2; }
grep -Eq "^run[[:space:]]+$steps\$" "$scratch/lammps.lmp" || { echo "run.sh: could not set the LAMMPS step count" >&2; exit 2; }

lmp_args=(-in lammps.lmp -log lammps.log -screen none)
if [ -n "$lmp_suffix" ]; then lmp_args=(-sf "$lmp_suffix" "${lmp_args[@]}"); fi
lmp_cmd="OMP_NUM_THREADS=1 $lmp ${lmp_args[*]}"
tessera_cmd="OMP_NUM_THREADS=1 $tessera run tessera.yaml --threads 1"

now() { date +%s%N; }   # nanoseconds
secs() { printf "%d.%03d" $(( $1 / 1000000000 )) $(( $1 / 1000000 % 1000 )); }

cd "$scratch"
echo "run.sh: scratch $scratch, $steps steps, thermo every $thermo_every"

loadavg() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?"; }

echo "run.sh: LAMMPS:  $lmp_cmd"
lmp_load=$(loadavg)
t0=$(now)
OMP_NUM_THREADS=1 "$lmp" "${lmp_args[@]}"
t1=$(now)
lmp_wall=$(secs $(( t1 - t0 )))
grep -E "^Loop time|^Performance" lammps.log || true

echo "run.sh: Tessera: $tessera_cmd"
tessera_load=$(loadavg)
t0=$(now)
OMP_NUM_THREADS=1 "$tessera" run tessera.yaml --threads 1 > tessera.out 2>&1 || {
  rc=$?
  cat tessera.out >&2
  echo "run.sh: Tessera exited with status $rc" >&2
  exit "$rc"
}
t1=$(now)
tessera_wall=$(secs $(( t1 - t0 )))
grep -E "^Loop time|^Performance" tessera.out || true

"$python" "$here/analyze.py" \
  --repo "$repo" --commit "$commit" --tree-state "$tree_state" \
  --results-dir "$results_dir" \
  --steps "$steps" --full-steps "$full_steps" --potential "$potential" \
  --lammps-log "$scratch/lammps.log" \
  --tessera-csv "$scratch/tessera.thermo.csv" \
  --tessera-out "$scratch/tessera.out" \
  --tessera-binary "$tessera" \
  --lammps-wall "$lmp_wall" --tessera-wall "$tessera_wall" \
  --lammps-load "$lmp_load" --tessera-load "$tessera_load" \
  --cmd-run "${POTENTIAL:+POTENTIAL=$POTENTIAL }benchmarks/nve-conservation/run.sh $tessera${STEPS:+  (STEPS=$STEPS)}" \
  --cmd-lammps "cd \$SCRATCH && $lmp_cmd" \
  --cmd-tessera "cd \$SCRATCH && $tessera_cmd"
