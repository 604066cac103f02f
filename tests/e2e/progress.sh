#!/usr/bin/env bash
# What a run tells its user while it goes (issue 9, items 2 and 3): progress
# lines in a log, a live line on a terminal, --quiet and --verbose, and the
# JSON-lines metrics file (also on 2 ranks and across a restart), with each
# rank's GPU as NVML reports it (a stand-in NVML library, FAKE_NVML_DIR).
#   bash tests/e2e/progress.sh TESSERA_BINARY FAKE_NVML_DIR
set -uo pipefail
# shellcheck source=/dev/null
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bin=$(realpath "$1")
fake_nvml=$(realpath "${2:?usage: progress.sh TESSERA_BINARY FAKE_NVML_DIR}")
py=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# deck NAME STEPS: 2,048 atoms; 864 (6^3 cells) under the sanitizers, where
# the same lines and files come from a smaller system.
deck() {  # deck NAME STEPS
  lj_deck "$1.yaml" --steps "$2" --cells "$(sized 8 6)" \
    "thermo: {every: 100, file: $1.csv}" \
    "checkpoint: {every: 200, path: $1.ckpt, keep: 2}" \
    "metrics: {every: 50, file: $1.jsonl}"
}
metrics_ok() {  # metrics_ok FILE FIRST LAST RANKS: one line per 50 steps, FIRST..LAST, well formed
  $py - "$@" <<'PY'
import json, sys
path, first, last, ranks = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rows = [json.loads(line) for line in open(path)]
steps = [r["step"] for r in rows]
assert steps == list(range(first, last + 1, 50)), steps
assert sum(r["interval_steps"] for r in rows) == last - first + 50, "intervals do not add up"
for r in rows:
    assert r["ranks"] == ranks and r["imbalance"] >= 1 and r["atom_steps_per_second"] > 0, r
    assert set(r["seconds_per_phase"]) >= {"Pair", "Neighbor", "Communicate"}, r
    assert r["resident_mib_max"] > 1 and r["backend"] == "cpu", r
    # Without NVML (no driver) there is no GPU reading; a machine with a
    # driver reports one GPU per rank.
    assert r["gpu"] is None or sorted(g["rank"] for g in r["gpu"]) == list(range(ranks)), r
print(f"  {len(rows)} lines, steps {steps[0]}..{steps[-1]}")
PY
}

deck log 600
"$bin" run log.yaml --progress-every 0.01 -v > log.out 2>&1
check "a log gets plain progress lines" grep -Eq "^Progress: step [0-9]+ of 600 \([0-9.]+%\), [0-9.e+]+ atom-steps/s, ETA [0-9]+:[0-9]{2}:[0-9]{2} \(at " log.out
check "a log gets no carriage returns" bash -c "! grep -q $'\r' log.out"
check "--verbose reports each checkpoint" test "$(grep -c '^Checkpoint log.ckpt/ckpt-[0-9]*\.h5 written at step' log.out)" -eq 3
check "metrics: a JSON line every 50 steps with the phases, imbalance and memory" metrics_ok log.jsonl 50 600 1

"$bin" run log.yaml --progress-every 0 > none.out 2>&1
check "--progress-every 0: no progress lines" bash -c "! grep -q '^Progress:' none.out"
"$bin" run log.yaml -q > quiet.out 2>&1
check "--quiet: exit 0" test $? -eq 0
check "--quiet: no banner, thermo or progress" bash -c "! grep -Eq '^(Deck |Progress:| +Step )' quiet.out"
check "--quiet: the result lines" grep -q "^Performance: " quiet.out

script -q -c "$bin run log.yaml" /dev/null > live.out 2>&1
check "a terminal gets a live line redrawn in place" grep -q $'\r\033\\[Kstep [0-9]* of 600 ' live.out
check "a terminal: the live line is cleared before the summary" grep -q $'\r\033\\[K\r*$' <(grep -a -B1 "Loop time" live.out | head -1)

deck ranks 400
mpirun -np 2 --oversubscribe "$bin" run ranks.yaml --threads 1 > ranks.out 2>&1
check "metrics on 2 ranks: one file, ranks 2" metrics_ok ranks.jsonl 50 400 2

# NVML through the stand-in library (two GPUs; GPU 1 does not report its
# memory): each rank reads the GPU of its local rank modulo the GPUs seen.
gpu_ok() {  # gpu_ok FILE EXPECTED_JSON: every line's "gpu" field
  $py - "$@" <<'PY'
import json, sys
want = json.loads(sys.argv[2])
for line in open(sys.argv[1]):
    got = json.loads(line)["gpu"]
    assert got == want, (got, want)
PY
}
gpu0='{"rank": 0, "index": 0, "name": "Fake \"Quoted\" GPU", "utilisation_pct": 40, "memory_utilisation_pct": 7, "temperature_c": 55, "memory_used_mib": 1536.0, "memory_total_mib": 81920.0}'
deck nvml 100
LD_LIBRARY_PATH=$fake_nvml "$bin" run nvml.yaml > nvml.out 2>&1
check "metrics with NVML: the rank's GPU, its utilisation, temperature and memory" gpu_ok nvml.jsonl "[$gpu0]"
rm -f nvml.jsonl nvml.csv && rm -rf nvml.ckpt
LD_LIBRARY_PATH=$fake_nvml mpirun -np 2 -x LD_LIBRARY_PATH "$bin" run nvml.yaml --threads 1 > nvml2.out 2>&1
gpu1='{"rank": 1, "index": 1, "name": "Fake GPU B", "utilisation_pct": 41, "memory_utilisation_pct": 7, "temperature_c": 56, "memory_used_mib": null, "memory_total_mib": null}'
check "metrics with NVML on 2 ranks: local ranks 0 and 1 read GPUs 0 and 1" gpu_ok nvml.jsonl "[$gpu0, $gpu1]"
rm -f nvml.jsonl nvml.csv && rm -rf nvml.ckpt
SLURM_LOCALID=3 LD_LIBRARY_PATH=$fake_nvml "$bin" run nvml.yaml > nvml3.out 2>&1
check "metrics with NVML: SLURM_LOCALID 3 over 2 GPUs reads GPU 1" gpu_ok nvml.jsonl "[${gpu1/\"rank\": 1/\"rank\": 0}]"

# A run that died after its checkpoint at 200 left lines up to 350; the
# restart drops them and writes its own.
deck cut 200
"$bin" run cut.yaml > cut1.out 2>&1
printf '{"step": 250, "stale": true}\n{"step": 300, "stale": true}\n' >> cut.jsonl
sed -i 's/steps: 200/steps: 400/' cut.yaml
"$bin" run cut.yaml --restart auto > cut2.out 2>&1
check "metrics across a restart: no stale or repeated step" metrics_ok cut.jsonl 50 400 1
exit $fail
