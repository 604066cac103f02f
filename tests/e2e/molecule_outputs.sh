#!/usr/bin/env bash
# Molecules in the outputs (issue 29): the two-type harmonic melt of
# tests/reference/mol_melt.data (3,000 atoms, 2,700 bonds, 2,400 angles,
# special_bonds lj 0 0.5 0.8), 20 NVE steps on 1 and on 3 ranks.
#  - H5MD: /connectivity/bonds and /connectivity/angles hold the data file's
#    bonds and angles as particle ids (particles_group "trajectory"), the
#    same on 1 and 3 ranks.
#  - The LAMMPS dump and the extended XYZ have a mol column (ASE reads the
#    XYZ's into arrays["mol"]).
#  - MDAnalysis reads the trajectory with its topology file (run.data beside
#    run.h5md): u.bonds, u.angles and the molecule ids (resids) are the
#    data file's.
#  - A run continued from a checkpoint keeps the file's connectivity (it is
#    checked against the run's) and writes output.data at its last step.
#  - output.data writes a LAMMPS data file of the state ('*' becomes the
#    step): Debian's LAMMPS reads it (read_data with the same styles, the
#    Bond and Angle Coeffs from the file) and its `run 0` gives Tessera's pe
#    and ke of that step to 1e-10 relative; Tessera reads it back too, with
#    the same pe. 3 ranks write the same bonds, angles and molecule ids as 1.
# Without LAMMPS (LMP, default /usr/bin/lmp) the LAMMPS check is skipped
# and the script exits 77 (skipped) once every other check has passed.
set -uo pipefail
# shellcheck source=/dev/null
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bin=$(realpath "$1")
src=$(realpath "$2")
py=/usr/bin/python3
data="$src/tests/reference/mol_melt.data"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# logged LOG COMMAND...: runs it with its output in LOG, shown if it fails.
logged() { local log=$1; shift; "$@" > "$log" 2>&1 || { cat "$log"; return 1; }; }

# pair_model: the lammps_molecular_test deck's melt (lib.sh's mol_pair,
# tests/unit/molecular_decks.hpp's mol_model) without its bonds and angles;
# model: with them, harmonic.
pair_model() {
  mol_pair
  cat <<YAML
special_bonds: {lj: [0, 0.5, 0.8]}
neighbor: {skin: 0.3, every: 1, delay: 0, check: true}
integrator: {style: nve, dt: 0.005}
YAML
}
model() {
  pair_model
  mol_bonded
}
# deck FILE BASE DATA_OUTPUT: 20 steps from mol_melt.data, thermo every 10,
# the H5MD trajectory BASE.h5md (and so BASE.data), the LAMMPS dump
# BASE.lammpstrj and extended XYZ BASE.xyz, output.data as given.
deck() {
  { echo "system: {read_data: $data}"; model; cat <<YAML; } > "$1"
run: {steps: 20}
output:
  thermo: {every: 10, file: $2.csv, screen: false}
  trajectory: {every: 10, file: $2.h5md}
  dump: {every: 10, file: $2.lammpstrj}
  xyz: {every: 10, file: $2.xyz, species: [Ar, Kr]}
  data: $3
YAML
}
deck one.yaml one "{file: one.state.*.data, every: 10}"
deck three.yaml three "{file: three.state.data}"
check "1 rank runs" logged one.out run_ranks 1 one.yaml
check "3 ranks run" logged three.out run_ranks 3 three.yaml
check "output.data: files at steps 10 and 20 ('*'), and after the last step" \
  test -s one.state.10.data -a -s one.state.20.data -a -s three.state.data -a ! -e one.state.0.data

check "H5MD connectivity: the data file's bonds and angles as ids, 1 and 3 ranks alike" $py - "$data" <<'PY'
import sys
import h5py
import numpy as np

def section(path, name, cols):
    rows, on = [], False
    for line in open(path):
        line = line.split("#")[0].strip()
        if not line:
            continue
        if line[0].isalpha():
            on = line == name
            continue
        if on:
            rows.append([int(v) for v in line.split()[:cols]])
    return np.array(rows, dtype=np.int64)

