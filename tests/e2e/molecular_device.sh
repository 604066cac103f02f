#!/usr/bin/env bash
# Molecules on the device pipeline (issue 29; kernels/device/bonded_forces.hpp):
# LAMMPS's two-type molecular melt (tests/reference/mol_melt.data: harmonic
# bonds and angles, special_bonds lj 0 0.5 0.8) run by tessera_hostdev with
# backend: cuda (Thrust's OpenMP system) gives the CPU backend's thermo to
# 1e-10 over 20 steps, on one rank and on two (the topology migrates with
# its atoms on the device); neighbor.layout: clusters is refused with
# backend: cuda and runs on the CPU with backend: auto.
# Usage: molecular_device.sh TESSERA TESSERA_HOSTDEV SOURCE_DIR
set -uo pipefail
# shellcheck source=/dev/null
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bin=$(realpath "$1")
hostdev=$(realpath "$2")
src=$(realpath "$3")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

# mol_deck FILE BACKEND LAYOUT CSV
mol_deck() {
  { echo "backend: $2"; echo "system: {read_data: $src/tests/reference/mol_melt.data}"; mol_pair; mol_bonded
    cat <<YAML; } > "$1"
special_bonds: {lj: [0, 0.5, 0.8]}
neighbor: {skin: 0.3, every: 1, delay: 0, check: true, layout: $3}
integrator: {style: nve, dt: 0.005}
output:
  thermo: {every: 1, file: $4, columns: [step, temp, pe, ke, etotal, press]}
run: {steps: 20}
YAML
}

mol_deck cpu.yaml cpu rows cpu.csv
"$bin" run cpu.yaml --threads 1 > cpu.out 2>&1
check "cpu: exit 0" test $? -eq 0

mol_deck dev.yaml cuda rows dev.csv
"$hostdev" run dev.yaml --threads 1 > dev.out 2>&1
check "device pipeline: exit 0" test $? -eq 0
check "device pipeline: runs on the device" grep -q "^Backend    cuda, GPU" dev.out
check "device pipeline: thermo equals the CPU's to 1e-10 over 20 steps" same_thermo cpu.csv dev.csv 21

if command -v mpirun > /dev/null; then
  mol_deck dev2.yaml cuda rows dev2.csv
  mpirun -np 2 --oversubscribe "$hostdev" run dev2.yaml --threads 1 > dev2.out 2>&1
  check "device pipeline, 2 ranks: exit 0" test $? -eq 0
  check "device pipeline, 2 ranks: thermo equals the CPU's to 1e-10" same_thermo cpu.csv dev2.csv 21
fi

mol_deck clusters.yaml cuda clusters clusters.csv
"$hostdev" run clusters.yaml --threads 1 > clusters.out 2>&1
check "clusters with backend cuda: refused (exit 2)" test $? -eq 2
check "clusters with backend cuda: names neighbor.layout" grep -q "neighbor.layout" clusters.out
mol_deck auto.yaml auto clusters auto.csv
"$hostdev" run auto.yaml --threads 1 > auto.out 2>&1
check "clusters with backend auto: runs on the CPU" test $? -eq 0
check "clusters with backend auto: says so" grep -q "run on the CPU so far" auto.out

exit $fail
