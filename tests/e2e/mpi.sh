#!/usr/bin/env bash
# Domain decomposition over MPI ranks (issue 5), CPU backend, oversubscribed:
# 2, 3, 4 and 8 ranks give the one-rank thermo to 1e-10 relative for 20
# steps; a given uneven grid (3 x 1 x 1) too; a long run keeps every atom
# (the count and id checksums are verified at every rebuild); bad grids are
# refused with exit 2; `tessera plan` predicts each layout's ghosts and halo
# traffic exactly; half lists agree with full ones on 1, 2 and 4 ranks and
# are bitwise the same on 1 and 2 threads, and so is the CPU's cluster
# layout; mixed precision on full rows follows double and agrees across
# rank counts.
set -uo pipefail
# shellcheck source=/dev/null
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bin=$(realpath "$1")
src=$(realpath "$2")
py=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mpi() { mpirun -np "$1" --oversubscribe "$bin" run "${@:2}" --threads 1; }

# The LJ melt (32,000 atoms), 20 steps, thermo every step. Under the
# sanitizers 10^3 cells (4,000 atoms): 8 ranks still get a 2 x 2 x 2 grid of
# sub-boxes wider than the reach, and every rank count, grid and check runs.
cells=$(sized 20 10)
natoms=$((4 * cells * cells * cells))
sed -e 's/every: 10, file: lj-melt.thermo.csv/every: 1, file: melt.csv/' -e 's/steps: 100/steps: 20/' \
  -e "s/cells: \[20, 20, 20\]/cells: [$cells, $cells, $cells]/" "$src/inputs/lj-melt.yaml" > melt.yaml
"$bin" run melt.yaml --threads 1 > serial.out 2>&1
check "one rank runs" test $? -eq 0
cp melt.csv serial.csv
# Nothing sets a thread count (no --threads, no OMP_NUM_THREADS): a process
# takes every CPU it may run on; ranks that may run on the same CPUs share
# them (default_thread_count), where OpenMP's own default gave each of them
# all, oversubscribing the node.
cpus=$(nproc)
env -u OMP_NUM_THREADS "$bin" run melt.yaml > threads-default.out 2>&1
check "no thread count given, 1 process: $cpus thread(s), chosen from its CPUs" \
  grep -Eq "^Threads +$cpus OpenMP threads? per rank \(chosen: CPUs [0-9,-]+\)," threads-default.out
each=$((cpus / 2 > 0 ? cpus / 2 : 1))
env -u OMP_NUM_THREADS mpirun -np 2 --bind-to none "$bin" run melt.yaml > threads-shared.out 2>&1
check "no thread count given, 2 unbound ranks: $each thread(s) each, the CPUs shared" \
  grep -Eq "^Threads +$each OpenMP threads? per rank \(chosen: CPUs [0-9,-]+ shared by 2 ranks of this node\)," \
  threads-shared.out
check "no thread count given, 2 unbound ranks: thermo equals one rank's to 1e-10" same_thermo serial.csv melt.csv 21
env -u OMP_NUM_THREADS OMP_NUM_THREADS=1 "$bin" run melt.yaml > threads-env.out 2>&1
check "OMP_NUM_THREADS=1 is obeyed, and the header says nothing was chosen" \
  grep -Eq "^Threads +1 OpenMP thread per rank, " threads-env.out

for np in 2 3 4 8; do
  mpi "$np" melt.yaml > "np$np.out" 2>&1
  check "$np ranks: exit 0" test $? -eq 0
  check "$np ranks: banner shows the rank grid and host map" grep -q "^Ranks      $np MPI ranks on a" "np$np.out"
  check "$np ranks: thermo equals one rank's to 1e-10" same_thermo serial.csv melt.csv 21
  check "$np ranks: per-rank table of $np ranks" grep -q "^Per rank .*($np ranks)" "np$np.out"
  check "$np ranks: per-rank atoms average $natoms/$np" \
    awk -v np="$np" -v n="$natoms" '/^Per rank/ { t = 1 } t && $1 == "Atoms" { found = 1; ok = ($3 == sprintf("%.0f", n / np)) }
      END { exit !(found && ok) }' "np$np.out"
done

# Half lists (neighbor.list: half) and the CPU's cluster layout
# (neighbor.layout: clusters, each pair once in 4 x 4 blocks): the one-rank
# full-list thermo to 1e-10 on 1 and on 2 and 4 ranks, and bitwise the same
# on 1 and 2 threads.
layout_checks() {  # name, deck key, banner text
  local n=$1
  sed -e "s/neighbor: {skin: 0.3,/neighbor: {skin: 0.3, $2,/" melt.yaml > "$n.yaml"
  "$bin" run "$n.yaml" --threads 1 > "${n}1.out" 2>&1
  check "$n, 1 rank: exit 0" test $? -eq 0
  check "$n: the banner says so" grep -q "^Backend .*, $3" "${n}1.out"
  check "$n, 1 rank: thermo equals the full list's to 1e-10" same_thermo serial.csv melt.csv 21
  cp melt.csv "${n}1.csv"
  OMP_NUM_THREADS=2 "$bin" run "$n.yaml" --threads 2 > "${n}2.out" 2>&1
  check "$n, 2 threads: thermo bitwise the 1-thread run's" cmp -s "${n}1.csv" melt.csv
  for np in 2 4; do
    mpi "$np" "$n.yaml" > "$n-np$np.out" 2>&1
    check "$n, $np ranks: thermo equals one rank's full-list thermo to 1e-10" same_thermo serial.csv melt.csv 21
  done
}
layout_checks half "list: half" "half neighbour list"
layout_checks clusters "layout: clusters" "cluster-pair neighbour list"

