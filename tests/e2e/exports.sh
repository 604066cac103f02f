#!/usr/bin/env bash
# Text trajectories for viewers (issue 9, item 6): output.dump (LAMMPS dump
# custom) and output.xyz (extended XYZ), from 500 atoms of two types.
#  - Other programs' readers (a plain float64 parse and MDAnalysis for the
#    dump, ASE and MDAnalysis for the XYZ) get the run's own H5MD frames back:
#    steps, times, box, ids, types, and positions, image flags, velocities and
#    forces bit for bit (MDAnalysis to its float32). A value one ulp off is
#    noticed.
#  - Under npt (aniso) every frame of H5MD, dump and XYZ carries that step's
#    box, the thermo's lx ly lz; MDAnalysis reads it per frame from H5MD too.
#  - 20 steps + restart + 20 steps write the same bytes as 40 straight, also
#    after a run that died past its last checkpoint (frames after it, half a
#    frame and half a thermo line at the end). A file with other columns is
#    refused on restart (exit 2) and left as it was.
#  - 4 ranks write what one rank writes (ids, types, steps, box exactly;
#    positions to 1e-6 of the box, as the H5MD MPI test), and their own H5MD
#    frames bit for bit; on 2 ranks a run split by a restart gives the files
#    of the straight run byte for byte, and a refused file stops both ranks.
# `exports.sh BIN SRC lammps` instead has LAMMPS rerun the dump (read_dump
# of x y z vx vy vz, box and types) and compares its temp, pe, ke, etotal
# and press per frame with tessera's thermo at those steps. It exits 77
# (skipped) when LAMMPS is not installed (LMP, default /usr/bin/lmp); the
# test installs nothing.
set -uo pipefail
# shellcheck source=/dev/null
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bin=$(realpath "$1")
src=$(realpath "$2")
part=${3:-main}
py=/usr/bin/python3
checker="$src/tests/e2e/exports_check.py"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

all_fields="[position, unwrapped, image, velocity, force]"
names="species: [Ar, Kr]"
# deck YAML STEPS BASE [DUMP_FIELDS [XYZ_SPECIES]]: 500 atoms (125 of type 2),
# NVE; thermo, H5MD, dump and XYZ every 10 steps, a checkpoint every 20;
# files BASE.*.
deck() {
  cat > "$1" <<YAML
system:
  lattice: {style: fcc, density: 0.8442, cells: [5, 5, 5], basis_types: [1, 1, 1, 2]}
  masses: [1.0, 2.0]
velocity: {temperature: 1.44, seed: 87287}
potential:
  style: lj/cut
  cutoff: 2.5
  shift: true
  coeffs:
    - {types: [1, 1], epsilon: 1.0, sigma: 1.0}
    - {types: [2, 2], epsilon: 1.2, sigma: 1.05}
integrator: {style: nve, dt: 0.005}
run: {steps: $2}
output:
  thermo: {every: 10, file: $3.csv, screen: false}
  checkpoint: {every: 20, path: $3.ckpt}
  trajectory: {every: 10, file: $3.h5md, fields: [position, velocity, image, force]}
  dump: {every: 10, file: $3.lammpstrj, fields: ${4:-$all_fields}}
  xyz: {every: 10, file: $3.xyz, fields: [position, velocity, force, image], ${5-$names}}
YAML
}

if [ "$part" = lammps ]; then
  lmp=${LMP:-/usr/bin/lmp}
  if ! command -v "$lmp" > /dev/null; then
    echo "skip: LAMMPS ($lmp) is not installed; set LMP to its binary to run this test"
    exit 77
  fi
  deck lmp.yaml 40 lmp
  run_ranks 1 lmp.yaml > lmp.out 2>&1
  check "tessera run for LAMMPS: exit 0" test $? -eq 0
  # The deck's system and potential; the atoms, their types and the box come
  # from the dump (read_dump adds the atoms of the first frame).
  cat > in.rerun <<'LMP'
