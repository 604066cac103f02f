#!/usr/bin/env bash
# The bad-input catalogue (issue 8). Every deck in tests/bad-inputs/ is
# refused with exit code 2 and the message fragment on its first line
# ("# expect: ..."): no crash, no hang, nothing written or overwritten.
#
# Two kinds of case:
#  - a plain deck (and the LAMMPS data file it reads): `tessera validate` and
#    `tessera run` must both refuse it;
#  - ckpt-*.yaml: a good deck and a damaged checkpoint. Its second line is
#    "# checkpoint: <recipe>" and an optional third "# source: <deck>" names
#    the deck that writes the checkpoint (default data/ckpt-source.yaml). The
#    runner runs the source deck in a scratch folder, damages its newest
#    checkpoint as the recipe says, then `tessera validate DECK` must pass
#    (the deck is fine) and `tessera run DECK --restart FILE` must exit 2
#    with the fragment and leave FILE as it was. Recipes:
#      good                  the checkpoint as written (for deck mismatches)
#      truncate N            cut the file to N bytes
#      append N              add N zero bytes
#      flip OFFSET           invert every bit of the byte at OFFSET (negative:
#                            from the end)
#      header KEY VALUE      rewrite one line of the text header (format,
#                            bytes, xxh3_64)
#      empty | text | folder | missing
#                            an empty file, a text file, a directory, no file
#      trajectory            the source run's H5MD trajectory: HDF5, not ours
#      file PATH             a stored file from the catalogue (for damage that
#                            needs a valid seal, e.g. found by fuzzing)
# Every engine call runs under a 4 GiB address-space limit: a small bad
# input must not make the engine allocate gigabytes.
set -uo pipefail
bin=$(realpath "$1")
dir=$(realpath "$2")
fail=0
count=0
cases=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$dir"
# A hung engine must fail the case, not the whole CI job.
limit=60
mem_kb=$((4 * 1024 * 1024))
# engine ARGS...: the engine under the time and memory limits.
engine() { (ulimit -v "$mem_kb"; exec timeout "$limit" "$bin" "$@"); }

# Fingerprint of the catalogue folder: a case that writes or overwrites
# anything in it shows up as a difference at the end.
fingerprint() { find . -type f -print0 | sort -z | xargs -0 md5sum; }
before=$(fingerprint)

# one_line_error NAME RC ERR EXPECT: the shared checks on one refusal.
check_refusal() {
  local name=$1 rc=$2 err=$3 expect=$4
  if [ "$rc" -eq 124 ]; then
    echo "FAIL $name: no answer within ${limit}s (hang)"; fail=1
  elif [ "$rc" -ne 2 ]; then
    echo "FAIL $name: exit code $rc, expected 2"; echo "  $err"; fail=1
  elif [[ "$err" != *"$expect"* ]]; then
    echo "FAIL $name: message does not contain: $expect"; echo "  got: $err"; fail=1
  elif [ "$(wc -l < <(printf '%s\n' "$err"))" -ne 1 ]; then
    echo "FAIL $name: expected a one-line message, got:"; echo "$err"; fail=1
  fi
}

# make_source DECK: runs a source deck once (cached) in its own scratch
# folder and prints that folder. The deck writes checkpoints to ckpt/ and
# may write a trajectory traj.h5md.
make_source() {
  local src=$1 key out
  key=$(printf '%s' "$src" | tr '/.' '__')
  out="$work/source-$key"
  if [ ! -d "$out" ]; then
    mkdir -p "$out"
    cp "$src" "$out/deck.yaml"
    if ! (cd "$out" && timeout "$limit" "$bin" run deck.yaml > run.log 2>&1); then
      echo "FAIL source deck $src did not run:" >&2; cat "$out/run.log" >&2
      return 1
    fi
  fi
  printf '%s\n' "$out"
}

