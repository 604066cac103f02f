#!/usr/bin/env bash
# A first check that the peers from build.sh run: `gmx --version`, `gmx_d --version`,
# and LAMMPS's bench/in.lj (32,000 atoms, 100 steps) with each accelerator style.
# Prints one row per run: variant, ranks x threads, loop seconds, atom-steps/s, last thermo row.
# A smoke test, not a benchmark: 100 steps on a shared 2-core machine vary by tens of percent.
#
#   bash benchmarks/cpu-peers/check.sh [--cache DIR] [repeats]     (default 3 repeats)
set -Eeuo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUTSIDE="$(cd "$HERE/../../.." && pwd)"
CACHE="${TESSERA_CPU_PEERS_CACHE:-$OUTSIDE/.cache/tessera-cpu-peers}"
if [ "${1:-}" = --cache ]; then CACHE="$2"; shift 2; fi
REPEATS="${1:-3}"

die() { echo "check.sh: ERROR: $*" >&2; exit 1; }

GMX="$CACHE/gromacs-mixed/install/bin/gmx"
GMX_D="$CACHE/gromacs-double/install/bin/gmx_d"
LMP="$CACHE/lammps/bin/lmp"
benches=("$CACHE"/src/lammps-*/bench/in.lj)
INLJ="${benches[0]}"

for g in "$GMX" "$GMX_D"; do
  if [ -x "$g" ]; then
    echo "== $(basename "$g") --version"
    "$g" --version 2>&1 | grep -E '^(GROMACS version|Precision|SIMD instructions|CPU FFT library|C\+\+ compiler:)'
  else
    echo "== $g: not built"
  fi
done

[ -x "$LMP" ] || die "$LMP not built"
[ -f "$INLJ" ] || die "bench/in.lj not found under $CACHE/src"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$INLJ" "$work/in.lj"
cd "$work"

# mpirun refuses root without this; harmless otherwise.
MPIRUN=(mpirun --allow-run-as-root --bind-to core)

run() {  # label ranks threads lammps-args...
  local label="$1" np="$2" nt="$3"; shift 3
  local i line secs last
  for ((i = 1; i <= REPEATS; i++)); do
    OMP_NUM_THREADS="$nt" "${MPIRUN[@]}" -np "$np" -x OMP_NUM_THREADS "$LMP" -in in.lj -log none -screen out.txt "$@" \
      > run.txt 2>&1 || { cat run.txt out.txt >&2; die "$label failed"; }
    line="$(grep -m1 '^Loop time of' out.txt)" || die "$label: no loop time in output"
    secs="$(awk '{print $4}' <<< "$line")"
    # The last thermo row (step 100) tells a style that runs but computes something else.
    last="$(grep -B1 -m1 '^Loop time of' out.txt | head -1)"
    printf '%-22s %dx%d  loop %7.3f s  %9.3e atom-steps/s  step-100 thermo: %s\n' "$label" "$np" "$nt" "$secs" \
      "$(awk -v s="$secs" 'BEGIN{print 32000*100/s}')" "$(tr -s ' ' <<< "$last" | sed 's/^ //')"
  done
}

echo "== LAMMPS bench/in.lj, 32000 atoms, 100 steps, $REPEATS repeats"
mpirun --allow-run-as-root -np 1 "$LMP" -h | sed -n '/^Installed packages:/,/^List of individual/p' | sed '/^$/d;/^List/d'
run plain 2 1
run opt 2 1 -sf opt
run omp 2 1 -sf omp -pk omp 1
run omp 1 2 -sf omp -pk omp 2
run "intel double" 2 1 -sf intel -pk intel 0 mode double omp 1
run "intel mixed" 2 1 -sf intel -pk intel 0 mode mixed omp 1