units lj
atom_style atomic
atom_modify map array
boundary p p p
region box block 0 1 0 1 0 1
create_box 2 box
mass 1 1.0
mass 2 2.0
pair_style lj/cut 2.5
pair_modify shift yes mix arithmetic
pair_coeff 1 1 1.0 1.0
pair_coeff 2 2 1.2 1.05
thermo 10
thermo_style custom step temp pe ke etotal press atoms
thermo_modify norm yes format float %.17g
rerun lmp.lammpstrj dump x y z vx vy vz box yes add yes
LMP
  OMP_NUM_THREADS=1 "$lmp" -nocite -in in.rerun -log lmp.log -screen none
  check "LAMMPS reruns the dump: exit 0" test $? -eq 0
  # Tolerance: LAMMPS sums pairs once each (half list, Newton's third law),
  # tessera from both ends (full list), so the sums agree to rounding,
  # ~1e-14 here; 1e-12 leaves room for that and nothing else. A wrong
  # column, type, id or box would be off by far more.
  check "LAMMPS: temp, pe, ke, etotal, press of every frame equal tessera's thermo to 1e-12" $py - lmp.log lmp.csv <<'PY'
import sys
import numpy as np
rows, table = [], False
for line in open(sys.argv[1]):
    words = line.split()
    if words[:1] == ["Step"]:
        table = True
    elif table and words and words[0].isdigit():
        rows.append([float(w) for w in words])
    elif table and line.startswith("Loop time"):
        break
lmp = np.array(rows)
ours = np.genfromtxt(sys.argv[2], delimiter=",", names=True)
assert lmp[:, 0].tolist() == ours["step"].tolist() == list(range(0, 41, 10)), (lmp[:, 0], ours["step"])
assert lmp[:, 6].tolist() == [500] * 5, "LAMMPS did not read 500 atoms per frame"
worst = 0.0
for k, name in enumerate(("temp", "pe", "ke", "etotal", "press"), start=1):
    a, b = lmp[:, k], ours[name]
    rel = float(np.max(np.abs(a - b) / np.maximum(np.maximum(np.abs(a), np.abs(b)), 1.0)))
    print(f"  {name:7s} max relative difference {rel:.2e}")
    worst = max(worst, rel)
sys.exit(0 if worst <= 1e-12 else 1)
PY
  exit $fail
fi

# bump FILE OUT LINE COLUMN: FILE with one number (1-based line and column)
# moved to the next double up.
bump() {
  $py - "$@" <<'PY'
import math, sys
path, out, line, column = sys.argv[1], sys.argv[2], int(sys.argv[3]) - 1, int(sys.argv[4]) - 1
lines = open(path).read().split("\n")
words = lines[line].split()
words[column] = repr(math.nextafter(float(words[column]), math.inf))
lines[line] = " ".join(words)
open(out, "w").write("\n".join(lines))
PY
}

# Readers.
deck one.yaml 40 one
run_ranks 1 one.yaml > one.out 2>&1
check "one rank: exit 0" test $? -eq 0
check "readers: dump and XYZ give back the H5MD frames" $py "$checker" one.h5md one.lammpstrj one.xyz 0.005 Ar Kr
# Frame 2 (step 10): the dump's 7th atom row (frame 509 lines, 9 before the
# rows), x; the XYZ's 3rd atom row (frame 502 lines, 2 before), vy.
bump one.lammpstrj bumped.lammpstrj $((509 + 9 + 7)) 3
bump one.xyz bumped.xyz $((502 + 2 + 3)) 9
$py "$checker" one.h5md bumped.lammpstrj one.xyz 0.005 Ar Kr > bumped-dump.out 2>&1
check "readers: an x one ulp off in the dump is noticed" test $? -eq 1
$py "$checker" one.h5md one.lammpstrj bumped.xyz 0.005 Ar Kr > bumped-xyz.out 2>&1
check "readers: a vy one ulp off in the XYZ is noticed" test $? -eq 1

