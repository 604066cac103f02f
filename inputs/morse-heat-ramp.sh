#!/usr/bin/env bash
# A temperature ramp through melting with inputs/morse-heat.yaml, as a chain
# of runs: stage k continues from stage k-1's checkpoint (--restart auto)
# with the Langevin target raised to the k-th temperature. The deck format has
# one thermostat temperature per run, so the ramp is a staircase.
#   bash inputs/morse-heat-ramp.sh [DECK]
#   TEMPERATURES="0.3 0.6 0.9 1.2 1.5" STAGE_STEPS=2000 TESSERA=build/src/app/tessera bash inputs/morse-heat-ramp.sh
# Run it in an empty folder: it writes ramp.yaml there, and the deck's
# thermo CSV, trajectory and checkpoint folder, which grow stage by stage
# into one continuous record. At the end it prints, per stage, the mean
# temperature, potential energy per atom and pressure over the stage's second
# half; the potential energy rises by about 0.3 per 0.2 in T in the crystal
# and jumps by the latent heat where it melts (near T = 1.2 for 4,000 atoms).
set -euo pipefail
deck=${1:-$(dirname "$0")/morse-heat.yaml}
tessera=${TESSERA:-tessera}
read -r -a temperatures <<< "${TEMPERATURES:-0.3 0.5 0.7 0.9 1.1 1.3 1.5 1.7}"
stage_steps=${STAGE_STEPS:-1000}
thermo=$(sed -n 's/.*thermo:.*file: *\([^,} ]*\).*/\1/p' "$deck")
if [ -e "$thermo" ]; then
  echo "morse-heat-ramp: $thermo exists; run in an empty folder" >&2
  exit 2
fi

end=0
for t in "${temperatures[@]}"; do
  end=$((end + stage_steps))
  # Only the thermostat's target changes; the initial velocities matter
  # only for the first stage (later ones take them from the checkpoint).
  sed -e "/integrator:/s/temperature: *[-+0-9.eE]*/temperature: $t/" \
      -e "s/steps: *[0-9]*/steps: $end/" "$deck" > ramp.yaml
  echo "morse-heat-ramp: T = $t up to step $end"
  "$tessera" run ramp.yaml --restart auto > "ramp-$end.log"
done

echo "stage_T,mean_T,mean_pe,mean_press"
start=0
for t in "${temperatures[@]}"; do
  awk -F, -v lo=$((start + stage_steps / 2)) -v hi=$((start + stage_steps)) -v t="$t" \
    'NR > 1 && $1 > lo && $1 <= hi { T += $2; pe += $3; p += $6; n++ }
     END { if (n) printf "%s,%.4f,%.4f,%.4f\n", t, T / n, pe / n, p / n }' "$thermo"
  start=$((start + stage_steps))
done
