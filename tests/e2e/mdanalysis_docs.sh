#!/usr/bin/env bash
# The MDAnalysis reads the docs show, run as written (docs_read_check.py) on
# real runs (issue 26, item 2): on 1 and on 2 ranks, and on a run continued
# from a checkpoint. The topology file a run writes beside its trajectory
# (run.data) is the same whatever the rank count, a continued run keeps the
# one its first segment wrote (the bytes of a run never stopped), and a
# continued run whose topology is missing writes it again.
# Usage: mdanalysis_docs.sh TESSERA_BINARY SOURCE_DIR
set -uo pipefail
# shellcheck source=/dev/null
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bin=$(realpath "$1")
src=$(realpath "$2")
py=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

# deck FOLDER STEPS: 256 atoms, a frame every 10 steps into run.h5md (the
# name the docs use), a checkpoint every 20.
deck() {
  mkdir -p "$1"
  lj_deck "$1/deck.yaml" --steps "$2" --cells 4 \
    "thermo: {every: 10, screen: false}" \
    "checkpoint: {every: 20, path: ckpt, keep: 5}" \
    "trajectory: {every: 10, file: run.h5md, fields: [position, velocity]}"
}
# reads FOLDER: the docs' reads on FOLDER's run, its last checkpoint the reference.
reads() {
  $py "$src/tests/e2e/docs_read_check.py" "$src" "$1" "$(ls "$1"/ckpt/ckpt-*.h5 | sort | tail -n 1)"
}

for n in 1 2; do
  deck "ranks$n" 40
  (cd "ranks$n" && run_ranks "$n" deck.yaml > run.log 2>&1)
  check "$n rank(s): the run exits 0" test $? -eq 0
  check "$n rank(s): the topology run.data is written beside run.h5md" test -s "ranks$n/run.data"
  check "$n rank(s): the documented MDAnalysis reads get what the run wrote" reads "ranks$n"
done
check "the topology is the same on 1 and 2 ranks" cmp ranks1/run.data ranks2/run.data
check "the topology holds step 0's coordinates" grep -q "coordinates of step 0$" ranks1/run.data

# Stopped at step 20 (run.steps 20), continued to 40 on 2 ranks.
deck split 20
(cd split && run_ranks 1 deck.yaml > run1.log 2>&1)
check "split run, first segment: exit 0" test $? -eq 0
sed -i 's/steps: 20/steps: 40/' split/deck.yaml
(cd split && run_ranks 2 deck.yaml --restart auto > run2.log 2>&1)
check "split run, continued on 2 ranks: exit 0" test $? -eq 0
check "a continued run keeps the first segment's topology (that of a run never stopped)" \
  cmp ranks1/run.data split/run.data
check "split run: the documented reads get what the run wrote" reads split
rm split/run.data
(cd split && run_ranks 2 deck.yaml --restart auto > run3.log 2>&1)
check "a continued run whose topology is missing: exit 0" test $? -eq 0
check "... writes it again, with the coordinates it resumed from" grep -q "coordinates of step 40$" split/run.data
check "... and the documented reads work on it" reads split

((fail)) && for f in ranks1/run.log ranks2/run.log split/run*.log; do echo "== $f"; cat "$f"; done
exit $fail
