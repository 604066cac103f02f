#!/usr/bin/env bash
# Mixed precision's energy conservation against GROMACS mixed (issue 31
# item 5). The 4,000-atom LJ melt of this folder (fcc 10^3 cells, density
# 0.8442, T0 1.44, energy-shifted lj/cut 2.5, dt 0.005) in NVE for STEPS
# steps, the list rebuilt every 10 steps over cutoff + 0.3 in every engine
# (GROMACS has no displacement check; in 10 steps no atom crosses half the
# skin here), once per velocity seed in: Tessera double, Tessera mixed
# (`precision: mixed`, full rows) and GROMACS 2022.5 mixed (md-vv, the
# velocity Verlet its NVE docs recommend; `vdw-modifier Potential-shift`,
# the same energy shift), each on THREADS cores, one after another. Per run:
# the slope of a line through E(t) per atom (per 100 tau) and the largest
# |E(t) - E(0)|. GROMACS draws its own velocities, so the comparison is of
# samples, not of trajectories (README.md, "Many seeds").
#   benchmarks/nve-conservation/mixed.sh [TESSERA_BIN]
# Environment: SEEDS (default "1 2 3"), STEPS (100000 = 500 tau), EVERY
# (energy sampling, 500), THREADS (2), GMX (default: the mixed build in the
# CPU-peer cache, TESSERA_CPU_PEERS_CACHE as for benchmarks/race/run.sh),
# RESULTS_DIR (benchmarks/results).
# Writes RESULTS_DIR/nve-mixed-<date>-<n>x<tau>tau.md; exits 1 when Tessera
# mixed's median excursion is more than twice GROMACS mixed's, or its mean
# |slope| more than twice GROMACS mixed's plus twice its standard error.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=$(realpath "${1:-$root/build/src/app/tessera}")
seeds=${SEEDS:-1 2 3}
steps=${STEPS:-100000}
every=${EVERY:-500}
threads=${THREADS:-2}
# The CPU-peer cache as benchmarks/race/run.sh finds it.
gmx=${GMX:-${TESSERA_CPU_PEERS_CACHE:-$(cd "$root/.." && pwd)/.cache/tessera-cpu-peers}/gromacs-mixed/install/bin/gmx}
[ -x "$gmx" ] || { echo "mixed.sh: no GROMACS mixed build (set GMX=, or run benchmarks/cpu-peers)" >&2; exit 2; }
[ -x "$bin" ] || { echo "mixed.sh: no Tessera binary at $bin" >&2; exit 2; }
results=${RESULTS_DIR:-$root/benchmarks/results}
python=${PYTHON:-/usr/bin/python3}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
kb=0.0083144626181532  # GROMACS's k_B, kJ/mol/K: sigma 1 nm, epsilon 1 kJ/mol, mass 1 u

tessera_deck() {  # file seed precision
  cat > "$1" <<EOF
units: lj
system:
  lattice: {style: fcc, density: 0.8442, cells: [10, 10, 10]}
  masses: [1.0]
velocity: {temperature: 1.44, seed: $2}
potential:
  style: lj/cut
  cutoff: 2.5
  shift: true
  coeffs:
    - {types: [1, 1], epsilon: 1.0, sigma: 1.0}
neighbor: {skin: 0.3, every: 10, delay: 0, check: false}
integrator: {style: nve, dt: 0.005}
precision: $3
run: {steps: $steps}
output:
  thermo: {every: $every, file: $(basename "$1" .yaml).csv, screen: false}
EOF
}

cd "$scratch"
"$python" "$root/benchmarks/race/race.py" gro --density 0.8442 --cells 10 --out conf.gro
"$python" "$root/benchmarks/race/race.py" top --c6 4.0 --c12 4.0 --atoms 4000 --title "LJ melt, density 0.8442" \
  --out topol.top
temp_k=$(awk -v kb=$kb 'BEGIN { printf "%.10g", 1.44 / kb }')
echo "run	seed	engine	file" > runs.tsv
for seed in $seeds; do
  for p in double mixed; do
    tessera_deck "t-$p-$seed.yaml" "$seed" "$p"
    OMP_NUM_THREADS=$threads "$bin" run "t-$p-$seed.yaml" --threads "$threads" > "t-$p-$seed.out" 2>&1 \
      || { tail -n 20 "t-$p-$seed.out" >&2; exit 1; }
    grep -q "^Backend .*$p precision" "t-$p-$seed.out" || { echo "mixed.sh: t-$p-$seed did not run in $p" >&2; exit 1; }
    echo "t-$p-$seed	$seed	tessera_$p	t-$p-$seed.csv" >> runs.tsv
  done
  cat > "g-$seed.mdp" <<EOF
