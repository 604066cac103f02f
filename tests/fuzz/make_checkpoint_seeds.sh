#!/usr/bin/env bash
# Writes the checkpoint fuzz targets' seed corpus (tests/fuzz/corpus/checkpoint)
# with the given tessera binary: small, valid checkpoints of the current
# format, one per kind of state the reader must take in (NVE; Nose-Hoover
# chain variables; Langevin with the MSD origin of analysis.msd; NVE written
# by 2 ranks at once, whose per-atom datasets carry per-rank checksums). Rerun it
# whenever the checkpoint format changes, so that the fuzzer starts from
# files the reader accepts and mutates its way into every dataset check.
#   bash tests/fuzz/make_checkpoint_seeds.sh build/src/app/tessera
set -euo pipefail
bin=$(realpath "${1:?usage: make_checkpoint_seeds.sh TESSERA_BIN}")
out=$(cd "$(dirname "$0")" && pwd)/corpus/checkpoint
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
seed() {  # seed NAME INTEGRATOR [EXTRA] [RANKS]
  cat > "$1.yaml" <<YAML
system:
  lattice: {style: fcc, density: 0.8442, cells: [2, 2, 2]}
velocity: {temperature: 1.0, seed: 1}
potential:
  style: lj/cut
  cutoff: 1.2
  coeffs:
    - {types: [1, 1], epsilon: 1.0, sigma: 1.0}
integrator: $2
run: {steps: 10}
output:
  thermo: {every: 10, screen: false}
  checkpoint: {every: 10, path: $1.ckpt, keep: 1}
${3:-}
YAML
  if [ "${4:-1}" -eq 1 ]; then
    "$bin" run "$1.yaml" -q --threads 1 > /dev/null
  else
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
      mpirun -np "$4" --oversubscribe "$bin" run "$1.yaml" -q --threads 1 > /dev/null
  fi
  cp "$1.ckpt/ckpt-000000000010.h5" "$out/$1-32atoms.h5"
}
rm -f "$out"/*.h5
seed nve "{style: nve, dt: 0.005}"
seed nose-hoover "{style: nose-hoover, dt: 0.005, temperature: 1.0, damping: 0.5}"
seed langevin-msd "{style: langevin, dt: 0.005, temperature: 1.0, damping: 1.0, seed: 3}" "  trajectory: {every: 10, file: traj.h5md}
analysis: {msd: {every: 10}}"
seed nve-2ranks "{style: nve, dt: 0.005}" "" 2
ls -l "$out"