# Mixed precision on full rows: every rank quantises positions alike (the
# quantum comes from the cutoff alone), so 2 and 4 ranks follow one rank's
# mixed run to the rounding of row orders, and one rank follows double.
cp melt.yaml mixed.yaml
echo "precision: mixed" >> mixed.yaml
"$bin" run mixed.yaml --threads 1 > mixed1.out 2>&1
check "mixed rows, 1 rank: exit 0" test $? -eq 0
check "mixed rows: the banner says so" grep -q "^Backend .*, mixed precision.*full neighbour list" mixed1.out
check "mixed rows, 1 rank: thermo within 1e-5 of double" same_thermo serial.csv melt.csv 21 1e-5
cp melt.csv mixed1.csv
OMP_NUM_THREADS=2 "$bin" run mixed.yaml --threads 2 > mixed2.out 2>&1
check "mixed rows, 2 threads: thermo bitwise the 1-thread run's" cmp -s mixed1.csv melt.csv
for np in 2 4; do
  mpi "$np" mixed.yaml > "mixed-np$np.out" 2>&1
  check "mixed rows, $np ranks: thermo within 1e-6 of one rank's mixed thermo" same_thermo mixed1.csv melt.csv 21 1e-6
done

# The halo the plan predicts is the one the run builds: rank 0's ghosts and
# the ghost positions it receives per step by message (a 1-step run, so the
# run's figures are those of its first build, from the positions the plan
# reads). Under the sanitizers 8 ranks only: this checks the plan's
# arithmetic, which the loop above already runs sanitized on every layout.
sed -e 's/steps: 20/steps: 1/' melt.yaml > one.yaml
for np in $(sized "2 3 4 8" 8); do
  mpi "$np" one.yaml > "one$np.out" 2>&1
  "$bin" plan one.yaml --gpus "$np" > "plan$np.out" 2>&1
  planned=$(awk '$1 == "0" && $2 ~ /^\(/ { print $4, $8 }' "plan$np.out")
  ran=$(awk '/ghost atoms: / { sub(/.*ghost atoms: /, ""); g = $1 }
    /^Halo per step: / { r = $4 } END { print g, r }' "one$np.out")
  check "$np ranks: the plan's ghosts and halo per step for rank 0 ($planned) are the run's ($ran)" \
    test -n "$planned" -a "$planned" = "$ran"
  pm=$(sed -n 's/^Halo per step: .* in \([0-9]*\) messages.*/\1/p' "plan$np.out")
  rm=$(sed -n 's/^Halo per step: .* received in \([0-9]*\) messages.*/\1/p' "one$np.out")
  check "$np ranks: the plan's messages per step ($pm) are the run's ($rm)" test -n "$pm" -a "$pm" = "$rm"
done

# An uneven grid given in the deck.
{ cat melt.yaml; echo "decomposition: [3, 1, 1]"; } > uneven.yaml
mpi 3 uneven.yaml > uneven.out 2>&1
check "decomposition [3, 1, 1]: exit 0" test $? -eq 0
check "decomposition [3, 1, 1]: used" grep -q "on a 3 x 1 x 1 grid" uneven.out
check "decomposition [3, 1, 1]: thermo equals one rank's" same_thermo serial.csv melt.csv 21

# Many rebuilds and migrations: 2,048 atoms, hot, 3,000 steps on 4 ranks.
# Under the sanitizers 864 atoms and 500 steps: the same migrations and
# rebuilds, each path still taken dozens of times.
long_steps=$(sized 3000 500) long_label=$(sized 3,000 500)
lj_deck long.yaml --steps "$long_steps" --temperature 3.0 --seed 11 --cells "$(sized 8 6)" \
  --integrator "{style: langevin, dt: 0.005, temperature: 3.0, damping: 0.5, seed: 2}" \
  "thermo: {every: $(sized 1000 500), file: long.csv}"
mpi 4 long.yaml > long.out 2>&1
check "4 ranks, $long_label hot steps: every atom kept (exit 0)" test $? -eq 0
check "4 ranks, $long_label hot steps: reached the last step" grep -q "^$long_steps," long.csv

# Refusals.
{ cat melt.yaml; echo "decomposition: [2, 2, 1]"; } > wrongcount.yaml
mpi 2 wrongcount.yaml > wrongcount.out 2>&1
check "decomposition for 4 ranks on 2: exit 2" test $? -eq 2
check "decomposition for 4 ranks on 2: says so" grep -q "decomposition: 2 x 2 x 1 = 4 ranks, but the run has 2" wrongcount.out
# Under the sanitizers a 4^3-cell lattice, too thin on 3 ranks already: the
# same refusal, without starting 16 sanitized processes (7 for the 4,000
# atoms above), each of which costs seconds to start.
thin=$(sized 16 3)
if sanitized; then
  sed -e 's/cells: \[[0-9]*, [0-9]*, [0-9]*\]/cells: [4, 4, 4]/' melt.yaml > thin.yaml
else
  cp melt.yaml thin.yaml
fi
echo "decomposition: [1, 1, $thin]" >> thin.yaml
mpi "$thin" thin.yaml > thin.out 2>&1
check "sub-boxes thinner than the reach: exit 2" test $? -eq 2
check "sub-boxes thinner than the reach: says so" grep -q "thinner than cutoff + skin" thin.out
exit $fail
