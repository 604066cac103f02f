#!/usr/bin/env bash
# Crash consistency (issue 8): SIGKILL the engine at random moments while it
# writes checkpoints, over and over, and check after every kill that
#  - every ckpt-*.h5 in the folder verifies: a published checkpoint is never
#    torn, because it is written under a temporary name and renamed;
#  - a temporary file left by the kill (a torn checkpoint) is refused by its
#    size or checksum, or is complete and verifies;
#  - the next `--restart auto` starts from the newest checkpoint, so the step
#    never goes backwards;
# and at the end that the run completes, its thermo CSV has every step once
# in order, and it is bitwise identical to a run that was never killed
# (thermo CSV and final checkpoint).
#
# Usage: kill.sh TESSERA REPO_ROOT [KILLS]   (default 5 kills, for CI)
# Prints "ok"/"FAIL" lines and the counts; exits non-zero on any failure.
set -uo pipefail
# shellcheck source=/dev/null
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bin=$(realpath "$1")
src=$(realpath "$2")
kills=${3:-5}
py=/usr/bin/python3
work=$(mktemp -d)
child=
cleanup() {
  [ -n "$child" ] && kill -9 "$child" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work"
fail=0
failures=0
say_fail() { echo "FAIL $*"; fail=1; failures=$((failures + 1)); }

# deck NAME STEPS OUTPUTS: 2,048 atoms (8^3 fcc cells), one thread so that
# the test shares a 2-core CI machine; checkpoints every 20 steps, keep 3.
# STEPS is the step the run ends at; OUTPUTS=no gives the verify deck, which
# writes nothing.
deck() {
  local outputs=()
  [ "$3" = no ] || outputs=("thermo: {every: 10, file: $1.csv, screen: false}" "checkpoint: {every: 20, path: $1.ckpt, keep: 3}")
  lj_deck "$1.yaml" --threads 1 --skin 0.3 --steps "$2" "${outputs[@]}"
}

# verify FILE: prints "good STEP", "torn REASON" (refused by the size or
# checksum check) or "other MESSAGE". The engine itself checks: the verify
# deck (same system, run.steps 0, no outputs) makes `run --restart FILE` read
# and verify FILE fully, then refuse to go on because the checkpoint is past
# step 0, so it never runs a step or writes a file.
verify() {
  local err
  err=$("$bin" run verify.yaml --restart "$1" 2>&1 >/dev/null)
  if [[ "$err" =~ "the checkpoint is at step "([0-9]+)", past run.steps = 0" ]]; then
    echo "good ${BASH_REMATCH[1]}"
  elif [[ "$err" == *"truncated"* || "$err" == *"corrupted"* || "$err" == *"has extra bytes"* ]]; then
    echo "torn $err"
  else
    echo "other $err"
  fi
}

big=100000000  # run.steps during the kills: no launch ever finishes
deck run "$big" yes
deck verify 0 no

launches=0 restarted=0 fresh=0 early=0 in_write=0 torn_refused=0 tmp_complete=0 files_checked=0
prev_step=-1   # newest step a run has restarted from so far
newest_good=-1 # newest checkpoint that verified after the last kill
for ((k = 1; k <= kills; k++)); do
  "$bin" run run.yaml --restart auto > "launch-$k.out" 2>&1 &
  child=$!
  launches=$((launches + 1))
  # A random moment 0.05-1.5 s in: often before the first step, often in
  # the middle of one of the frequent checkpoint writes.
  ms=$((50 + RANDOM % 1451))
  sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
  kill -9 "$child" 2>/dev/null
  wait "$child" 2>/dev/null
  rc=$?
  child=
  if [ "$rc" -ne 137 ]; then
    say_fail "kill $k: the run ended by itself with exit code $rc before the kill"; tail -n 3 "launch-$k.out"
  fi

  # Where did this launch start from? It prints that before the first step.
  line=$(grep -m1 -E "^Restarted from .* at step [0-9]+$|starting fresh" "launch-$k.out")
  if [[ "$line" =~ at\ step\ ([0-9]+)$ ]]; then
    s=${BASH_REMATCH[1]}
    restarted=$((restarted + 1))
    [ "$s" -ge "$prev_step" ] || say_fail "kill $k: restarted at step $s, behind step $prev_step of an earlier restart"
    [ "$s" -eq "$newest_good" ] || say_fail "kill $k: restarted at step $s, but the newest good checkpoint was $newest_good"
    prev_step=$s
  elif [[ "$line" == *"starting fresh"* ]]; then
    fresh=$((fresh + 1))
    [ "$newest_good" -lt 0 ] || say_fail "kill $k: started fresh although checkpoint $newest_good verified"
  else
    early=$((early + 1))  # killed before it had chosen where to start
  fi
  if grep -q "skipping\|falling back" "launch-$k.out"; then
    say_fail "kill $k: --restart auto had to skip a checkpoint:"; grep "skipping\|falling back" "launch-$k.out"
  fi

  # A temporary file means the kill landed inside a checkpoint write.
  tmps=(run.ckpt/.ckpt-*.tmp.*)
  if [ -e "${tmps[0]}" ]; then
    in_write=$((in_write + 1))
    for t in "${tmps[@]}"; do
      cp "$t" torn.h5
      v=$(verify torn.h5)
      case "$v" in
        torn*) torn_refused=$((torn_refused + 1)) ;;
        good*) tmp_complete=$((tmp_complete + 1)) ;;  # killed between the last byte and the rename
        *) say_fail "kill $k: torn file $t refused for another reason: ${v#other }" ;;
      esac
    done
  fi

  # Every published checkpoint must verify.
  newest_good=-1
  for f in run.ckpt/ckpt-*.h5; do
    [ -e "$f" ] || continue
    files_checked=$((files_checked + 1))
    v=$(verify "$f")
    if [[ "$v" == good* ]]; then
      s=${v#good }
      [ "$s" -gt "$newest_good" ] && newest_good=$s
    else
      say_fail "kill $k: published checkpoint $f does not verify: ${v#* }"
    fi
  done
  [ "$newest_good" -ge "$prev_step" ] || say_fail "kill $k: newest good checkpoint $newest_good is behind step $prev_step"
done

# Let the run finish a little past its newest checkpoint, then compare with
# a run of the same length that was never killed.
final=$(( (newest_good < 0 ? 0 : newest_good) + 100 ))
deck run "$final" yes
"$bin" run run.yaml --restart auto > final.out 2>&1
rc=$?
if [ $rc -eq 0 ]; then echo "ok   final run completes at step $final"; else say_fail "final run: exit code $rc"; tail -n 3 final.out; fi
if [ "$newest_good" -ge 0 ]; then
  grep -q "^Restarted from run.ckpt/ckpt-$(printf '%012d' "$newest_good").h5 at step $newest_good$" final.out \
    || say_fail "final run did not restart from step $newest_good: $(grep -m1 'Restarted\|fresh' final.out)"
fi

# Thermo CSV: every 10 steps from 0 to the end, each once, in order.
if awk -F, -v last="$final" 'NR == 1 { next }
  { if ($1 != expect) { printf "  line %d: step %s, expected %d\n", NR, $1, expect; bad = 1; exit }
    expect += 10 }
  END { if (!bad && expect - 10 != last) { printf "  ends at step %d, expected %d\n", expect - 10, last; bad = 1 }
        exit bad }' expect=0 run.csv; then
  echo "ok   thermo CSV: steps 0, 10, ..., $final, each once, in order"
else
  say_fail "thermo CSV steps are not 0, 10, ..., $final each once"
fi

deck straight "$final" yes
"$bin" run straight.yaml > straight.out 2>&1 || say_fail "uninterrupted run: exit code $?"
# The CSVs differ only in nothing: same steps, same 17-digit values.
if cmp -s run.csv straight.csv; then
  echo "ok   thermo CSV bitwise identical to the uninterrupted run"
else
  say_fail "thermo CSV differs from the uninterrupted run"; diff run.csv straight.csv | head -n 4
fi
last=$(printf '%012d' "$final")
if $py "$src/tests/e2e/compare_checkpoints.py" "run.ckpt/ckpt-$last.h5" "straight.ckpt/ckpt-$last.h5" > cmp.out 2>&1; then
  echo "ok   final checkpoint bitwise identical to the uninterrupted run"
else
  say_fail "final checkpoint differs from the uninterrupted run"; cat cmp.out
fi

echo "kills: $kills; launches that restarted from a checkpoint: $restarted, started fresh: $fresh, killed before choosing: $early"
echo "kills inside a checkpoint write (temporary file left): $in_write; torn temporaries refused by size/checksum: $torn_refused, complete temporaries: $tmp_complete"
echo "published checkpoints verified after kills: $files_checked; newest step reached: $newest_good; failures: $failures"
[ $fail -eq 0 ] && echo "ok   crash consistency over $kills kills"
exit $fail