bonds = section(sys.argv[1], "Bonds", 4)[:, 2:]
angles = section(sys.argv[1], "Angles", 5)[:, 2:]
want_bonds = sorted(tuple(sorted(b)) for b in bonds.tolist())
want_angles = sorted((v, a, c) for a, v, c in angles.tolist())
for name in ("one", "three"):
    with h5py.File(f"{name}.h5md", "r") as f:
        c = f["connectivity"]
        b, a = c["bonds"][()], c["angles"][()]
        assert b.shape == (2700, 2) and a.shape == (2400, 3), (b.shape, a.shape)
        for d in (c["bonds"], c["angles"]):
            g = d.attrs["particles_group"]
            g = g.decode() if isinstance(g, bytes) else g
            assert g == "trajectory" and "particles/" + g in f, g
        ids = set(f["particles/trajectory/id"][()].tolist())
        assert set(b.ravel().tolist()) <= ids and set(a.ravel().tolist()) <= ids
        assert sorted(tuple(sorted(x)) for x in b.tolist()) == want_bonds, name
        assert sorted((v, x, y) for x, v, y in a.tolist()) == want_angles, name
        if name == "one":
            first = (b.copy(), a.copy())
        else:
            assert (b == first[0]).all() and (a == first[1]).all(), "3 ranks differ from 1"
print("  2700 bonds, 2400 angles")
PY

check "dump and XYZ: a mol column with the data file's molecule ids" $py - "$data" <<'PY'
import sys
mol = {}
on = False
for line in open(sys.argv[1]):
    line = line.split("#")[0].strip()
    if line and line[0].isalpha():
        on = line == "Atoms"
    elif line and on:
        v = line.split()
        mol[int(v[0])] = int(v[1])
for name in ("one", "three"):
    lines = open(f"{name}.lammpstrj").read().splitlines()
    at = lines.index("ITEM: ATOMS id mol type x y z")
    rows = [l.split() for l in lines[at + 1:at + 3001]]
    assert {int(r[0]): int(r[1]) for r in rows} == mol, name
    import ase.io  # the XYZ's rows are in id order, as the dump's
    frames = ase.io.read(f"{name}.xyz", index=":")
    assert len(frames) == 3 and frames[-1].arrays["mol"].tolist() == [mol[i] for i in sorted(mol)], name
print(f"  {len(set(mol.values()))} molecules")
PY

# MDAnalysis 2.4 cannot read mol_melt.data itself (it takes its PairIJ
# Coeffs for masses), so the reference lists come from a plain parse.
check "MDAnalysis: Universe(run.data, run.h5md) has the bonds, angles and molecule ids" $py - "$data" <<'PY'
import sys
import warnings
warnings.filterwarnings("ignore")
import MDAnalysis as mda

def section(path, name):
    rows, on = [], False
    for line in open(path):
        line = line.split("#")[0].strip()
        if line and line[0].isalpha():
            on = line == name
        elif line and on:
            rows.append([int(float(v)) for v in line.split()])
    return rows

mol = {r[0]: r[1] for r in section(sys.argv[1], "Atoms")}
want_bonds = sorted(tuple(sorted(r[2:4])) for r in section(sys.argv[1], "Bonds"))
want_angles = sorted(tuple(r[2:5]) for r in section(sys.argv[1], "Angles"))
for name in ("one", "three"):
    u = mda.Universe(f"{name}.data", f"{name}.h5md", convert_units=False)
    assert len(u.atoms) == 3000 and len(u.trajectory) == 3, (len(u.atoms), len(u.trajectory))
    assert len(u.bonds) == 2700 and len(u.angles) == 2400, (len(u.bonds), len(u.angles))
    assert dict(zip(u.atoms.ids.tolist(), u.atoms.resids.tolist())) == mol, "molecule ids differ"
    def ids(group):  # each tuple as atom ids, not indices
        return u.atoms.ids[group.to_indices()].tolist()
    assert sorted(tuple(sorted(x)) for x in ids(u.bonds)) == want_bonds, "bonds differ"
    assert sorted(map(tuple, ids(u.angles))) == want_angles, "angles differ"
    u.trajectory[2]
    assert len(u.atoms.fragments) == len(set(mol.values())) == 300, len(u.atoms.fragments)
    state = mda.Universe(f"{name}.state.data" if name == "three" else "one.state.20.data", format="DATA")
    assert len(state.bonds) == 2700 and len(state.angles) == 2400, "MDAnalysis reads output.data too"
print("  2700 bonds, 2400 angles, 300 molecules")
PY

check "output.data: 3 ranks write the bonds, angles, molecule ids and types of 1 rank, and its state to 1e-10" \
  $py - one.state.20.data three.state.data <<'PY'
import sys
def read(path):
    sections, name = {}, "header"
    for line in open(path).read().splitlines()[1:]:  # past the title
        line = line.strip()
        if not line:
            continue
        if line[0].isalpha():
            name = line.split("#")[0].strip()
            continue
        sections.setdefault(name, []).append(line.split())
    return sections
a, b = (read(p) for p in sys.argv[1:3])
assert a.keys() == b.keys(), (a.keys(), b.keys())
for s in ("header", "Masses", "Bond Coeffs", "Angle Coeffs", "Bonds", "Angles"):
    assert s in a and a[s] == b[s], s
