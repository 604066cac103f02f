#!/usr/bin/env bash
# Checkpoint and restart through the command line (issue 4):
#  - 1,000 steps straight and 500 + restart + 500 end bitwise identical
#    (200 and 100 + 100 under the sanitizers: they need each path run, not
#    run long)
#    (positions, velocities, thermo CSV, trajectory) for NVE, Langevin,
#    Nose-Hoover, npt (the box, the barostat and its chains continue) and
#    Langevin with the c-rescale barostat (the box and its ecouple continue);
#  - a run that died after its last checkpoint resumes without duplicated or
#    missing thermo lines and frames;
#  - --restart auto skips a damaged newest checkpoint and says so, starts
#    fresh in an empty folder, refuses a folder of only damaged ones;
#  - a full disk, a read-only folder and a missing path give exit 4 and
#    leave the previous checkpoint intact;
#  - MDAnalysis reads the trajectory and agrees with the final checkpoint.
set -uo pipefail
# shellcheck source=/dev/null
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bin=$(realpath "$1")
src=$(realpath "$2")
py=/usr/bin/python3
work=$(mktemp -d)
mounted=()
cleanup() {
  for m in "${mounted[@]}"; do umount "$m" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work"

# deck NAME STEPS INTEGRATOR: 2,048 atoms (8^3 fcc cells; 864, 6^3, under
# the sanitizers), checkpoints every $half steps, thermo and trajectory every
# $every: the runs are $steps steps, restarted at $half.
cells=$(sized 8 6)
natoms=$((4 * cells * cells * cells))
steps=$(sized 1000 200)
half=$((steps / 2))
every=$((steps / 10))
ck() { printf 'ckpt-%012d.h5' "$1"; }
deck() {
  lj_deck "$1.yaml" --steps "$2" --integrator "$3" --skin 0.3 --cells "$cells" \
    "thermo: {every: $every, file: $1.csv, screen: false}" \
    "checkpoint: {every: $half, path: $1.ckpt, keep: 3}" \
    "trajectory: {every: $every, file: $1.h5md, fields: [position, velocity, image]}"
}

integrators=(
  "{style: nve, dt: 0.005}"
  "{style: langevin, dt: 0.005, temperature: 1.0, damping: 1.0, seed: 5}"
  "{style: nose-hoover, dt: 0.005, temperature: 1.0, damping: 0.5}"
  "{style: npt, dt: 0.005, temperature: 1.0, damping: 0.5, pressure: 1.0, pressure_damping: 0.5, coupling: aniso}"
  "{style: langevin, dt: 0.005, temperature: 1.0, damping: 1.0, seed: 5, barostat: {style: c-rescale, pressure: 1.0, damping: 0.5, compressibility: 0.05, coupling: aniso}}"
)
names=(nve langevin nh npt crescale)
for k in 0 1 2 3 4; do
  n=${names[$k]}
  deck "$n-straight" "$steps" "${integrators[$k]}"
  "$bin" run "$n-straight.yaml" > "$n-straight.out" 2>&1
  check "$n: straight run exits 0" test $? -eq 0
  # The segmented run: same files, first $half steps, then the $steps-step deck
  # with --restart auto (the resubmitted job's command line).
  deck "$n-split" "$half" "${integrators[$k]}"
  "$bin" run "$n-split.yaml" --restart auto > "$n-split-1.out" 2>&1
  check "$n: first half exits 0" test $? -eq 0
  check "$n: first half starts fresh" grep -q "no checkpoint in $n-split.ckpt: starting fresh" "$n-split-1.out"
  deck "$n-split" "$steps" "${integrators[$k]}"
  "$bin" run "$n-split.yaml" --restart auto > "$n-split-2.out" 2>&1
  check "$n: second half exits 0" test $? -eq 0
  check "$n: second half restarts at $half" grep -q "Restarted from $n-split.ckpt/$(ck $half) at step $half" "$n-split-2.out"
  check "$n: final state bitwise identical" $py "$src/tests/e2e/compare_checkpoints.py" \
    "$n-straight.ckpt/$(ck $steps)" "$n-split.ckpt/$(ck $steps)"
  check "$n: thermo CSV identical" cmp -s "$n-straight.csv" "$n-split.csv"
  check "$n: trajectory frames identical" $py - "$n-straight.h5md" "$n-split.h5md" "$steps" "$every" <<'PY'
import sys, h5py
a, b = (h5py.File(p, "r")["particles/trajectory"] for p in sys.argv[1:3])
steps, every = int(sys.argv[3]), int(sys.argv[4])
for f in ("position", "velocity", "image"):
    assert list(a[f]["step"][()]) == list(range(0, steps + 1, every)), (f, a[f]["step"][()])
    assert a[f]["step"][()].tobytes() == b[f]["step"][()].tobytes(), f
    assert a[f]["value"][()].tobytes() == b[f]["value"][()].tobytes(), f
PY
done

# Half lists (neighbor.list: half) and the CPU's cluster layout
# (neighbor.layout: clusters) continue bitwise too: the list a restart
# rebuilds from the checkpoint's build positions has the straight run's
# slabs and clusters.
layout_restart() {  # name, deck key, banner text, integrator[, a top-level deck line]
  local n=$1 part
  for part in straight split; do
    deck "$n-$part" $([ $part = straight ] && echo "$steps" || echo "$half") "$4"
    sed -i "s/neighbor: {skin: 0.3}/neighbor: {skin: 0.3, $2}/" "$n-$part.yaml"
    [ -z "${5:-}" ] || echo "$5" >> "$n-$part.yaml"
  done
  "$bin" run "$n-straight.yaml" > "$n-straight.out" 2>&1
  check "$n: the straight run runs on it" grep -q "^Backend .*, $3" "$n-straight.out"
  "$bin" run "$n-split.yaml" --restart auto > "$n-split-1.out" 2>&1
  deck "$n-split" "$steps" "$4"
  sed -i "s/neighbor: {skin: 0.3}/neighbor: {skin: 0.3, $2}/" "$n-split.yaml"
  [ -z "${5:-}" ] || echo "$5" >> "$n-split.yaml"
  "$bin" run "$n-split.yaml" --restart auto > "$n-split-2.out" 2>&1
  check "$n: second half restarts at $half" grep -q "Restarted from $n-split.ckpt/$(ck $half) at step $half" "$n-split-2.out"
  check "$n: final state bitwise identical" $py "$src/tests/e2e/compare_checkpoints.py" \
    "$n-straight.ckpt/$(ck $steps)" "$n-split.ckpt/$(ck $steps)"
  check "$n: thermo CSV identical" cmp -s "$n-straight.csv" "$n-split.csv"
}
layout_restart half "list: half" "half neighbour list" "${integrators[2]}"
# NPT: the kernel's virial tensor every step, and a box that changes.
layout_restart clusters "layout: clusters" "cluster-pair neighbour list" "${integrators[3]}"
# The CPU's mixed precision (on clusters), whose float tiles must not
# depend on the atoms' order in the store.
layout_restart mixed "layout: clusters" "mixed precision" "${integrators[1]}" "precision: mixed"
# Mixed precision on full rows, under NPT (the float kernel's virial tensor
# every step, and a box that changes).
layout_restart mixed-rows "list: full" "mixed precision" "${integrators[3]}" "precision: mixed"

# Died after the checkpoint at $half with thermo and frames written up to
# $died: the resumed run drops those and rewrites them, ending identical.
died=$((steps * 7 / 10))
deck crash "$died" "${integrators[0]}"
"$bin" run crash.yaml > crash-1.out 2>&1
rm "crash.ckpt/$(ck $died)"
check "crash: thermo reached $died before the 'crash'" grep -q "^$died," crash.csv
deck crash "$steps" "${integrators[0]}"
"$bin" run crash.yaml --restart auto > crash-2.out 2>&1
check "crash: resumed run exits 0" test $? -eq 0
check "crash: thermo CSV identical to the straight run" cmp -s nve-straight.csv crash.csv
check "crash: same final state" $py "$src/tests/e2e/compare_checkpoints.py" \
  "nve-straight.ckpt/$(ck $steps)" "crash.ckpt/$(ck $steps)"
check "crash: trajectory has every frame once" $py - crash.h5md "$steps" "$every" <<'PY'
import sys, h5py
s = list(h5py.File(sys.argv[1], "r")["particles/trajectory/position/step"][()])
assert s == list(range(0, int(sys.argv[2]) + 1, int(sys.argv[3]))), s
PY

# MDAnalysis reads the trajectory; its last frame matches the checkpoint.
check "MDAnalysis reads the trajectory (11 frames, times, box, positions)" \
  $py "$src/tests/e2e/h5md_check.py" nve-straight.h5md "nve-straight.ckpt/$(ck $steps)" 11 0.005

# A damaged newest checkpoint: auto restart falls back and says so.
cp -r nve-straight.ckpt fallback.ckpt
head -c 20000 "nve-straight.ckpt/$(ck $steps)" > "fallback.ckpt/$(ck $steps)"
deck fallback "$steps" "${integrators[0]}"
"$bin" run fallback.yaml --restart auto > fallback.out 2>&1
check "fallback: exits 0" test $? -eq 0
check "fallback: names the damaged file" grep -q "skipping checkpoint fallback.ckpt/$(ck $steps): truncated" fallback.out
check "fallback: says which one it used" grep -q "falling back to the older checkpoint fallback.ckpt/$(ck $half) (step $half)" fallback.out
check "fallback: the rerun ends identical" $py "$src/tests/e2e/compare_checkpoints.py" \
  "nve-straight.ckpt/$(ck $steps)" "fallback.ckpt/$(ck $steps)"

# Only damaged checkpoints: refuse (exit 2) rather than start over on them.
mkdir -p ruined.ckpt
printf 'garbage' > ruined.ckpt/ckpt-000000000500.h5
deck ruined "$steps" "${integrators[0]}"
"$bin" run ruined.yaml --restart auto > ruined.out 2>&1
check "all damaged: exit 2" test $? -eq 2
check "all damaged: says none verifies" grep -q "none of the 1 checkpoints in ruined.ckpt verifies" ruined.out
check "all damaged: thermo file not touched" test ! -e ruined.csv

# An explicit --restart FILE that is bit-flipped: exit 2, names the file.
cp "nve-straight.ckpt/$(ck $half)" flipped.h5
printf '\xff\xff\xff\xff' | dd of=flipped.h5 bs=1 seek=5000 conv=notrunc 2>/dev/null
"$bin" run nve-straight.yaml --restart flipped.h5 > flipped.out 2>&1
check "bit flip: exit 2" test $? -eq 2
check "bit flip: names the file and the checksum" grep -q "checkpoint flipped.h5: corrupted: the whole-file checksum" flipped.out

# Wall-clock checkpoints: with every_seconds tiny, one after every step.
deck clock 12 "${integrators[0]}"
sed -i "s#checkpoint: {every: $half, path: clock.ckpt, keep: 3}#checkpoint: {every_seconds: 1.0e-9, path: clock.ckpt, keep: 100}#" clock.yaml
"$bin" run clock.yaml > clock.out 2>&1
check "every_seconds: exits 0" test $? -eq 0
check "every_seconds: a checkpoint at each of steps 1..12" test "$(ls clock.ckpt | tr '\n' ' ')" = \
  "$(for s in $(seq 1 12); do printf 'ckpt-%012d.h5 ' "$s"; done)"

# --restart auto on a deck without checkpoints: a notice and a fresh run.
# Under the sanitizers the deck's 32,000 atoms shrink to 864 and its 100
# steps to 10: the notice comes before the first step.
plain=$src/inputs/lj-melt.yaml
if sanitized; then
  sed -e "s/cells: \[20, 20, 20\]/cells: [$cells, $cells, $cells]/" -e 's/steps: 100}/steps: 10}/' "$plain" > plain.yaml
  plain=plain.yaml
fi
"$bin" run "$plain" --restart auto > plain.out 2>&1
check "--restart auto without checkpoints: exits 0" test $? -eq 0
check "--restart auto without checkpoints: says it starts fresh" grep -q "writes no checkpoints.*starting fresh" plain.out

# A missing path: a file where the checkpoint folder should be.
touch notafolder
deck missing 100 "${integrators[0]}"
sed -i 's#path: missing.ckpt#path: notafolder/sub#' missing.yaml
"$bin" run missing.yaml > missing.out 2>&1
check "missing path: exit 4" test $? -eq 4
check "missing path: names the folder" grep -q "cannot create folder notafolder/sub" missing.out

# A full disk and a read-only folder, on small tmpfs mounts (needs root and
# mount rights, as on the CI machine).
mkdir -p full ro
# Room for one checkpoint and not two: 289 kB each for 2,048 atoms, 133 kB
# for the 864 of a sanitized run.
if mount -t tmpfs -o "size=$(sized 400k 200k)" tmpfs full 2>/dev/null; then
  mounted+=("$work/full")
  deck full "$steps" "${integrators[0]}"
  sed -i 's#path: full.ckpt#path: full#' full.yaml
  "$bin" run full.yaml > full.out 2>&1
  rc=$?
  check "full disk: exit 4" test $rc -eq 4
  check "full disk: says no space" grep -q "No space left on device" full.out
  check "full disk: the previous checkpoint verifies and no temporary is left" $py - full "$natoms" <<'PY'
import os, sys, h5py
names = sorted(os.listdir(sys.argv[1]))
assert names and all(n.startswith("ckpt-") for n in names), names
f = h5py.File(os.path.join(sys.argv[1], names[-1]), "r")
assert f["atoms/position"].shape == (int(sys.argv[2]), 3)
PY
  newest=$(ls full | tail -n 1)
  deck survivor "$steps" "${integrators[0]}"
  "$bin" run survivor.yaml --restart "full/$newest" > survivor.out 2>&1; rc=$?
  check "full disk: restarting from the survivor works" test $rc -eq 0
  umount full && mounted=()
  if mount -t tmpfs -o ro,size=100k tmpfs ro 2>/dev/null; then
    mounted+=("$work/ro")
    deck ro 200 "${integrators[0]}"
    sed -i 's#path: ro.ckpt#path: ro#' ro.yaml
    "$bin" run ro.yaml > ro.out 2>&1
    check "read-only folder: exit 4" test $? -eq 4
    check "read-only folder: says read-only" grep -q "Read-only file system" ro.out
  fi
else
  echo "note: cannot mount tmpfs here; full-disk and read-only checks ran in the unit test (file-size limit) only"
fi
exit $fail