# damage FILE RECIPE... : applies a recipe to FILE in place.
damage() {
  local f=$1; shift
  local size off byte
  case "$1" in
    good) ;;
    truncate) truncate -s "$2" "$f" ;;
    append) head -c "$2" /dev/zero >> "$f" ;;
    flip)
      size=$(stat -c %s "$f")
      off=$2; [ "$off" -lt 0 ] && off=$((size + off))
      byte=$(od -An -tu1 -j "$off" -N1 "$f" | tr -d ' ')
      # printf needs the inverted byte as an octal escape.
      printf "\\$(printf '%03o' $((byte ^ 255)))" | dd of="$f" bs=1 seek="$off" conv=notrunc status=none ;;
    header)
      # The header is NUL-padded text in the first 512 bytes: rewrite the
      # line "KEY ..." and pad it back to 512 bytes, body unchanged.
      local text
      text=$(head -c 512 "$f" | tr -d '\0' | sed "s/^$2 .*/$2 $3/")
      { printf '%s\n' "$text"; head -c $((512 - ${#text} - 1)) /dev/zero; tail -c +513 "$f"; } > "$f.new"
      mv "$f.new" "$f" ;;
    empty) : > "$f" ;;
    text) rm -f "$f"; for _ in $(seq 40); do cat "$dir/data/ckpt-source.yaml"; done > "$f" ;;
    folder) rm -f "$f"; mkdir "$f" ;;
    missing) rm -f "$f" ;;
    trajectory) cp "$src_dir/traj.h5md" "$f" ;;
    file) cp "$dir/$2" "$f" ;;
    *) echo "FAIL unknown checkpoint recipe: $*"; fail=1; return 1 ;;
  esac
}

for deck in *.yaml; do
  expect=$(head -n 1 "$deck" | sed -n 's/^# expect: //p')
  if [ -z "$expect" ]; then
    echo "FAIL $deck: no '# expect:' line"; fail=1; continue
  fi
  cases=$((cases + 1))
  if [[ "$deck" != ckpt-* ]]; then
    for cmd in validate run; do
      count=$((count + 1))
      echo "sentinel" > "$work/thermo.csv"
      err=$(engine $cmd "$deck" 2>&1 >/dev/null)
      check_refusal "$deck ($cmd)" $? "$err" "$expect"
    done
    continue
  fi

  # A checkpoint case.
  recipe=$(sed -n '2s/^# checkpoint: //p' "$deck")
  source=$(sed -n '3s/^# source: //p' "$deck")
  [ -n "$source" ] || source=data/ckpt-source.yaml
  if [ -z "$recipe" ]; then
    echo "FAIL $deck: no '# checkpoint:' line"; fail=1; continue
  fi
  src_dir=$(make_source "$source") || { fail=1; continue; }
  newest=$(ls "$src_dir"/ckpt/ckpt-*.h5 2>/dev/null | sort | tail -n 1)
  if [ -z "$newest" ]; then
    echo "FAIL $deck: the source deck $source wrote no checkpoint"; fail=1; continue
  fi
  bad="$work/${deck%.yaml}.h5"
  cp "$newest" "$bad"
  # shellcheck disable=SC2086  # the recipe's words are its arguments
  damage "$bad" $recipe || continue
  [ -f "$bad" ] && cp "$bad" "$bad.orig"
  count=$((count + 1))
  err=$(engine validate "$deck" 2>&1 >/dev/null)
  rc=$?
  if [ $rc -ne 0 ]; then
    echo "FAIL $deck (validate): the deck itself should pass, exit code $rc"; echo "  $err"; fail=1
  fi
  count=$((count + 1))
  err=$(engine run "$deck" --restart "$bad" 2>&1 >/dev/null)
  check_refusal "$deck (run --restart, $recipe)" $? "$err" "$expect"
  if [ -f "$bad.orig" ] && ! cmp -s "$bad" "$bad.orig"; then
    echo "FAIL $deck: the refused checkpoint was modified"; fail=1
  fi
done
[ "$(cat "$work/thermo.csv")" = "sentinel" ] || { echo "FAIL: a bad deck touched an output file"; fail=1; }
if [ "$(fingerprint)" != "$before" ]; then
  echo "FAIL: a case wrote into the catalogue folder:"
  diff <(printf '%s\n' "$before") <(fingerprint) | head -n 20; fail=1
fi
echo "bad inputs: $cases cases, $count checks"
exit $fail
