#!/usr/bin/env bash
# EAM on the device pipeline (issue 30; kernels/device/eam_forces.hpp): a hot
# Cu-Ni alloy (eam/alloy, CuNi.eam.alloy from lammps-data) run by
# tessera_hostdev with backend: cuda (Thrust's OpenMP system) gives the CPU
# backend's thermo to 1e-10 over 20 steps on one rank and on 2 and 4 (F'
# crosses ranks through the device halo's forward, on all three transports);
# precision: mixed stays within 1e-5 of double; a device restart continues
# bitwise; the cluster layout is refused with backend: cuda and runs on the
# CPU with backend: auto.
# Usage: eam_device.sh TESSERA TESSERA_HOSTDEV SOURCE_DIR
set -uo pipefail
# shellcheck source=/dev/null
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bin=$(realpath "$1")
hostdev=$(realpath "$2")
pot=/usr/share/lammps/potentials
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

# eam_deck FILE BACKEND STEPS [DECK LINE...]: 2,048 atoms at 3000 K, as
# e2e.eam (wide enough for 4 ranks along x against a reach of 8.4 A).
eam_deck() {
  local file=$1 backend=$2 steps=$3
  shift 3
  {
    echo "units: metal"
    echo "backend: $backend"
    echo "system:"
    echo "  lattice: {style: fcc, constant: 3.56, cells: [$(sized 8 6), 8, 8], basis_types: [1, 2, 1, 2]}"
    echo "  masses: [63.546, 58.6934]"
    echo "velocity: {temperature: 3000, seed: 4711}"
    echo "potential: {style: eam/alloy, file: $pot/CuNi.eam.alloy, elements: [Cu, Ni]}"
    echo "integrator: {style: nve, dt: 0.002}"
    echo "run: {steps: $steps}"
    for line in "$@"; do echo "$line"; done
  } > "$file"
}
thermo() { echo "output: {thermo: {every: 1, file: $1}}"; }

eam_deck cpu.yaml cpu 20 "neighbor: {skin: 2.0}" "$(thermo cpu.csv)"
"$bin" run cpu.yaml --threads 1 > cpu.out 2>&1
check "cpu: exit 0" test $? -eq 0

eam_deck dev.yaml cuda 20 "neighbor: {skin: 2.0}" "$(thermo dev.csv)"
"$hostdev" run dev.yaml --threads 1 > dev.out 2>&1
check "device pipeline: exit 0" test $? -eq 0
check "device pipeline: runs on the device" grep -q "^Backend    cuda, GPU" dev.out
check "device pipeline: thermo equals the CPU's to 1e-10 over 20 steps" same_thermo cpu.csv dev.csv 21

if command -v mpirun > /dev/null; then
  # Under the sanitizers 2 ranks only (the 6-cell block is too narrow for 4).
  for np in $(sized "2 4" "2"); do
    eam_deck "dev$np.yaml" cuda 20 "neighbor: {skin: 2.0}" "$(thermo "dev$np.csv")"
    mpirun -np "$np" --oversubscribe "$hostdev" run "dev$np.yaml" --threads 1 > "dev$np.out" 2>&1
    check "device pipeline, $np ranks: exit 0" test $? -eq 0
    check "device pipeline, $np ranks: thermo equals the CPU's to 1e-10" same_thermo cpu.csv "dev$np.csv" 21
  done
  # F' crosses ranks on the halo's other two transports as well: the device
  # buffers handed to MPI (forced on: on the stand-in device they are host
  # memory) and peer copies. The same bytes travel, so the thermo is the
  # host-staged run's, bit for bit. Not under the sanitizers: both
  # transports run sanitized in e2e.device_backend, and the forward is the
  # same call for any field.
  if ! sanitized; then
    eam_deck direct.yaml cuda 20 "neighbor: {skin: 2.0}" "$(thermo direct.csv)"
    mpirun -np 2 --oversubscribe "$hostdev" run direct.yaml --threads 1 --cuda-aware-mpi on > direct.out 2>&1
    check "CUDA-aware MPI forced on, 2 ranks: exit 0" test $? -eq 0
    check "CUDA-aware MPI forced on: the banner says so" grep -q "^Halo       CUDA-aware MPI: the device packs" direct.out
    check "CUDA-aware MPI forced on: thermo bitwise the host-staged run's" cmp -s dev2.csv direct.csv
    eam_deck peer.yaml cuda 20 "neighbor: {skin: 2.0}" "peer_copies: auto" "$(thermo peer.csv)"
    mpirun -np 2 --oversubscribe "$hostdev" run peer.yaml --threads 1 > peer.out 2>&1
    check "peer copies, 2 ranks: exit 0" test $? -eq 0
    if grep -q "process_vm_readv from process [0-9]*: Operation not permitted" peer.out; then
      # A kernel that forbids cross-memory attach (ptrace scope): the
      # self-test drops the peer copies, as e2e.device_backend checks.
      check "peer copies refused by the kernel: the run fell back to host-staged" \
        grep -q "^Halo       peer copies (cross-memory attach) failed its self-test" peer.out
    else
      check "peer copies: the summary counts them" grep -Eq "^Halo per step: [1-9][0-9]* ghost positions received by 2 peer copies" peer.out
    fi
    check "peer copies: thermo bitwise the host-staged run's" cmp -s dev2.csv peer.csv
  fi