integrator              = md-vv
dt                      = 0.005
nsteps                  = $steps
cutoff-scheme           = Verlet
nstlist                 = 10
verlet-buffer-tolerance = -1
rlist                   = 2.8
vdwtype                 = Cut-off
vdw-modifier            = Potential-shift
rvdw                    = 2.5
DispCorr                = no
coulombtype             = Cut-off
rcoulomb                = 2.5
tcoupl                  = no
pcoupl                  = no
gen-vel                 = yes
gen-temp                = $temp_k
gen-seed                = $seed
constraints             = none
comm-mode               = None
nstcalcenergy           = $every
nstenergy               = $every
nstlog                  = $steps
EOF
  "$gmx" grompp -f "g-$seed.mdp" -c conf.gro -p topol.top -o "g-$seed.tpr" -maxwarn 1 > "g-$seed.grompp.out" 2>&1 \
    || { tail -n 20 "g-$seed.grompp.out" >&2; exit 1; }
  env -u OMP_NUM_THREADS GMX_MAXBACKUP=-1 "$gmx" mdrun -s "g-$seed.tpr" -deffnm "g-$seed" -ntmpi 1 -ntomp "$threads" \
    -nb cpu -pin on -noconfout > "g-$seed.out" 2>&1 || { tail -n 20 "g-$seed.out" >&2; exit 1; }
  printf 'Total-Energy\n\n' | "$gmx" energy -f "g-$seed.edr" -o "g-$seed.xvg" > "g-$seed.energy.out" 2>&1 \
    || { tail -n 20 "g-$seed.energy.out" >&2; exit 1; }
  echo "g-$seed	$seed	gromacs_mixed	g-$seed.xvg" >> runs.tsv
done

mkdir -p "$results"
tau=$(awk -v s="$steps" 'BEGIN { printf "%d", s * 0.005 }')
nseeds=$(wc -w <<< "$seeds")
out="$results/nve-mixed-$(date -u +%Y-%m-%d)-${nseeds}x${tau}tau.md"
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
"$python" - runs.tsv "$out" "$commit" "$steps" "$every" "$threads" "$("$gmx" --version 2>/dev/null | awk -F: '/^GROMACS version/ {gsub(/ /, "", $2); print $2}')" <<'PY'
import csv, statistics, sys
import numpy as np
runs, out, commit, steps, every, threads, gver = sys.argv[1:8]
N, DT = 4000, 0.005
def series(engine, path):
    if engine.startswith("tessera"):
        rows = list(csv.DictReader(open(path)))
        t = np.array([float(r["step"]) * DT for r in rows])
        e = np.array([float(r["etotal"]) for r in rows])
    else:  # GROMACS: time (ps = tau), total energy (kJ/mol = epsilon) of all atoms
        data = np.array([[float(x) for x in l.split()[:2]] for l in open(path) if l.strip() and l[0] not in "#@"])
        t, e = data[:, 0], data[:, 1] / N
    return t, e
table, by = [], {}
for r in csv.DictReader(open(runs), delimiter="\t"):
    t, e = series(r["engine"], r["file"])
    slope = np.polyfit(t, e, 1)[0] * 100.0
    dev = float(np.max(np.abs(e - e[0])))
    table.append((r["seed"], r["engine"], len(t), e[0], slope, dev))
    by.setdefault(r["engine"], []).append((slope, dev))
names = {"tessera_double": "Tessera double", "tessera_mixed": "Tessera mixed (rows)", "gromacs_mixed": "GROMACS mixed"}
lines = [f"# NVE energy conservation in mixed precision: Tessera vs GROMACS ({len(table) // 3} seeds x {float(steps) * DT:g} tau)", "",
         f"Tessera {commit}, GROMACS {gver} mixed (md-vv); 4,000-atom LJ melt, energy-shifted lj/cut 2.5, dt 0.005, "
         f"{steps} steps, list every 10 steps over 2.8, energies every {every} steps, {threads} threads each. "
         "Written by `benchmarks/nve-conservation/mixed.sh`. E per atom in epsilon; slope per 100 tau.", "",
         "| seed | engine | samples | E(0) | slope | max \\|E - E(0)\\| |", "| --- | --- | ---: | ---: | ---: | ---: |"]
for seed, eng, n, e0, slope, dev in table:
    lines.append(f"| {seed} | {names[eng]} | {n} | {e0:.6f} | {slope:+.2e} | {dev:.2e} |")
lines += ["", "| engine | mean slope | its standard error | mean \\|slope\\| | median max \\|E - E(0)\\| | range |",
          "| --- | ---: | ---: | ---: | ---: | --- |"]
stats = {}
for eng in ("tessera_double", "tessera_mixed", "gromacs_mixed"):
    s = [x[0] for x in by[eng]]; d = [x[1] for x in by[eng]]
    se = statistics.stdev(s) / len(s) ** 0.5 if len(s) > 1 else float("nan")
    stats[eng] = (statistics.mean(s), se, statistics.mean(abs(x) for x in s), statistics.median(d))
    lines.append(f"| {names[eng]} | {stats[eng][0]:+.2e} | {se:.1e} | {stats[eng][2]:.2e} | {stats[eng][3]:.2e} | "
                 f"{min(d):.2e} .. {max(d):.2e} |")
tm, gm = stats["tessera_mixed"], stats["gromacs_mixed"]
se = gm[1] if gm[1] == gm[1] else 0.0
ok_dev = tm[3] <= 2 * gm[3]
ok_slope = tm[2] <= 2 * gm[2] + 2 * se
verdict = "PASS" if ok_dev and ok_slope else "FAIL"
lines += ["", f"Verdict: **{verdict}** (Tessera mixed's median excursion {tm[3]:.2e} against twice GROMACS mixed's, "
          f"{2 * gm[3]:.2e}; its mean |slope| {tm[2]:.2e} against twice GROMACS mixed's plus twice its standard error, "
          f"{2 * gm[2] + 2 * se:.2e}).", ""]
open(out, "w").write("\n".join(lines))
print("\n".join(lines))
sys.exit(0 if verdict == "PASS" else 1)
PY
