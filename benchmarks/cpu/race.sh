#!/usr/bin/env bash
# Races Tessera against LAMMPS on the same cores, alternating the two so that
# load from other processes hits both alike, and prints the median atom-steps/s.
# Usage: race.sh TESSERA DECK IN_LJ THREADS REPEATS [tessera-only|lammps-only]
# THREADS OpenMP threads for Tessera vs THREADS MPI ranks for LAMMPS; LAMMPS
# runs with and without -sf opt and the faster of the two medians counts.
set -euo pipefail
tessera=$1 deck=$2 inlj=$3 n=$4 reps=$5 only=${6:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
rate() {  # atom-steps/s from a "Loop time of T ... for S steps with N atoms" line
  awk '/^Loop time of/ {for (k = 1; k <= NF; ++k) {if ($k == "of" && t == "") t = $(k+1); if ($k == "for") s = $(k+1); if ($k == "with") a = $(k+1)}; printf "%.4g\n", s * a / t}'
}
lmp() {
  if [ "$n" -eq 1 ]; then (cd "$work" && /usr/bin/lmp -in "$inlj" -log none -screen none -echo none "$@" -log lmp.log >/dev/null; rate <lmp.log)
  else (cd "$work" && mpirun -np "$n" --oversubscribe /usr/bin/lmp -in "$inlj" -screen none "$@" -log lmp.log >/dev/null; rate <lmp.log); fi
}
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
: >"$work/t" ; : >"$work/l" ; : >"$work/o"
for ((r = 0; r < reps; ++r)); do
  if [ "$only" != lammps-only ]; then
    (cd "$work" && "$tessera" run "$deck" --threads "$n" | rate) | tee -a "$work/t" | sed 's/^/tessera /'
  fi
  if [ "$only" != tessera-only ]; then
    lmp | tee -a "$work/l" | sed 's/^/lammps lj\/cut /'
    lmp -sf opt | tee -a "$work/o" | sed 's/^/lammps lj\/cut\/opt /'
  fi
done
echo "median tessera $(median <"$work/t") lammps $(median <"$work/l") lammps-opt $(median <"$work/o")"
