#!/usr/bin/env bash
# In-engine analysis (deck `analysis`: g(r) and MSD in the H5MD trajectory's
# observables/), through the command line:
#  - against LAMMPS (tests/reference/mix_analysis.lmp): g(r) of all atoms and
#    of the type pairs 1-1, 1-2, 2-1, 2-2 with coordination numbers at steps
#    0, 50, 100, and the MSD (x, y, z, total; all atoms and per type) every
#    10 steps, on the binary melt mix_melt.data;
#  - g(r) against tools/tessera-plot's own minimum-image count on the frames;
#  - free particles (epsilon 0) give MSD(t) = <v^2> t^2 per axis and type,
#    after atoms crossed the box several times;
#  - 20 + restart + 20 steps give the observables of 40 straight bit for bit
#    (NVE and Langevin), also when the first run died after its checkpoint
#    with samples written past it;
#  - a run continued from the checkpoint of a run without an MSD (an
#    equilibration) measures from that checkpoint's positions, and says so;
#  - 4 ranks give 1 rank's g(r) bit for bit and its MSD to rounding;
#  - MDAnalysis reads a series sampled at the frames' steps (the default) as
#    per-frame data.
set -uo pipefail
# shellcheck source=/dev/null
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bin=$(realpath "$1")
src=$(realpath "$2")
py=/usr/bin/python3
checker="$src/tests/e2e/analysis_check.py"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

# Against LAMMPS: the reference run's system and settings.
cat > mix.yaml <<YAML
system: {read_data: $src/tests/reference/mix_melt.data}
potential:
  style: lj/cut
  cutoff: 2.5
  coeffs:
    - {types: [1, 1], epsilon: 1.0, sigma: 1.0}
    - {types: [2, 2], epsilon: 0.5, sigma: 1.2}
neighbor: {skin: 0.3, every: 1, delay: 0, check: true}
integrator: {style: nve, dt: 0.005}
run: {steps: 100}
output:
  thermo: {every: 50, screen: false}
  trajectory: {every: 50, file: mix.h5md, fields: [position]}
analysis:
  rdf: {every: 50, bins: 50, pairs: [[1, 1], [1, 2], [2, 1], [2, 2]]}
  msd: {every: 10}
YAML
"$bin" run mix.yaml --threads 2 > mix.out 2>&1
check "binary melt with analysis: exit 0" test $? -eq 0
check "g(r) and MSD equal LAMMPS's (compute rdf, compute msd)" \
  $py "$checker" lammps mix.h5md "$src/tests/reference/mix_rdf.txt" "$src/tests/reference/mix_msd.txt"
check "g(r) equals tools/tessera-plot's count on the frames" $py "$checker" plot mix.h5md "$src/tools/tessera-plot"

# Free particles: no forces, so x(t) = x(0) + v t and MSD(t) = <v^2> t^2.
cat > free.yaml <<YAML
system:
  lattice: {style: fcc, density: 0.8442, cells: [6, 6, 6], basis_types: [1, 2, 1, 2]}
  masses: [1.0, 3.0]
velocity: {temperature: 2.0, seed: 99}
potential:
  style: lj/cut
  cutoff: 2.5
  coeffs:
    - {types: [1, 1], epsilon: 0.0, sigma: 1.0}
    - {types: [2, 2], epsilon: 0.0, sigma: 1.0}
integrator: {style: nve, dt: 0.005}
run: {steps: 2000}
output:
  trajectory: {every: 200, file: free.h5md, fields: [position, velocity, image]}
analysis:
  msd: {}
YAML
"$bin" run free.yaml > free.out 2>&1
check "free particles: exit 0" test $? -eq 0
check "free particles: MSD(t) = <v^2> t^2 to 1e-10" $py "$checker" ballistic free.h5md

