#!/usr/bin/env bash
# Melts and recrystallises a copper slab with inputs/cu-melt-recrystallise.yaml,
# as a chain of runs (the deck has one thermostat temperature per run): each
# stage continues from the previous one's checkpoint (--restart auto) with
# the Langevin target of its own.
#   bash inputs/cu-melt-recrystallise.sh
#   STAGES="1000:1000 1500:3000 1000:5000" CELLS="5 5 12" TESSERA=build/src/app/tessera bash inputs/cu-melt-recrystallise.sh
# STAGES: TEMPERATURE:STEPS per stage (default: crystal at 1000 K for 2 ps,
# 1500 K for 6 ps, 1000 K for 12 ps); CELLS: the slab's fcc cells.
# Run it in an empty folder: it writes cu-slab.data (inputs/make-slab.py),
# stage.yaml, and the deck's thermo CSV, trajectory and checkpoint folder,
# which grow stage by stage into one continuous record. At the end it prints,
# per stage, the mean temperature and potential energy per atom over the
# stage's second half and the crystalline fraction at its end
# (tools/crystal-fraction): about 0.6 for the crystal at 1000 K, 0.15 once
# 1500 K has melted most of it, and back near 0.6 once the crystal left in the
# middle has regrown through the liquid at 1000 K; the energy per atom jumps by
# the latent heat and comes back.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
deck=$here/cu-melt-recrystallise.yaml
tessera=${TESSERA:-tessera}
py=${PYTHON:-/usr/bin/python3}
read -r -a stages <<< "${STAGES:-1000:1000 1500:3000 1000:6000}"
read -r -a cells <<< "${CELLS:-10 10 12}"
if [ -e cu-melt.thermo.csv ]; then
  echo "cu-melt-recrystallise: cu-melt.thermo.csv exists; run in an empty folder" >&2
  exit 2
fi
"$py" "$here/make-slab.py" --cells "${cells[@]}" --constant 3.615 --vacuum 1.75 --no-masses > cu-slab.data

end=0
for s in "${stages[@]}"; do
  t=${s%%:*}
  end=$((end + ${s##*:}))
  sed -e "/integrator:/s/temperature: *[0-9.]*/temperature: $t/" -e "s/steps: *[0-9]*/steps: $end/" "$deck" > stage.yaml
  echo "cu-melt-recrystallise: T = $t K up to step $end"
  "$tessera" run stage.yaml --restart auto > "stage-$end.log"
done

natoms=$(sed -n 's/^\([0-9]*\) atoms$/\1/p' cu-slab.data)
"$py" "$here/../tools/crystal-fraction" cu-melt.h5md > crystal.txt
echo "stage_T,mean_T,pe_per_atom,crystal_at_end,crystal_middle_at_end"
start=0
for s in "${stages[@]}"; do
  t=${s%%:*}
  stop=$((start + ${s##*:}))
  # "-" where no frame fell on the stage's end (stages not a multiple of the
  # trajectory's 500 steps).
  read -r c m < <(awk -v step=$stop '$1 == step { f = $2 " " $3 } END { print (f == "" ? "- -" : f) }' crystal.txt)
  awk -F, -v lo=$((start + ${s##*:} / 2)) -v hi=$stop -v t="$t" -v n="$natoms" -v c="$c" -v m="$m" \
    'NR > 1 && $1 > lo && $1 <= hi { T += $2; pe += $3; k++ }
     END { if (k) printf "%s,%.1f,%.4f,%s,%s\n", t, T / k, pe / k / n, c, m }' cu-melt.thermo.csv
  start=$stop
done