# A moving box (npt, aniso: each side its own): every frame of H5MD, dump
# and XYZ carries that frame's box, which is the thermo's lx ly lz at that
# step, and MDAnalysis reads it per frame from the H5MD file too.
deck npt.yaml 40 npt
sed -i -e 's/^integrator: .*/integrator: {style: npt, dt: 0.005, temperature: 1.44, damping: 0.2, pressure: 2.0, pressure_damping: 0.25, coupling: aniso}/' \
  -e 's/thermo: {every: 10, file: npt.csv, screen: false}/thermo: {every: 10, file: npt.csv, screen: false, columns: [step, lx, ly, lz]}/' npt.yaml
run_ranks 1 npt.yaml > npt.out 2>&1
check "npt: exit 0" test $? -eq 0
check "npt: dump and XYZ give back the H5MD frames, box included" $py "$checker" npt.h5md npt.lammpstrj npt.xyz 0.005 Ar Kr
check "npt: each frame's box is the thermo's lx ly lz, and MDAnalysis reads it from H5MD" $py - npt.h5md npt.csv <<'PY'
import sys, warnings
import h5py
import numpy as np
warnings.simplefilter("ignore")
import MDAnalysis as mda
with h5py.File(sys.argv[1], "r") as f:
    box = f["particles/trajectory/box"]
    edges, steps = np.diagonal(box["edges/value"][()], axis1=1, axis2=2), box["edges/step"][()]
thermo = np.genfromtxt(sys.argv[2], delimiter=",", names=True)
assert steps.tolist() == thermo["step"].astype(int).tolist() == [0, 10, 20, 30, 40], steps
lengths = np.column_stack([thermo["lx"], thermo["ly"], thermo["lz"]])
assert edges.shape == (5, 3) and np.array_equal(edges, lengths), (edges, lengths)
assert np.all(np.abs(edges[-1] / edges[0] - 1) > 1e-3), "the box did not move"
# The documented read (docs/checkpoints.md): the topology written beside the
# trajectory; LJ units carry no H5MD unit attributes to convert.
u = mda.Universe(sys.argv[1].replace(".h5md", ".data"), sys.argv[1], convert_units=False)
dims = np.array([ts.dimensions.copy() for ts in u.trajectory])
assert dims.shape == (5, 6) and np.allclose(dims[:, 3:], 90.0), dims
assert np.all(np.abs(dims[:, :3] / edges - 1) <= 1e-6), (dims, edges)
print(f"  npt: box per frame from {edges[0]} to {edges[-1]}; MDAnalysis H5MD agrees to float32")
PY

# Restart: 40 steps straight, 20 + 20.
deck straight.yaml 40 straight
run_ranks 1 straight.yaml > straight.out 2>&1
check "straight run: exit 0" test $? -eq 0
deck split-1.yaml 20 split
deck split-2.yaml 40 split
run_ranks 1 split-1.yaml > split-1.out 2>&1
run_ranks 1 split-2.yaml --restart auto > split-2.out 2>&1
check "split run: restarted at step 20" grep -q "Restarted from split.ckpt/ckpt-000000000020.h5 at step 20" split-2.out
check "split run: dump identical to the straight run's" cmp straight.lammpstrj split.lammpstrj
check "split run: XYZ identical to the straight run's" cmp straight.xyz split.xyz

# Died after the checkpoint at 20, with frames and thermo lines up to 30
# written and the last of each cut short: the resumed run drops them.
deck crash-1.yaml 30 crash
run_ranks 1 crash-1.yaml > crash-1.out 2>&1
rm crash.ckpt/ckpt-000000000030.h5
check "crash: the dump reached step 30" test "$(grep -c '^ITEM: TIMESTEP' crash.lammpstrj)" -eq 4
truncate -s -1000 crash.lammpstrj
truncate -s -1000 crash.xyz
truncate -s -10 crash.csv
deck crash-2.yaml 40 crash
run_ranks 1 crash-2.yaml --restart auto > crash-2.out 2>&1
check "crash: resumed at step 20" grep -q "at step 20" crash-2.out
check "crash: dump identical to the straight run's" cmp straight.lammpstrj crash.lammpstrj
check "crash: XYZ identical to the straight run's" cmp straight.xyz crash.xyz
check "crash: thermo CSV identical to the straight run's" cmp straight.csv crash.csv

