#!/usr/bin/env bash
# A table of hashes of what the engine writes (thermo CSV, checkpoints, H5MD,
# LAMMPS dump, extended XYZ) for the example decks and the test decks, on
# the CPU backend (double and mixed precision) and the device pipeline of
# Thrust's OpenMP system (double and mixed), 1 and 2 ranks. Made before and after a change that must not change results
# (issue 27): the two tables must be equal line for line.
#   bash scripts/output-hashes.sh TESSERA TESSERA_HOSTDEV OUT.tsv
# HDF5 files are hashed by content (every dataset's bytes and every
# attribute, in name order), not by file bytes: the file format leaves room
# for free space and object addresses that change with nothing the engine
# means. Attributes that record when and by what a file was made (wall-clock
# times, host, build) are left out: tools/h5_content_hash.py lists them.
set -euo pipefail
bin=$(realpath "$1")
hostdev=$(realpath "$2")
out=$(realpath -m "$3")
src=$(cd "$(dirname "$0")/.." && pwd)
py=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE

# Extra outputs added to every deck: a dump and an extended XYZ every 10
# steps, an H5MD trajectory and a checkpoint at the end.
add_outputs() {  # add_outputs DECK STEPS BACKEND_LINES
  "$py" - "$1" "$2" "$3" <<'EOF'
import sys, re
path, steps, backend = sys.argv[1], int(sys.argv[2]), sys.argv[3]
text = open(path).read()
text = re.sub(r"(?m)^(backend|precision|threads):.*$", "", text)
text = backend.replace(";", "\n") + "\n" + text
text = re.sub(r"(?m)^run:.*$", "run: {steps: %d}" % steps, text)
text = re.sub(r"(?ms)^output:.*?(?=^\S|\Z)", "", text)
text = re.sub(r"(?m)^restart:.*$", "", text)
text += """
output:
  thermo: {every: 5, file: thermo.csv, screen: false}
  trajectory: {every: 10, file: traj.h5md, fields: [position, velocity, image, force]}
  dump: {every: 10, file: traj.dump}
  xyz: {every: 10, file: traj.xyz}
  checkpoint: {every: %d, path: ck, keep: 1}
""" % steps
open(path, "w").write(text)
EOF
}

hash_outputs() {  # hash_outputs LABEL DIR
  local label=$1 dir=$2 f
  for f in thermo.csv traj.dump traj.xyz; do
    if [[ -f $dir/$f ]]; then
      # The thermo CSV's wall-clock columns, if any, are not results.
      printf '%s\t%s\t%s\n' "$label" "$f" "$(sha256sum < "$dir/$f" | cut -c1-16)"
    fi
  done
  printf '%s\t%s\t%s\n' "$label" traj.h5md "$("$py" "$src/tools/h5_content_hash.py" "$dir/traj.h5md")"
  local ck
  ck=$(find "$dir/ck" -name '*.h5' -o -name '*.ckpt' | sort | tail -n 1)
  printf '%s\t%s\t%s\n' "$label" checkpoint "$("$py" "$src/tools/h5_content_hash.py" "$ck")"
}

run_case() {  # run_case LABEL DECK STEPS ENGINE RANKS BACKEND_LINES [DATA]
  local label=$1 deck=$2 steps=$3 engine=$4 ranks=$5 backend=$6 data=${7:-}
  local dir=$work/$label
  mkdir -p "$dir"
  cp "$deck" "$dir/deck.yaml"
  [[ -n $data ]] && cp "$data" "$dir/"
  add_outputs "$dir/deck.yaml" "$steps" "$backend"
  local cmd=("$engine" run deck.yaml)
  if ((ranks > 1)); then
    cmd=(mpirun --oversubscribe --allow-run-as-root -np "$ranks" "${cmd[@]}")
  fi
  if ! (cd "$dir" && "${cmd[@]}" > run.log 2>&1); then
    echo "output-hashes: $label failed:" >&2
    tail -n 20 "$dir/run.log" >&2
    exit 1
  fi
  hash_outputs "$label" "$dir"
}

