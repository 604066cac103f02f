#!/usr/bin/env bash
# Molecules on the device pipeline (issue 29; kernels/device/bonded_forces.hpp):
# LAMMPS's two-type molecular melt (tests/reference/mol_melt.data: harmonic
# bonds and angles, special_bonds lj 0 0.5 0.8) run by tessera_hostdev with
# backend: cuda (Thrust's OpenMP system) gives the CPU backend's thermo to
# 1e-10 over 20 steps, on one rank and on two (the topology migrates with
# its atoms on the device); restarts continue bitwise on the device, and
# from 2 device ranks on one within 1e-10; an angle partner beyond the
# ghosts on 2 device ranks stops the run naming it; neighbor.layout:
# clusters gives the CPU's thermo too.
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

# Restarts on the device: 40 steps with a checkpoint at 20; from it the
# device continues bitwise, and a checkpoint written by 2 device ranks
# continues on one within 1e-10.
mol_deck long.yaml cuda rows full.csv
sed -i 's/run: {steps: 20}/run: {steps: 40}/' long.yaml
sed -i '/^  thermo:/a\  checkpoint: {every: 20, path: ckpt}' long.yaml
"$hostdev" run long.yaml --threads 1 > long.out 2>&1
check "device restart: the 40-step run with checkpoints" test $? -eq 0
cp full.csv straight.csv
"$hostdev" run long.yaml --threads 1 --restart ckpt/ckpt-000000000020.h5 > again.out 2>&1
check "device restart: exit 0" test $? -eq 0
check "device restart: restarts at step 20 on the device" \
  grep -q "Restarted from ckpt/ckpt-000000000020.h5 at step 20" again.out
check "device restart: steps 20-40 bitwise" cmp <(tail -n 21 straight.csv) <(tail -n 21 full.csv)
if command -v mpirun > /dev/null; then
  sed 's|path: ckpt}|path: ckpt2}|' long.yaml > long2.yaml
  mpirun -np 2 --oversubscribe "$hostdev" run long2.yaml --threads 1 > long2.out 2>&1
  check "device, 2 ranks: the 40-step run with checkpoints" test $? -eq 0
  "$hostdev" run long2.yaml --threads 1 --restart ckpt2/ckpt-000000000020.h5 > one.out 2>&1
  check "device: 2 ranks' checkpoint continues on one (exit 0)" test $? -eq 0
  tail -n 21 straight.csv > a.csv && tail -n 21 full.csv > b.csv
  sed -i '1i step,temp,pe,ke,etotal,press' a.csv b.csv
  check "... steps 20-40 within 1e-10 of the straight run" same_thermo a.csv b.csv 21

  # Pairs cut at 1.2 (reach 1.5) leave angle ends up to ~2.2 apart beyond
  # the ghosts: on 2 device ranks the run stops (exit 3) naming the angle,
  # as on the CPU (e2e.molecules).
  mol_deck short.yaml cuda rows short.csv
  sed -i 's/cutoff: 2.5/cutoff: 1.2/' short.yaml
  mpirun -np 2 --oversubscribe "$hostdev" run short.yaml --threads 1 > short.out 2>&1
  check "device, 2 ranks, angles beyond the ghosts' reach: exit 3" test $? -eq 3
  check "... names the angle's atoms, the step and neighbor.ghost_cutoff" \
    grep -Eq "step [0-9]+: rank [01]: an angle of atom [0-9]+ \(type [12], with atoms [0-9]+ and [0-9]+\): atom [0-9]+ is not within the ghosts' reach \(1.5\).*raise neighbor.ghost_cutoff" short.out
fi

# The cluster list skips each atom's factor-0 partners in the pair loop.
mol_deck clusters.yaml cuda clusters clusters.csv
"$hostdev" run clusters.yaml --threads 1 > clusters.out 2>&1
check "clusters on the device: exit 0" test $? -eq 0
check "clusters on the device: a cluster list" grep -q "^Backend    cuda, GPU.*cluster neighbour list" clusters.out
check "clusters on the device: thermo equals the CPU's to 1e-10 over 20 steps" same_thermo cpu.csv clusters.csv 21

exit $fail