fi

eam_deck mixed.yaml cuda 20 "neighbor: {skin: 2.0}" "precision: mixed" "$(thermo mixed.csv)"
"$hostdev" run mixed.yaml --threads 1 > mixed.out 2>&1
check "mixed precision: exit 0" test $? -eq 0
check "mixed precision: the banner says so" grep -q "mixed precision" mixed.out
check "mixed precision: thermo within 1e-5 of double, and not equal to it" /usr/bin/python3 - dev.csv mixed.csv <<'PY'
import sys
import numpy as np
a, b = (np.genfromtxt(p, delimiter=",", skip_header=1) for p in sys.argv[1:3])
head = open(sys.argv[1]).readline().strip().split(",")  # metal units: "pe (eV)", ...
cols = [k for k, name in enumerate(head) if name.split(" ")[0] in ("pe", "etotal", "press")]
assert len(cols) == 3 and a.shape == b.shape, (head, a.shape, b.shape)
worst = max(float(np.max(np.abs(a[:, c] - b[:, c]) / np.abs(a[:, c]))) for c in cols)
print(f"  max relative difference {worst:.2e}")
sys.exit(0 if 0 < worst <= 1e-5 else 1)
PY

# Restart on the device: 40 steps with a checkpoint at 20; from it the
# device continues bitwise. Not under the sanitizers: the device restart
# path holds nothing of EAM's (e2e.molecular_device and e2e.device_backend run it
# sanitized), and EAM stores nothing in a checkpoint.
if ! sanitized; then
  eam_deck long.yaml cuda 40 "neighbor: {skin: 2.0}" \
    "output: {thermo: {every: 1, file: full.csv}, checkpoint: {every: 20, path: ckpt}}"
  "$hostdev" run long.yaml --threads 1 > long.out 2>&1
  check "device restart: the 40-step run with checkpoints" test $? -eq 0
  cp full.csv straight.csv
  "$hostdev" run long.yaml --threads 1 --restart ckpt/ckpt-000000000020.h5 > again.out 2>&1
  check "device restart: exit 0" test $? -eq 0
  check "device restart: restarts at step 20" grep -q "Restarted from ckpt/ckpt-000000000020.h5 at step 20" again.out
  check "device restart: steps 20-40 bitwise" cmp <(tail -n 21 straight.csv) <(tail -n 21 full.csv)
fi

eam_deck clusters.yaml cuda 5 "neighbor: {skin: 2.0, layout: clusters}"
"$hostdev" run clusters.yaml --threads 1 > clusters.out 2>&1
check "clusters with backend cuda: refused (exit 2)" test $? -eq 2
check "clusters with backend cuda: names neighbor.layout and the style" \
  grep -q "potential.style eam/alloy has no cluster-list form.*neighbor.layout: rows" clusters.out
eam_deck auto.yaml auto 5 "neighbor: {skin: 2.0, layout: clusters}"
"$hostdev" run auto.yaml --threads 1 > auto.out 2>&1
check "clusters with backend auto: runs on the CPU" test $? -eq 0
check "clusters with backend auto: says so" grep -q "runs on the CPU so far: running on the CPU" auto.out
check "clusters with backend auto: the banner says cpu" grep -q "^Backend    cpu" auto.out

exit $fail
