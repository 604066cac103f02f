#!/usr/bin/env bash
# Strong and weak scaling of the CPU backend over MPI ranks (issue 5, item 9):
# one OpenMP thread per rank, 1 .. NMAX ranks (default: all cores).
#   strong: the in.lj system at 40^3 fcc cells (256,000 atoms) on every count;
#   weak:   40 x 40 x 20 cells (128,000 atoms) per rank, stacked along z.
# Each point is the median loop time of REPS runs; efficiency is
# T(1) / (N T(N)) for strong and T(1) / T(N) for weak scaling. Writes a
# markdown table (machine, commit, command, figures) to OUT.
#
# usage: benchmarks/scaling/run.sh TESSERA_BINARY [OUT.md] [REPS] [NMAX]
set -euo pipefail
bin=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${2:-$root/benchmarks/results/scaling-$(date +%F).md}
reps=${3:-3}
nmax=${4:-$(nproc)}
steps=200
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

deck() {  # deck FILE NX NY NZ
  cat > "$1" <<YAML
system:
  lattice: {style: fcc, density: 0.8442, cells: [$2, $3, $4]}
velocity: {temperature: 1.44, seed: 87287}
potential:
  style: lj/cut
  cutoff: 2.5
  coeffs:
    - {types: [1, 1], epsilon: 1.0, sigma: 1.0}
neighbor: {skin: 0.3, every: 20, delay: 0, check: false}
integrator: {style: nve, dt: 0.005}
run: {steps: $steps}
output:
  thermo: {every: $steps, screen: false}
YAML
}
# loop_time NRANKS DECK: median "Loop time" over the repetitions, and the
# communication share of rank 0's phase time from the last run.
loop_time() {
  local n=$1 d=$2 times=() log
  for _ in $(seq "$reps"); do
    log=$work/run.log
    if [ "$n" -eq 1 ]; then "$bin" run "$d" --threads 1 > "$log" 2>&1
    else mpirun -np "$n" "$bin" run "$d" --threads 1 > "$log" 2>&1; fi
    times+=("$(awk '/^Loop time of/ { print $4 }' "$log")")
  done
  awk '$1 == "Communicate" && NF == 3 { c = $3 } END { print c }' "$log" > "$work/comm"  # (a subshell: via a file)
  printf '%s\n' "${times[@]}" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}

{
  echo "# CPU scaling over MPI ranks"
  echo
  echo "- Machine: $(lscpu | awk -F: '/Model name/ { gsub(/^ +/, "", $2); print $2 }'), $(nproc) cores"
  echo "- Commit: $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet || echo ' (tree modified)')"
  echo "- Command: benchmarks/scaling/run.sh $* ($reps repetitions, median; $steps steps; one thread per rank)"
  echo "- Binary: $("$bin" --version | head -1)"
  echo
  echo "| kind | ranks | atoms | loop time (s) | atom-steps/s | efficiency | communicate % (rank 0) |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
} > "$out.tmp"
for kind in strong weak; do
  t1=""
  for n in $(seq 1 "$nmax"); do
    if [ "$kind" = strong ]; then deck "$work/d.yaml" 40 40 40; atoms=256000
    else deck "$work/d.yaml" 40 40 $((20 * n)); atoms=$((128000 * n)); fi
    t=$(loop_time "$n" "$work/d.yaml")
    comm=$(cat "$work/comm")
    [ -n "$t1" ] || t1=$t
    if [ "$kind" = strong ]; then eff=$(awk -v a="$t1" -v b="$t" -v n="$n" 'BEGIN { printf "%.3f", a / (n * b) }')
    else eff=$(awk -v a="$t1" -v b="$t" 'BEGIN { printf "%.3f", a / b }'); fi
    rate=$(awk -v a="$atoms" -v t="$t" -v s="$steps" 'BEGIN { printf "%.3g", a * s / t }')
    echo "| $kind | $n | $atoms | $t | $rate | $eff | ${comm:-?} |" >> "$out.tmp"
    echo "$kind $n ranks: $t s, $rate atom-steps/s, efficiency $eff"
  done
done
mv "$out.tmp" "$out"
echo "wrote $out"
