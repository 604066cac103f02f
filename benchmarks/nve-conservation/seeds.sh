#!/usr/bin/env bash
# NVE drift over many velocity seeds (issue 2): the deck of run.sh, run once per
# seed in LAMMPS and in Tessera, then compared as two samples (seeds.py).
#
# One run's energy excursion on the energy-shifted deck is a random walk whose
# size changes from seed to seed in either engine (README.md), so one run
# cannot tell a heating bug from chance. Many shorter runs can: a systematic
# drift shows as a mean slope away from LAMMPS's, whatever each run does.
#
# Usage: benchmarks/nve-conservation/seeds.sh [TESSERA_BINARY]
# Environment:
#   SEEDS="1 2 ..."  velocity seeds (default: 1 to 24); both engines run each
#   STEPS=N          steps per run (default 20000, 100 tau)
#   EVERY=N          thermo interval (default STEPS/100)
#   POTENTIAL=P      lj/cut (default, energy-shifted) or lj/smooth/linear
#   START=S          own (default): each engine builds the lattice and draws
#                    the velocities of seed s its own way (Tessera's generator
#                    is not LAMMPS's, and LAMMPS's are uniform, not Gaussian);
#                    lammps: LAMMPS writes the start of seed s to a data file
#                    (write_data) and both engines read it, so each pair of
#                    runs starts from the same atoms and velocities
#   RESULTS_DIR=D    where the report goes (default: benchmarks/results)
#   LMP, PYTHON      as for run.sh
# The engines run side by side, one core each (Tessera's seeds in the
# background, LAMMPS's in the foreground): 24 seeds of 100 tau take about
# 17 minutes on a 2-core machine, most of it LAMMPS.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
# shellcheck source=decks.sh
. "$here/decks.sh"
tessera="${1:-$repo/build/src/app/tessera}"
case "$tessera" in /*) ;; *) tessera="$(pwd)/$tessera" ;; esac
[ -x "$tessera" ] || { echo "seeds.sh: Tessera binary not found: $tessera" >&2; exit 2; }
lmp="${LMP:-/usr/bin/lmp}"
python="${PYTHON:-/usr/bin/python3}"
command -v "$lmp" >/dev/null || { echo "seeds.sh: LAMMPS not found: $lmp" >&2; exit 2; }

seeds="${SEEDS:-$(seq -s ' ' 1 24)}"
steps="${STEPS:-20000}"
[[ "$steps" =~ ^[1-9][0-9]*$ ]] || { echo "seeds.sh: STEPS must be a positive integer, got '$steps'" >&2; exit 2; }
every="${EVERY:-$(( steps / 100 > 0 ? steps / 100 : 1 ))}"
potential="${POTENTIAL:-lj/cut}"
case "$potential" in
  lj/cut|lj/smooth/linear) ;;
  *) echo "seeds.sh: POTENTIAL must be lj/cut or lj/smooth/linear, got '$potential'" >&2; exit 2 ;;
esac
start="${START:-own}"
case "$start" in
  own|lammps) ;;
  *) echo "seeds.sh: START must be own or lammps, got '$start'" >&2; exit 2 ;;
esac
for s in $seeds; do
  [[ "$s" =~ ^[1-9][0-9]*$ ]] || { echo "seeds.sh: a seed must be a positive integer, got '$s'" >&2; exit 2; }
done
commit="$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo '?')"
[ -z "$(git -C "$repo" status --porcelain --untracked-files=no 2>/dev/null)" ] && tree_state=clean || tree_state=dirty

scratch="$(mktemp -d "${TMPDIR:-/tmp}/nve-seeds.XXXXXX")"
echo "seeds.sh: scratch $scratch (kept), seeds: $seeds; $steps steps, thermo every $every"

# One deck per engine and seed, from the decks run.sh uses.
for s in $seeds; do
  sed -E -e "s/seed: 87287/seed: $s/" -e "s/^run:.*/run: {steps: $steps}/" \
         -e "s/(thermo: \{every: )[0-9]+, file: [^,]+/\1$every, file: t$s.csv/" \
    "$here/tessera.yaml" > "$scratch/t$s.yaml"
  sed -E -e "s/create 1.44 87287/create 1.44 $s/" -e "s/^run([[:space:]]+)[0-9]+/run\1$steps/" \
         -e "s/^thermo([[:space:]]+)[0-9]+/thermo\1$every/" \
    "$here/lammps.lmp" > "$scratch/l$s.lmp"
  grep -q "seed: $s}" "$scratch/t$s.yaml" && grep -q "file: t$s.csv" "$scratch/t$s.yaml" \
    || { echo "seeds.sh: could not write the Tessera deck for seed $s" >&2; exit 2; }
  grep -q "create 1.44 $s loop" "$scratch/l$s.lmp" || { echo "seeds.sh: could not write the LAMMPS input for seed $s" >&2; exit 2; }
  if [ "$potential" = lj/smooth/linear ]; then
    to_smooth "$scratch/t$s.yaml" "$scratch/l$s.lmp" seeds.sh
  fi
  if [ "$start" = lammps ]; then
    { sed -n '1,/^velocity/p' "$here/lammps.lmp" | sed -E "s/create 1.44 87287/create 1.44 $s/"; echo "write_data start$s.data"; } \
      > "$scratch/w$s.lmp"
    sed -i -E -e "s/^  lattice: .*/  read_data: start$s.data/" -e "/^  masses: /d" -e "s/^velocity: .*/# velocities: from start$s.data (seed $s)/" "$scratch/t$s.yaml"
    sed -i -E -e "/^(lattice|region|create_box|mass|velocity) /d" -e "s/^create_atoms .*/read_data start$s.data/" "$scratch/l$s.lmp"
    grep -q "read_data: start$s.data" "$scratch/t$s.yaml" && grep -q "^read_data start$s.data" "$scratch/l$s.lmp" \
      || { echo "seeds.sh: could not point the decks at start$s.data" >&2; exit 2; }
  fi
done

cd "$scratch"
if [ "$start" = lammps ]; then
  for s in $seeds; do
    "$lmp" -in "w$s.lmp" -log none -screen none || { echo "seeds.sh: LAMMPS could not write start$s.data" >&2; exit 1; }
  done
fi
(
  for s in $seeds; do
    OMP_NUM_THREADS=1 "$tessera" run "t$s.yaml" --threads 1 > "t$s.out" 2>&1 || { echo "seeds.sh: Tessera failed, seed $s (t$s.out)" >&2; exit 1; }
  done
) &
tessera_pid=$!
for s in $seeds; do
  OMP_NUM_THREADS=1 "$lmp" -in "l$s.lmp" -log "l$s.log" -screen none || { echo "seeds.sh: LAMMPS failed, seed $s" >&2; exit 1; }
done
wait "$tessera_pid"

"$python" "$here/seeds.py" --repo "$repo" --commit "$commit" --tree-state "$tree_state" --dir "$scratch" \
  --seeds "$seeds" --steps "$steps" --potential "$potential" --start "$start" --tessera-binary "$tessera" \
  --results-dir "${RESULTS_DIR:-$repo/benchmarks/results}" \
  --cmd "${SEEDS:+SEEDS=\"$SEEDS\" }${STEPS:+STEPS=$STEPS }${EVERY:+EVERY=$EVERY }${POTENTIAL:+POTENTIAL=$POTENTIAL }${START:+START=$START }benchmarks/nve-conservation/seeds.sh"