decks=$work/decks
mkdir -p "$decks"
# The example decks at test size (fewer cells), as tests/e2e/examples.sh does.
sed -e 's/cells: \[20, 20, 20\]/cells: [8, 8, 8]/' "$src/inputs/lj-melt.yaml" > "$decks/lj-melt.yaml"
sed -e 's/cells: \[10, 10, 10\]/cells: [6, 6, 6]/' "$src/inputs/lj-nve-production.yaml" > "$decks/lj-nve.yaml"
sed -e 's/cells: \[[0-9, ]*\]/cells: [6, 6, 6]/' "$src/inputs/morse-heat.yaml" > "$decks/morse-heat.yaml"
sed -e 's/cells: \[[0-9, ]*\]/cells: [6, 6, 6]/' "$src/inputs/lj-nvt-equilibrate.yaml" > "$decks/lj-nvt.yaml"
cp "$src/tests/fuzz/corpus/deck/langevin-mixture.yaml" "$decks/morse-mixture-langevin.yaml"
# The LAMMPS validation systems of tests/reference, read from their data files.
cat > "$decks/lj-data.yaml" <<'EOF'
units: lj
system: {read_data: lj_melt.data}
potential:
  style: lj/cut
  cutoff: 2.5
  coeffs:
    - {types: [1, 1], epsilon: 1.0, sigma: 1.0}
neighbor: {skin: 0.3}
integrator: {style: nve, dt: 0.005}
run: {steps: 10}
EOF
cat > "$decks/mix-data.yaml" <<'EOF'
units: lj
system: {read_data: mix_melt.data}
potential:
  style: lj/cut
  cutoff: 2.5
  mixing: arithmetic
  coeffs:
    - {types: [1, 1], epsilon: 1.0, sigma: 1.0}
    - {types: [2, 2], epsilon: 0.5, sigma: 1.2, cutoff: 2.2}
neighbor: {skin: 0.3, layout: clusters}
integrator: {style: nose-hoover, dt: 0.005, temperature: 1.2, damping: 0.5}
run: {steps: 10}
EOF
cat > "$decks/morse-data.yaml" <<'EOF'
units: lj
system: {read_data: morse_melt.data}
potential:
  style: morse
  cutoff: 2.5
  coeffs:
    - {types: [1, 1], d0: 1.0, alpha: 5.0, r0: 1.1}
neighbor: {skin: 0.3}
integrator: {style: langevin, dt: 0.005, temperature: 1.0, damping: 0.5, seed: 3}
run: {steps: 10}
EOF
sed -e 's/style: lj\/cut/style: lj\/smooth\/linear/' "$decks/lj-data.yaml" > "$decks/lj-smooth-data.yaml"

: > "$out"
for deck in lj-melt lj-nve morse-heat lj-nvt morse-mixture-langevin lj-data mix-data morse-data lj-smooth-data; do
  data=
  case $deck in
    lj-data|lj-smooth-data) data=$src/tests/reference/lj_melt.data ;;
    mix-data) data=$src/tests/reference/mix_melt.data ;;
    morse-data) data=$src/tests/reference/morse_melt.data ;;
  esac
  for ranks in 1 2; do
    run_case "$deck.cpu.$ranks" "$decks/$deck.yaml" 40 "$bin" "$ranks" "backend: cpu" "$data" >> "$out"
    run_case "$deck.cpumixed.$ranks" "$decks/$deck.yaml" 40 "$bin" "$ranks" "backend: cpu;precision: mixed" "$data" >> "$out"
    run_case "$deck.device.$ranks" "$decks/$deck.yaml" 40 "$hostdev" "$ranks" "backend: cuda" "$data" >> "$out"
    run_case "$deck.mixed.$ranks" "$decks/$deck.yaml" 40 "$hostdev" "$ranks" "backend: cuda;precision: mixed" "$data" >> "$out"
  done
  echo "output-hashes: $deck done" >&2
done
echo "output-hashes: $(wc -l < "$out") hashes in $out" >&2