# deck NAME STEPS INTEGRATOR: 864 atoms of two types, checkpoints every 20
# steps, frames every 10, g(r) every 10 and MSD every 5 steps.
deck() {
  cat > "$1.yaml" <<YAML
system:
  lattice: {style: fcc, density: 0.8442, cells: [6, 6, 6], basis_types: [1, 2, 2, 2]}
  masses: [1.0, 2.0]
velocity: {temperature: 1.44, seed: 87287}
potential:
  style: lj/cut
  cutoff: 2.5
  coeffs:
    - {types: [1, 1], epsilon: 1.0, sigma: 1.0}
    - {types: [2, 2], epsilon: 0.8, sigma: 1.1}
neighbor: {skin: 0.3}
integrator: $3
run: {steps: $2}
output:
  thermo: {every: 10, screen: false}
  checkpoint: {every: 20, path: $1.ckpt, keep: 3}
  trajectory: {every: 10, file: $1.h5md, fields: [position]}
analysis:
  rdf: {bins: 60, pairs: [[1, 2], [2, 2]]}
  msd: {every: 5}
YAML
}
integrators=("{style: nve, dt: 0.005}" "{style: langevin, dt: 0.005, temperature: 1.0, damping: 0.5, seed: 3}")
names=(nve langevin)
for k in 0 1; do
  n=${names[$k]}
  deck "$n-straight" 40 "${integrators[$k]}"
  "$bin" run "$n-straight.yaml" > "$n-straight.out" 2>&1
  check "$n: 40 steps straight exit 0" test $? -eq 0
  deck "$n-split" 20 "${integrators[$k]}"
  "$bin" run "$n-split.yaml" > "$n-split-1.out" 2>&1
  deck "$n-split" 40 "${integrators[$k]}"
  "$bin" run "$n-split.yaml" --restart auto > "$n-split-2.out" 2>&1
  check "$n: second half exit 0" test $? -eq 0
  check "$n: restarted at 20" grep -q "Restarted from $n-split.ckpt/ckpt-000000000020.h5 at step 20" "$n-split-2.out"
  check "$n: 20 + restart + 20: observables bit for bit those of 40 straight" \
    $py "$checker" same "$n-straight.h5md" "$n-split.h5md"
done
# Died after the checkpoint at 20 with samples up to 30 written: the resumed
# run drops those and writes them again.
deck crash 30 "${integrators[1]}"
"$bin" run crash.yaml > crash-1.out 2>&1
rm crash.ckpt/ckpt-000000000030.h5
deck crash 40 "${integrators[1]}"
"$bin" run crash.yaml --restart auto > crash-2.out 2>&1
check "crash after the checkpoint: resumed at 20" grep -q "at step 20" crash-2.out
check "crash after the checkpoint: observables bit for bit those of 40 straight" \
  $py "$checker" same langevin-straight.h5md crash.h5md
# Production from an equilibration checkpoint that holds no MSD origin.
deck equil 20 "${integrators[1]}"
sed -i '/^analysis:/,$d' equil.yaml
"$bin" run equil.yaml > equil.out 2>&1
deck prod 40 "${integrators[0]}"
sed -i 's/fields: \[position\]/fields: [position, image]/' prod.yaml
"$bin" run prod.yaml --restart equil.ckpt/ckpt-000000000020.h5 > prod.out 2>&1
check "production from an equilibration checkpoint: exit 0" test $? -eq 0
check "production from an equilibration checkpoint: says where the MSD starts" grep -q \
  "^analysis.msd: equil.ckpt/ckpt-000000000020.h5 holds no MSD origin (the run that wrote it had no analysis.msd): displacements are measured from step 20$" prod.out
check "production from an equilibration checkpoint: MSD from its positions" \
  $py "$checker" origin prod.h5md equil.ckpt/ckpt-000000000020.h5

check "MDAnalysis reads g(r) at the frames as per-frame data" $py "$checker" mdanalysis nve-straight.h5md
check "MDAnalysis reads the MSD at the frames as per-frame data" $py "$checker" mdanalysis free.h5md

# 4 ranks against 1.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
deck ranks 40 "${integrators[0]}"
sed -i 's/cells: \[6, 6, 6\]/cells: [8, 8, 8]/' ranks.yaml
"$bin" run ranks.yaml --threads 1 > ranks-1.out 2>&1
check "1 rank: exit 0" test $? -eq 0
mv ranks.h5md ranks-1.h5md
rm -rf ranks.ckpt
mpirun -np 4 --oversubscribe "$bin" run ranks.yaml --threads 1 > ranks-4.out 2>&1
check "4 ranks: exit 0" test $? -eq 0
check "4 ranks: on a grid of 4" grep -q "^Ranks      4 MPI ranks" ranks-4.out
check "4 ranks: g(r) bit for bit, MSD to rounding" $py "$checker" ranks ranks-1.h5md ranks.h5md
exit $fail