# A dump of other columns is not continued.
cp split.lammpstrj kept.lammpstrj
deck other.yaml 40 split "[position]"
run_ranks 1 other.yaml --restart split.ckpt/ckpt-000000000020.h5 > other.out 2>&1
check "other columns: exit 2" test $? -eq 2
check "other columns: names the file, line and key" \
  grep -q "error: split.lammpstrj:9: output.dump.file: cannot append: found 'ITEM: ATOMS id type x y z xu yu zu" other.out
check "other columns: the dump is left as it was" cmp kept.lammpstrj split.lammpstrj

# MPI: 4 ranks against 1 (no species names: the XYZ shows type numbers).
deck serial.yaml 40 serial "$all_fields" ""
deck ranks.yaml 40 ranks "$all_fields" ""
run_ranks 1 serial.yaml > serial.out 2>&1
run_ranks 4 ranks.yaml > ranks.out 2>&1
check "4 ranks: exit 0" test $? -eq 0
check "4 ranks: ran on 4 ranks" grep -q "^Ranks      4 MPI ranks" ranks.out
check "4 ranks: dump and XYZ give back that run's H5MD frames" $py "$checker" ranks.h5md ranks.lammpstrj ranks.xyz 0.005
check "4 ranks: the one-rank dump (ids, types, steps, box; positions to 1e-6 of the box)" \
  $py - serial.lammpstrj ranks.lammpstrj <<'PY'
import sys
import numpy as np
def frames(path):
    lines = open(path).read().split("\n")
    out, k = [], 0
    while k < len(lines) - 1:
        n = int(lines[k + 3])
        rows = np.array([[float(w) for w in line.split()] for line in lines[k + 9:k + 9 + n]])
        out.append((int(lines[k + 1]), lines[k + 5:k + 8], lines[k + 8], rows))
        k += 9 + n
    return out
a, b = frames(sys.argv[1]), frames(sys.argv[2])
assert [f[0] for f in a] == [f[0] for f in b] == list(range(0, 41, 10)), "steps differ"
worst = 0.0
for (step, box, head, ra), (_, box_b, head_b, rb) in zip(a, b):
    assert box == box_b and head == head_b, f"step {step}: box or columns differ"
    assert np.array_equal(ra[:, :2], rb[:, :2]), f"step {step}: ids or types differ"
    length = np.array([float(line.split()[1]) - float(line.split()[0]) for line in box])
    worst = max(worst, float(np.max(np.abs(ra[:, 2:5] - rb[:, 2:5]) / length)))
print(f"  max position difference {worst:.2e} of the box length")
sys.exit(0 if worst <= 1e-6 else 1)
PY
deck p2-straight.yaml 40 p2-straight
deck p2-first.yaml 20 p2-split
deck p2-second.yaml 40 p2-split
run_ranks 2 p2-straight.yaml > p2-straight.out 2>&1
run_ranks 2 p2-first.yaml > p2-first.out 2>&1
run_ranks 2 p2-second.yaml --restart auto > p2-second.out 2>&1
check "2 ranks split by a restart: exit 0" test $? -eq 0
check "2 ranks split by a restart: dump identical" cmp p2-straight.lammpstrj p2-split.lammpstrj
check "2 ranks split by a restart: XYZ identical" cmp p2-straight.xyz p2-split.xyz
cp p2-split.lammpstrj p2-kept.lammpstrj
deck p2-other.yaml 40 p2-split "[position]"
run_ranks 2 p2-other.yaml --restart p2-split.ckpt/ckpt-000000000040.h5 > p2-other.out 2>&1
check "2 ranks, a dump of other columns: every rank stops, exit 2" test $? -eq 2
check "2 ranks, a dump of other columns: one message" test "$(grep -c 'cannot append' p2-other.out)" -eq 1
check "2 ranks, a dump of other columns: left as it was" cmp p2-kept.lammpstrj p2-split.lammpstrj
exit $fail
