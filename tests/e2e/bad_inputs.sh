#!/usr/bin/env bash
# Every deck in tests/bad-inputs/ must be refused by `tessera validate` and by
# `tessera run` with exit code 2 and the message fragment on its first line
# ("# expect: ..."), and must leave the working folder untouched.
set -uo pipefail
bin=$(realpath "$1")
dir=$(realpath "$2")
fail=0
count=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$dir"
for deck in *.yaml; do
  expect=$(head -n 1 "$deck" | sed -n 's/^# expect: //p')
  if [ -z "$expect" ]; then
    echo "FAIL $deck: no '# expect:' line"; fail=1; continue
  fi
  for cmd in validate run; do
    count=$((count + 1))
    echo "sentinel" > "$work/thermo.csv"
    err=$("$bin" $cmd "$deck" 2>&1 >/dev/null)
    rc=$?
    if [ $rc -ne 2 ]; then
      echo "FAIL $deck ($cmd): exit code $rc, expected 2"; echo "  $err"; fail=1
    elif [[ "$err" != *"$expect"* ]]; then
      echo "FAIL $deck ($cmd): message does not contain: $expect"; echo "  got: $err"; fail=1
    elif [ "$(wc -l < <(printf '%s\n' "$err"))" -ne 1 ]; then
      echo "FAIL $deck ($cmd): expected a one-line message, got:"; echo "$err"; fail=1
    fi
  done
done
[ "$(cat "$work/thermo.csv")" = "sentinel" ] || { echo "FAIL: a bad deck touched an output file"; fail=1; }
echo "bad inputs: $count checks"
exit $fail
