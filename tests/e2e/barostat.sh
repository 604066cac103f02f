#!/usr/bin/env bash
# npt and the c-rescale barostat on every path (issue 28): with 2, 3, 4
# and 8 ranks the moving box moves every sub-box, halo and cell grid, so
# the thermo (volume and econserve included) equals one rank's to 1e-10 for
# 20 steps, iso and aniso; the device pipeline (Thrust's OpenMP system,
# tessera_hostdev) gives the CPU's. An npt barostat that moves the box too
# far stops the run (exit 3) at the step that did it, keeping the
# checkpoints written before.
# Usage: barostat.sh TESSERA TESSERA_HOSTDEV SOURCE_DIR
set -uo pipefail
# shellcheck source=/dev/null
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bin=$(realpath "$1")
hostdev=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

# 4,000 atoms of the fcc solid at T = 1.44, driven to P = 1: the box grows
# by a few per cent in 20 steps. npt (MTK), then the stochastic cell
# rescaling barostat beside langevin and nose-hoover (its draws keyed by
# seed and step alone, so every rank draws the same). Under the sanitizers
# 864 atoms (6^3 cells): 8 ranks still get a 2 x 2 x 2 grid of sub-boxes
# wider than the reach; there 3 and 8 ranks run (an uneven and a 3-D grid),
# as every sanitized MPI start costs 3-7 s (2026-11-27).
declare -A integrator=(
  [iso]="{style: npt, dt: 0.005, temperature: 1.44, damping: 0.2, pressure: 1.0, pressure_damping: 0.1, coupling: iso}"
  [aniso]="{style: npt, dt: 0.005, temperature: 1.44, damping: 0.2, pressure: 1.0, pressure_damping: 0.1, coupling: aniso}"
  [crescale-iso]="{style: langevin, dt: 0.005, temperature: 1.44, damping: 0.5, seed: 3, barostat: {style: c-rescale, pressure: 1.0, damping: 0.1, compressibility: 0.05}}"
  [crescale-aniso]="{style: nose-hoover, dt: 0.005, temperature: 1.44, damping: 0.2, barostat: {style: c-rescale, pressure: 1.0, damping: 0.1, compressibility: 0.05, coupling: aniso, seed: 8}}"
)
for coupling in iso aniso crescale-iso crescale-aniso; do
  lj_deck "$coupling.yaml" --steps 20 --cells "$(sized 10 6)" \
    --integrator "${integrator[$coupling]}" \
    "thermo: {every: 1, file: $coupling.csv, columns: [step, temp, pe, ke, etotal, press, vol, lx, ly, lz, econserve]}"
  run_ranks 1 "$coupling.yaml" > "$coupling.1.out" 2>&1
  check "$coupling: one rank runs" test $? -eq 0
  mv "$coupling.csv" "$coupling.1.csv"
  check "$coupling: the box moved" /usr/bin/python3 -c "
import numpy as np
t = np.genfromtxt('$coupling.1.csv', delimiter=',', names=True)
raise SystemExit(0 if abs(t['vol'][-1] / t['vol'][0] - 1) > 1e-3 else 1)"
  for np in $(sized "2 3 4 8" "3 8"); do
    run_ranks "$np" "$coupling.yaml" > "$coupling.$np.out" 2>&1
    check "$coupling, $np ranks: exit 0" test $? -eq 0
    check "$coupling, $np ranks: thermo and box equal one rank's to 1e-10" same_thermo "$coupling.1.csv" "$coupling.csv" 21
  done
  sed 's/^integrator:/backend: cuda\nintegrator:/' "$coupling.yaml" > "$coupling.dev.yaml"
  "$hostdev" run "$coupling.dev.yaml" --threads 1 > "$coupling.dev.out" 2>&1
  check "$coupling, device pipeline: exit 0" test $? -eq 0
  check "$coupling, device pipeline: thermo and box equal the CPU's to 1e-10" same_thermo "$coupling.1.csv" "$coupling.csv" 21
done

# A barostat driven too hard (the target pressure ramped to 2,000 over 200
# steps): the run stops with exit 3 at the first step that breaks a limit,
# naming the step and the value, and the checkpoints before it stay good.
# fail_case NAME MAX_VOLUME_CHANGE PATTERN
fail_case() {
  lj_deck "$1.yaml" --steps 200 --cells 4 \
    --integrator "{style: npt, dt: 0.005, temperature: 1.44, damping: 0.2, pressure: [1.0, 2000.0], pressure_damping: 2.0, max_volume_change: $2}" \
    "thermo: {every: 1, file: $1.csv, columns: [step, vol, lx]}" "checkpoint: {every: 5, path: $1.ckpt}"
  "$bin" run "$1.yaml" > "$1.out" 2>&1
  check "$1: exit 3" test $? -eq 3
  check "$1: names the step and the value" grep -Eq "^tessera: simulation stopped: step [0-9]+: $3" "$1.out"
  local bad last
  bad=$(sed -nE 's/^tessera: simulation stopped: step ([0-9]+):.*/\1/p' "$1.out")
  last=$(find "$1.ckpt" -name 'ckpt-*.h5' | sort | tail -n 1)
  check "$1: stopped after a checkpoint (step $bad)" test -n "$last" -a "${bad:-0}" -gt 5
  check "$1: no checkpoint at or after the bad step" test "$(basename "$last" .h5 | sed 's/ckpt-0*//')" -lt "${bad:-0}"
  sed 's/run: {steps: 200/run: {steps: 0/' "$1.yaml" > "$1-check.yaml"
  "$bin" run "$1-check.yaml" --restart "$last" > "$1-check.out" 2>&1
  check "$1: the last checkpoint verifies (refused only as past run.steps)" grep -q "past run.steps = 0" "$1-check.out"
}
# 1% per step: broken at step 12 (the volume falls 1.1% in it).
fail_case volume 0.01 "the volume changed from [0-9.]+ to [0-9.]+ in one step, by more than integrator.max_volume_change = 0.01"
# The default 5%: the box reaches twice cutoff + skin first, at step 43.
fail_case shrink 0.05 "the box shrank to [0-9.]+ along x, less than 2 x \\(cutoff \\+ skin\\) = 5.6"

exit $fail
