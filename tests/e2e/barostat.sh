#!/usr/bin/env bash
# npt and the c-rescale barostat on every path (issue 28): with 2, 3, 4
# and 8 ranks the moving box moves every sub-box, halo and cell grid, so
# the thermo (volume and econserve included) equals one rank's to 1e-10 for
# 20 steps, iso and aniso; the device pipeline (Thrust's OpenMP system,
# tessera_hostdev) gives the CPU's.
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
# seed and step alone, so every rank draws the same).
declare -A integrator=(
  [iso]="{style: npt, dt: 0.005, temperature: 1.44, damping: 0.2, pressure: 1.0, pressure_damping: 0.1, coupling: iso}"
  [aniso]="{style: npt, dt: 0.005, temperature: 1.44, damping: 0.2, pressure: 1.0, pressure_damping: 0.1, coupling: aniso}"
  [crescale-iso]="{style: langevin, dt: 0.005, temperature: 1.44, damping: 0.5, seed: 3, barostat: {style: c-rescale, pressure: 1.0, damping: 0.1, compressibility: 0.05}}"
  [crescale-aniso]="{style: nose-hoover, dt: 0.005, temperature: 1.44, damping: 0.2, barostat: {style: c-rescale, pressure: 1.0, damping: 0.1, compressibility: 0.05, coupling: aniso, seed: 8}}"
)
for coupling in iso aniso crescale-iso crescale-aniso; do
  lj_deck "$coupling.yaml" --steps 20 --cells 10 \
    --integrator "${integrator[$coupling]}" \
    "thermo: {every: 1, file: $coupling.csv, columns: [step, temp, pe, ke, etotal, press, vol, lx, ly, lz, econserve]}"
  run_ranks 1 "$coupling.yaml" > "$coupling.1.out" 2>&1
  check "$coupling: one rank runs" test $? -eq 0
  mv "$coupling.csv" "$coupling.1.csv"
  check "$coupling: the box moved" /usr/bin/python3 -c "
import numpy as np
t = np.genfromtxt('$coupling.1.csv', delimiter=',', names=True)
raise SystemExit(0 if abs(t['vol'][-1] / t['vol'][0] - 1) > 1e-3 else 1)"
  for np in 2 3 4 8; do
    run_ranks "$np" "$coupling.yaml" > "$coupling.$np.out" 2>&1
    check "$coupling, $np ranks: exit 0" test $? -eq 0
    check "$coupling, $np ranks: thermo and box equal one rank's to 1e-10" same_thermo "$coupling.1.csv" "$coupling.csv" 21
  done
  sed 's/^integrator:/backend: cuda\nintegrator:/' "$coupling.yaml" > "$coupling.dev.yaml"
  "$hostdev" run "$coupling.dev.yaml" --threads 1 > "$coupling.dev.out" 2>&1
  check "$coupling, device pipeline: exit 0" test $? -eq 0
  check "$coupling, device pipeline: thermo and box equal the CPU's to 1e-10" same_thermo "$coupling.1.csv" "$coupling.csv" 21
done

exit $fail