for s, exact in (("Atoms", [0, 1, 2]), ("Velocities", [0])):
    assert len(a[s]) == len(b[s]) == 3000, s
    for x, y in zip(sorted(a[s], key=lambda r: int(r[0])), sorted(b[s], key=lambda r: int(r[0]))):
        assert [x[k] for k in exact] == [y[k] for k in exact], (s, x, y)
        for p, q in zip(x[len(exact):], y[len(exact):]):
            assert abs(float(p) - float(q)) <= 1e-10 * max(1.0, abs(float(p))), (s, x, y)
print("  same")
PY

# The Tessera thermo's COLUMN at STEP, from BASE.csv.
thermo_at() { $py -c "import numpy as np, sys; t = np.genfromtxt('$1.csv', delimiter=',', names=True); print(repr(float(t['$3'][t['step'] == $2][0])))"; }
close() { $py -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); print(f'  {a!r} against {b!r}'); sys.exit(0 if abs(a - b) <= 1e-10 * abs(b) else 1)" "$1" "$2"; }

# Tessera reads its own file back: same pe at step 20, the coefficients from
# the file's Bond Coeffs / Angle Coeffs sections.
{ echo "system: {read_data: one.state.20.data}"; pair_model; cat <<YAML; } > back.yaml
bonds: {style: harmonic}
angles: {style: harmonic}
run: {steps: 0}
output:
  thermo: {file: back.csv, screen: false}
YAML
check "Tessera reads the data file back" logged back.out run_ranks 1 back.yaml
for col in pe ke; do
  check "Tessera's run 0 of the data file: $col of step 20 to 1e-10" close "$(thermo_at back 0 $col)" "$(thermo_at one 20 $col)"
done

# 10 steps, a checkpoint, then 10 more from it: the H5MD file and its
# connectivity are those of the straight run.
{ echo "system: {read_data: $data}"; model; cat <<YAML; } > split.yaml
run: {steps: 10}
output:
  checkpoint: {every: 10, path: split.ckpt}
  trajectory: {every: 10, file: split.h5md}
  data: {file: split.state.data}
YAML
check "a split run's first part" logged split1.out run_ranks 1 split.yaml
sed -i 's/steps: 10}/steps: 20}/' split.yaml
check "a split run's second part, from its checkpoint" \
  logged split2.out run_ranks 1 split.yaml --restart split.ckpt/ckpt-000000000010.h5
check "the continued run keeps the connectivity and writes the state of step 20" $py <<'PY'
import h5py
import numpy as np
with h5py.File("split.h5md", "r") as a, h5py.File("one.h5md", "r") as b:
    for name in ("connectivity/bonds", "connectivity/angles", "particles/trajectory/position/step"):
        assert np.array_equal(a[name][()], b[name][()]), name
assert "coordinates of step 20" in open("split.state.data").readline()
PY

lmp=${LMP:-/usr/bin/lmp}
skipped=0
if command -v "$lmp" > /dev/null; then
  cat > in.state <<'LMP'
units           lj
atom_style      angle
boundary        p p p
special_bonds   lj 0.0 0.5 0.8
pair_style      lj/cut 2.5
bond_style      harmonic
angle_style     harmonic
read_data       one.state.20.data
pair_coeff      1 1 1.0 1.0
pair_coeff      2 2 0.8 1.1
pair_coeff      1 2 0.9 1.05
thermo_style    custom step pe ke atoms
thermo_modify   norm yes format float %.17g
run             0
LMP
  check "LAMMPS reads the data file" env OMP_NUM_THREADS=1 "$lmp" -nocite -in in.state -log lmp.log -screen none
  lmp_value() { $py - "$1" <<'PY'
import sys
lines = open("lmp.log").read().splitlines()
at = next(k for k, l in enumerate(lines) if l.split()[:4] == ["Step", "PotEng", "KinEng", "Atoms"])
row = lines[at + 1].split()
assert row[3] == "3000", row
print(repr(float(row[{"pe": 1, "ke": 2}[sys.argv[1]]])))
PY
  }
  for col in pe ke; do
    check "LAMMPS run 0 of the data file: $col equals Tessera's at step 20 to 1e-10" close "$(lmp_value $col)" "$(thermo_at one 20 $col)"
  done
else
  echo "skip: LAMMPS ($lmp) is not installed; set LMP to its binary to run the LAMMPS check"
  skipped=1
fi
if [ "$fail" -eq 0 ] && [ "$skipped" -eq 1 ]; then exit 77; fi
exit "$fail"
