#!/usr/bin/env bash
# metal and real units in the outputs (issue 30, item 1): the thermo CSV
# header and the screen table name each column's unit; the H5MD series carry
# unit attributes MDAnalysis reads with its default convert_units=True
# (real: positions, velocities and forces; metal: positions and velocities,
# as MDAnalysis knows no force in eV/A), and times come back in ps.
# Checkpoints keep the unit system and refuse a deck in another.
# Usage: units.sh TESSERA SOURCE_DIR
set -uo pipefail
# shellcheck source=/dev/null
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bin=$(realpath "$1")
src=$(realpath "$2")
py=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
export OMP_NUM_THREADS=1

cat > real.yaml <<YAML
units: real
system: {read_data: $src/tests/reference/ar_lj_real_melt.data}
potential:
  style: lj/cut
  cutoff: 8.5
  coeffs:
    - {types: [1, 1], epsilon: 0.2381, sigma: 3.405}
integrator: {style: nose-hoover, dt: 2.0, temperature: 120.0, damping: 200.0}
run: {steps: 20}
output:
  thermo: {every: 10, file: real.csv}
  trajectory: {every: 10, file: real.h5md, fields: [position, velocity, force]}
YAML
"$bin" run real.yaml > real.out 2>&1
check "real: exit 0" test $? -eq 0
check "real: the CSV header names the units" \
  test "$(head -n 1 real.csv)" = "step,temp (K),pe (kcal/mol),ke (kcal/mol),etotal (kcal/mol),press (atm)"
check "real: the screen table says its units" \
  grep -q "^Units real (totals): Temp K, PotEng kcal/mol, KinEng kcal/mol, TotEng kcal/mol, Press atm, EConserve kcal/mol" real.out

sed -e 's/^units: real/units: metal/' -e 's|ar_lj_real_melt.data|cu_morse_metal_melt.data|' \
  -e 's/style: lj\/cut/style: morse/' -e 's/cutoff: 8.5/cutoff: 8.0/' \
  -e 's/{types: \[1, 1\], epsilon: 0.2381, sigma: 3.405}/{types: [1, 1], d0: 0.3429, alpha: 1.3588, r0: 2.866}/' \
  -e 's/^integrator: .*/integrator: {style: nve}/' -e 's/real\./metal./g' -e 's/fields: \[position, velocity, force\]/fields: [position, velocity]/' \
  real.yaml > metal.yaml
"$bin" run metal.yaml > metal.out 2>&1
check "metal: exit 0" test $? -eq 0
check "metal: the CSV header names the units" \
  test "$(head -n 1 metal.csv)" = "step,temp (K),pe (eV),ke (eV),etotal (eV),press (bar)"

check "H5MD: unit attributes MDAnalysis converts by default" $py - <<'PY'
import warnings
warnings.simplefilter("ignore")
import h5py
import numpy as np
import MDAnalysis as mda

def attrs(path):
    with h5py.File(path, "r") as f:
        p = f["particles/trajectory"]
        units = {n: p[n + "/value"].attrs.get("unit") for n in ("position", "velocity", "force", "box/edges") if n in p}
        units["time"] = p["position/time"].attrs.get("unit")
        units["temperature"] = f["observables/temperature/value"].attrs.get("unit") if "observables" in f else None
        return units, p["position/value"][()], p["position/time"][()]

for name, want, dt_ps in (("real", {"position": "Angstrom", "velocity": "Angstrom fs-1", "force": "kcal mol-1 Angstrom-1",
                                     "box/edges": "Angstrom", "time": "fs"}, 0.002),
                          ("metal", {"position": "Angstrom", "velocity": "Angstrom ps-1", "box/edges": "Angstrom",
                                     "time": "ps"}, 0.001)):
    got, pos, time = attrs(f"{name}.h5md")
    got = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in got.items() if k in want}
    assert got == want, (name, got, want)
    u = mda.Universe(f"{name}.data", f"{name}.h5md")  # convert_units=True, MDAnalysis's default
    assert u.trajectory.n_frames == 3, u.trajectory.n_frames
    for f, ts in enumerate(u.trajectory):
        assert np.allclose(ts.positions, pos[f], rtol=1e-6, atol=1e-4), name
        assert abs(ts.time - 10 * f * dt_ps) < 1e-9, (name, ts.time)  # MDAnalysis's time unit is ps
    print(f"  {name}: {got}; MDAnalysis reads {u.trajectory.n_frames} frames, times in ps")
PY

# Checkpoints keep the unit system: a real run split by a restart writes the
# straight run's thermo; the same checkpoint under a deck in other units is
# refused (exit 2), naming both.
sed -e 's/^output:/output:\n  checkpoint: {every: 10, path: real.ckpt}/' -e 's/real.csv/split.csv/' -e 's/real.h5md/split.h5md/' \
  -e 's/steps: 20/steps: 10/' real.yaml > split-1.yaml
sed 's/steps: 10/steps: 20/' split-1.yaml > split-2.yaml
"$bin" run split-1.yaml > split-1.out 2>&1
"$bin" run split-2.yaml --restart auto > split-2.out 2>&1
check "real: restarted run exits 0" test $? -eq 0
check "real: 10 + restart + 10 steps write the straight run's thermo" cmp -s real.csv split.csv
sed 's/^units: real/units: lj/' split-2.yaml > lj.yaml
"$bin" run lj.yaml --restart real.ckpt/ckpt-000000000010.h5 > lj.out 2>&1
check "a real checkpoint under an lj deck: exit 2" test $? -eq 2
check "a real checkpoint under an lj deck: names both unit systems" \
  grep -q "does not fit the deck lj.yaml: it was written in real units, the deck is in lj units" lj.out

exit $fail
