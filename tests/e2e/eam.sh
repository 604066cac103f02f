#!/usr/bin/env bash
# EAM (issue 30) through the command line, CPU backend: a hot Cu-Ni alloy
# (eam/alloy, CuNi.eam.alloy from lammps-data) on 2, 3, 4 and 8 ranks gives
# the one-rank thermo to 1e-10 for 20 steps (the embedding derivative
# reaches ghosts across ranks between the passes); funcfl (Cu_u3.eam) on 4
# ranks too; a run split by a checkpoint (one rank and 2 -> 2 ranks)
# continues bitwise, and 2 -> 3 ranks to rounding; the masses come from the
# potential file; a broken potential file stops the run with exit 2
# naming its line.
set -uo pipefail
# shellcheck source=/dev/null
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bin=$(realpath "$1")
src=$(realpath "$2")
py=/usr/bin/python3
pot=/usr/share/lammps/potentials
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mpi() { mpirun -np "$1" --oversubscribe "$bin" run "${@:2}" --threads 1; }

# eam_deck FILE STEPS POTENTIAL [OUTPUT...]: 2,048 atoms (8^3 fcc cells,
# a = 3.56 A, types 1 and 2 alternating in the basis) at 3000 K: wide enough
# for a 3 x 1 x 1 grid (9.5 A sub-boxes against a reach of 8.4 A), hot
# enough that atoms cross sub-boxes within 20 steps.
eam_deck() {
  local file=$1 steps=$2 potential=$3
  shift 3
  {
    echo "units: metal"
    echo "system:"
    echo "  lattice: {style: fcc, constant: 3.56, cells: [8, 8, 8], basis_types: [1, 2, 1, 2]}"
    echo "  masses: [63.546, 58.6934]"
    echo "velocity: {temperature: 3000, seed: 4711}"
    echo "potential: $potential"
    echo "neighbor: {skin: 2.0}"
    echo "integrator: {style: nve, dt: 0.002}"
    echo "run: {steps: $steps}"
    echo "output:"
    echo "  thermo: {every: 1, file: ${file%.yaml}.csv}"
    for line in "$@"; do echo "  $line"; done
  } > "$file"
}
alloy="{style: eam/alloy, file: $pot/CuNi.eam.alloy, elements: [Cu, Ni]}"
funcfl="{style: eam, file: [$pot/Cu_u3.eam, $pot/Cu_u3.eam]}"

eam_deck alloy.yaml 20 "$alloy"
"$bin" run alloy.yaml --threads 1 > serial.out 2>&1
check "one rank runs" test $? -eq 0
check "the banner names the style and the file's cutoff" grep -q "^Potential  eam/alloy cutoff 6.394332378" serial.out
cp alloy.csv serial.csv
# Under the sanitizers 2 and 8 ranks: one cut and every axis cut.
for np in $(sized "2 3 4 8" "2 8"); do
  mpi "$np" alloy.yaml > "np$np.out" 2>&1
  check "eam/alloy, $np ranks: exit 0" test $? -eq 0
  check "eam/alloy, $np ranks: thermo equals one rank's to 1e-10" same_thermo serial.csv alloy.csv 21
done

eam_deck cu.yaml 20 "$funcfl"
"$bin" run cu.yaml --threads 1 > cu1.out 2>&1
check "eam (funcfl), one rank runs" test $? -eq 0
cp cu.csv cu-serial.csv
mpi 4 cu.yaml > cu4.out 2>&1
check "eam (funcfl), 4 ranks: thermo equals one rank's to 1e-10" same_thermo cu-serial.csv cu.csv 21

