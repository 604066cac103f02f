#!/usr/bin/env bash
# tools/tessera-plot on a real run: a 20-step run of a 256-atom deck with a
# trajectory, then the tool with CSV + trajectory, with the trajectory alone
# (its observables), and on a file that is not a thermo CSV.
# Usage: tessera_plot.sh TESSERA_BINARY SOURCE_DIR
set -uo pipefail
# shellcheck source=/dev/null
source "$(dirname "${BASH_SOURCE[0]}")/../e2e/lib.sh"
bin=$(realpath "$1")
src=$(realpath "$2")
plot=$src/tools/tessera-plot
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

cat > tiny.yaml <<'EOF'
units: lj
system:
  lattice: {style: fcc, density: 0.8442, cells: [4, 4, 4]}
velocity: {temperature: 1.44, seed: 5}
potential:
  style: lj/cut
  cutoff: 2.5
  coeffs:
    - {types: [1, 1], epsilon: 1.0, sigma: 1.0}
integrator: {style: nve, dt: 0.005}
run: {steps: 20}
output:
  thermo: {every: 5, file: tiny.csv, screen: false}
  trajectory: {every: 5, file: tiny.h5md, fields: [position]}
EOF
"$bin" run tiny.yaml --threads 1 > run.txt 2>&1
check "the tiny run exits 0" test $? -eq 0

# A PNG that matplotlib can decode, with some width and height.
valid_png() {
  test -s "$1" && /usr/bin/python3 - "$1" <<'EOF'
import sys
import matplotlib.image as mpimg
with open(sys.argv[1], "rb") as f:
    assert f.read(8) == b"\x89PNG\r\n\x1a\n", "no PNG signature"
img = mpimg.imread(sys.argv[1])
assert img.ndim == 3 and img.shape[0] > 100 and img.shape[1] > 100, img.shape
EOF
}

/usr/bin/python3 "$plot" --thermo tiny.csv --trajectory tiny.h5md --out plots --rdf-frames 3 --rdf-rmax 3 --rdf-bins 60 > plot.txt 2>&1
check "tessera-plot exits 0" test $? -eq 0
for f in energies temperature pressure rdf; do
  check "plots/$f.png is a valid PNG" valid_png "plots/$f.png"
done
# 20 steps from an fcc lattice: the first g(r) peak is still near a/sqrt(2) = 1.19.
check "rdf.csv: 60 bins, first peak between 1.0 and 1.35" /usr/bin/python3 -c "
import numpy as np
d = np.loadtxt('plots/rdf.csv', delimiter=',', skiprows=1)
assert d.shape == (60, 2), d.shape
r = d[np.argmax(d[:, 1]), 0]
assert 1.0 < r < 1.35, r"

/usr/bin/python3 "$plot" --trajectory tiny.h5md --out obs --no-rdf > obs.txt 2>&1
check "trajectory observables alone: exit 0" test $? -eq 0
check "trajectory observables alone: energies.png" valid_png obs/energies.png
check "--no-rdf writes no rdf.png" test ! -e obs/rdf.png

# The engine's own g(r) and MSD (deck `analysis`): plotted and tabulated as
# stored, g(r) averaged over the last --rdf-frames samples.
cp tiny.yaml engine.yaml
sed -i 's/tiny\./engine./g' engine.yaml
printf 'analysis:\n  rdf: {bins: 50}\n  msd: {}\n' >> engine.yaml
"$bin" run engine.yaml --threads 1 > engine-run.txt 2>&1
check "a run with analysis exits 0" test $? -eq 0
/usr/bin/python3 "$plot" --trajectory engine.h5md --out engine --rdf-frames 2 > engine.txt 2>&1
check "with the engine's series: exit 0" test $? -eq 0
check "engine/rdf-engine.png is a valid PNG" valid_png engine/rdf-engine.png
check "engine/msd.png is a valid PNG" valid_png engine/msd.png
check "rdf-engine.csv is the mean of the last 2 samples, msd.csv the stored MSD" /usr/bin/python3 -c "
import h5py, numpy as np
f = h5py.File('engine.h5md', 'r')
g = np.loadtxt('engine/rdf-engine.csv', delimiter=',', skiprows=1)
want = f['observables/rdf/value'][-2:, 0].mean(axis=0)
assert g.shape == (50, 2) and np.allclose(g[:, 0], f['observables/rdf/r'][()]) and np.allclose(g[:, 1], want), g.shape
m = np.loadtxt('engine/msd.csv', delimiter=',', skiprows=1)
assert open('engine/msd.csv').readline().strip() == 'time,all,type 1'
assert np.allclose(m[:, 0], f['observables/msd/time'][()]) and np.allclose(m[:, 1:], f['observables/msd/value'][:, :, 3])
assert m[0, 1] == 0 and m[-1, 1] > 0"

# A trajectory written before the particle group was named `trajectory`
# (it was `all`) still plots, to the same g(r).
cp tiny.h5md legacy.h5md
/usr/bin/python3 -c "import h5py; h5py.File('legacy.h5md', 'r+').move('particles/trajectory', 'particles/all')"
/usr/bin/python3 "$plot" --trajectory legacy.h5md --out legacy --rdf-frames 3 --rdf-rmax 3 --rdf-bins 60 > legacy.txt 2>&1
check "a trajectory with the old group name (particles/all): exit 0" test $? -eq 0
check "... the same g(r) as from the file it was made from" cmp -s legacy/rdf.csv plots/rdf.csv

/usr/bin/python3 "$plot" --thermo tiny.yaml --out bad > bad.txt 2>&1
check "a deck given as thermo CSV: exit 2" test $? -eq 2
check "... with a message naming the file" grep -q "tiny.yaml: not a Tessera thermo CSV" bad.txt

((fail)) && cat run.txt plot.txt obs.txt engine-run.txt engine.txt legacy.txt
exit $fail
