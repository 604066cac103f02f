#!/usr/bin/env bash
# Soak run (issue 8, item 6): a long run of a 4,000-atom LJ liquid with
# frequent checkpoints and trajectory frames, sampled every few seconds for
# resident memory and open file descriptors. Passes when the typical
# (median) resident memory of the last tenth of the run is within 2 MiB of
# that of the second tenth (the first is warm-up: buffers, HDF5 caches), no
# sample exceeds it by more than 16 MiB (a checkpoint being built in memory),
# and the descriptor count never exceeds its warm-up value by more than 2 (a
# checkpoint being written) and ends where it started.
#
# usage: tests/soak/run.sh TESSERA_BINARY [STEPS] [OUT_DIR]
#   STEPS defaults to 1,000,000; OUT_DIR keeps samples.csv and summary.md.
set -uo pipefail
bin=$(realpath "$1")
steps=${2:-1000000}
out=$(realpath -m "${3:-soak-out}")
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"; [ -n "${pid:-}" ] && kill "$pid" 2>/dev/null' EXIT
cd "$work"
cat > soak.yaml <<YAML
system:
  lattice: {style: fcc, density: 0.8442, cells: [10, 10, 10]}
velocity: {temperature: 1.0, seed: 4242}
potential:
  style: lj/cut
  cutoff: 2.5
  coeffs:
    - {types: [1, 1], epsilon: 1.0, sigma: 1.0}
integrator: {style: langevin, dt: 0.005, temperature: 1.0, damping: 1.0, seed: 7}
run: {steps: $steps}
output:
  thermo: {every: 1000, file: soak.csv, screen: false}
  checkpoint: {every: 5000, path: soak.ckpt, keep: 3}
  trajectory: {every: 2000, file: soak.h5md, fields: [position, velocity]}
YAML
"$bin" run soak.yaml --threads "${SOAK_THREADS:-1}" > soak.out 2>&1 &
pid=$!
start=$(date +%s)
echo "seconds,step,rss_kib,fds" > "$out/samples.csv"
while kill -0 "$pid" 2>/dev/null; do
  rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
  fds=$(ls "/proc/$pid/fd" 2>/dev/null | wc -l)
  step=$(tail -n 1 soak.csv 2>/dev/null | cut -d, -f1)
  [ -n "$rss" ] && echo "$(($(date +%s) - start)),${step:-0},$rss,$fds" >> "$out/samples.csv"
  sleep "${SOAK_SAMPLE_SECONDS:-5}"
done
wait "$pid"
rc=$?
pid=
cp soak.out "$out/engine.out"
/usr/bin/python3 - "$out" "$rc" "$steps" <<'PY'
import sys
import numpy as np
out, rc, steps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
d = np.genfromtxt(f"{out}/samples.csv", delimiter=",", names=True)
tenth = max(1, len(d) // 10)
warm, second, final = d[:tenth], d[tenth : 2 * tenth], d[-tenth:]
rest = d[tenth:]
base = float(np.median(second["rss_kib"])) if len(second) else float(warm["rss_kib"][-1])
growth = (float(np.median(final["rss_kib"])) - base) / 1024
peak = (float(rest["rss_kib"].max()) - base) / 1024 if len(rest) else 0.0
fd0 = warm["fds"][-1]
fd_max = int(rest["fds"].max()) if len(rest) else int(fd0)
fd_end = int(d["fds"][-1])
ok = rc == 0 and len(rest) >= 10 and abs(growth) < 2.0 and peak < 16 and fd_max <= fd0 + 2 and fd_end == fd0
lines = [
    "# Soak run",
    "",
    f"- {steps:,} steps of 4,000 LJ atoms (Langevin), checkpoint every 5,000 steps (keep 3), trajectory frame every 2,000,"
    " thermo every 1,000; one OpenMP thread unless SOAK_THREADS is set.",
    f"- Engine exit code {rc}; {len(d)} samples over {int(d['seconds'][-1])} s.",
    f"- Resident memory (median): {base / 1024:.1f} MiB over the second tenth of the run, "
    f"{np.median(final['rss_kib']) / 1024:.1f} MiB over the last tenth: change {growth:+.2f} MiB (limit 2). "
    f"Highest sample {rest['rss_kib'].max() / 1024:.1f} MiB ({peak:+.1f} MiB, limit 16: a checkpoint being built).",
    f"- Open file descriptors: {int(fd0)} after warm-up, {fd_max} at most, {fd_end} at the end (limits: +2, equal).",
    f"- Verdict: {'PASS' if ok else 'FAIL'}",
]
open(f"{out}/summary.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
sys.exit(0 if ok else 1)
PY