# Checkpoints: 40 steps straight, and 20 + restart + 20, on one rank and on
# two; the forces are recomputed from the positions, so nothing of EAM's
# needs storing for the continuation to be bitwise.
for np in 1 2; do
  run() { if [ "$np" = 1 ]; then "$bin" run "$@" --threads 1; else mpi "$np" "$@"; fi; }
  eam_deck "straight$np.yaml" 40 "$alloy" "checkpoint: {every: 20, path: straight$np.ckpt}"
  run "straight$np.yaml" > "straight$np.out" 2>&1
  check "$np rank(s): 40 straight steps exit 0" test $? -eq 0
  eam_deck "split$np.yaml" 20 "$alloy" "checkpoint: {every: 20, path: split$np.ckpt}"
  run "split$np.yaml" --restart auto > "split$np-1.out" 2>&1
  eam_deck "split$np.yaml" 40 "$alloy" "checkpoint: {every: 20, path: split$np.ckpt}"
  run "split$np.yaml" --restart auto > "split$np-2.out" 2>&1
  check "$np rank(s): the split run restarts at 20" grep -q "Restarted from split$np.ckpt/ckpt-000000000020.h5 at step 20" \
    "split$np-2.out"
  check "$np rank(s): final state bitwise identical" $py "$src/tests/e2e/compare_checkpoints.py" \
    "straight$np.ckpt/ckpt-000000000040.h5" "split$np.ckpt/ckpt-000000000040.h5"
  check "$np rank(s): thermo CSV identical" cmp -s "straight$np.csv" "split$np.csv"
done

# N -> M: the two-rank checkpoint at step 20 continued on three ranks
# follows the straight two-rank run to rounding (a different sum order).
cp split2.ckpt/ckpt-000000000020.h5 nm.h5
eam_deck nm.yaml 40 "$alloy"
mpi 3 nm.yaml --restart nm.h5 > nm.out 2>&1
check "2 -> 3 ranks: the continuation exits 0" test $? -eq 0
tail -n 20 straight2.csv > straight-tail.csv && sed -i "1i $(head -n 1 straight2.csv)" straight-tail.csv
check "2 -> 3 ranks: steps 21..40 equal the straight run's to 1e-10" same_thermo straight-tail.csv nm.csv 20

# Masses from the potential file, as LAMMPS's pair_coeff sets them: a Cu
# deck with no masses runs with Cu_u3.eam's 63.55 (the data file it writes
# says so); the deck's textbook 63.546 gives a note naming both and the
# file, and the very same run (with 63.546 the velocities, drawn for a
# temperature, and so the whole trajectory would differ).
cu_deck() {  # cu_deck FILE [MASSES LINE]
  {
    echo "units: metal"
    echo "system:"
    echo "  lattice: {style: fcc, constant: 3.615, cells: [6, 6, 6]}"
    [ -z "${2:-}" ] || echo "  $2"
    echo "velocity: {temperature: 600, seed: 99}"
    echo "potential: {style: eam, file: $pot/Cu_u3.eam}"
    echo "integrator: {style: nve, dt: 0.002}"
    echo "run: {steps: 20}"
    echo "output:"
    echo "  thermo: {every: 5, file: ${1%.yaml}.csv}"
    echo "  data: {file: ${1%.yaml}.data}"
  } > "$1"
}
cu_deck nomass.yaml
"$bin" run nomass.yaml --threads 1 > nomass.out 2>&1
check "no masses in the deck: the run exits 0" test $? -eq 0
check "no masses: the data file it writes has Cu_u3.eam's 63.55" \
  awk '/^Masses/ { getline; getline; found = 1; exit !($1 == 1 && $2 == 63.55) } END { if (!found) exit 1 }' nomass.data
check "no masses: no note" bash -c '! grep -q "note:" nomass.out'
cu_deck textbook.yaml "masses: [63.546]"
"$bin" run textbook.yaml --threads 1 > textbook.out 2>&1
check "deck mass 63.546: the run exits 0" test $? -eq 0
check "deck mass 63.546: one note naming type, both masses, key and file" test "$(grep -c \
  "^tessera: note: type 1 has mass 63.546 in textbook.yaml:4:11: system.masses, but the potential file $pot/Cu_u3.eam gives 63.55: the run uses 63.55" \
  textbook.out)" -eq 1
check "deck mass 63.546: the file's mass wins (thermo identical to the run without masses)" cmp -s nomass.csv textbook.csv

# A potential file with a word where a number belongs: exit 2, file:line.
sed '14s/^ *[^ ]*/x1.5/' "$pot/CuNi.eam.alloy" > broken.eam.alloy
eam_deck broken.yaml 20 "{style: eam/alloy, file: broken.eam.alloy, elements: [Cu, Ni]}"
"$bin" run broken.yaml > broken.out 2>&1
check "broken potential file: exit 2" test $? -eq 2
check "broken potential file: the message names file and line" grep -q "broken.eam.alloy:14: 'x1.5' is not a number" broken.out

exit $fail
