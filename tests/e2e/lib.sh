# Shared by the end-to-end scripts (sourced): one ok/FAIL line per check,
# and `fail` set to 1 by any failure, for the script's exit code.
fail=0
check() {  # check NAME COMMAND...
  local name=$1; shift
  if "$@"; then echo "ok   $name"; else echo "FAIL $name"; fail=1; fi
}
# Under the sanitizers (tests/sanitize/run.sh exports TESSERA_TEST_SANITIZED=1)
# the engine runs 5-10 times slower, and the sanitized stage is most of CI's
# time. ASan and UBSan find a bad access or UB the first time a code path
# runs, not by running it long, so there the scripts run the same checks on
# smaller systems and, where they repeat one path many times, repeat it
# less; each such place says so. Unset, every script runs as it always did.
sanitized() { [ "${TESSERA_TEST_SANITIZED:-0}" = 1 ]; }
# sized PLAIN SANITIZED: prints the first outside the sanitizers, the second
# under them (e.g. cells=$(sized 8 6)).
sized() { if sanitized; then echo "$2"; else echo "$1"; fi; }
# leak_checked COMMAND...: under the sanitizers, the ranks mpirun starts for
# COMMAND keep LeakSanitizer's check at exit, which tests/sanitize/run.sh
# leaves out of other multi-rank launches (it makes them 2-3 times slower);
# mark one launch per multi-rank path there. Outside the sanitizers: COMMAND.
leak_checked() { TESSERA_RANK_LEAK_CHECK=1 "$@"; }
# run_ranks N DECK [ARGS...]: `$bin run` with one thread per rank, on N MPI
# ranks (as root and oversubscribed, as the scripts export), plainly for 1.
run_ranks() {
  local n=$1; shift
  if [ "$n" -eq 1 ]; then "$bin" run "$@" --threads 1; else mpirun -np "$n" --oversubscribe "$bin" run "$@" --threads 1; fi
}
# same_thermo A.csv B.csv ROWS [TOL]: both thermo files have ROWS lines and
# every column within TOL (1e-10) relative (several ranks or a device
# against one rank).
same_thermo() {
  /usr/bin/python3 - "$1" "$2" "$3" "${4:-1e-10}" <<'PY'
import sys
import numpy as np
a, b = (np.genfromtxt(p, delimiter=",", names=True) for p in sys.argv[1:3])
assert len(a) == len(b) == int(sys.argv[3]), (len(a), len(b))
worst = max(float(np.max(np.abs(a[c] - b[c]) / np.abs(a[c]))) for c in a.dtype.names if c != "step")
print(f"  max relative difference {worst:.2e}")
sys.exit(0 if worst <= float(sys.argv[4]) else 1)
PY
}
# lj_deck FILE [--OPTION VALUE...] [OUTPUT...]: writes FILE, the one-type LJ
# melt (fcc, density 0.8442, cutoff 2.5) the scripts share, so they stay one
# system; each OUTPUT is a line of its output: section. Options (default):
# --steps N (required; may carry more run keys), --integrator YAML (nve, dt
# 0.005), --cells N (8: 2,048 atoms), --temperature T (1.44), --seed S
# (87287); --skin, --backend, --threads: that line only when given.
lj_deck() {
  local file=$1 steps='' integrator='{style: nve, dt: 0.005}' cells=8 temperature=1.44 seed=87287
  local skin='' backend='' threads=''
  shift
  while [[ $# -gt 0 && $1 == --* ]]; do
    if [ $# -lt 2 ]; then echo "lj_deck: $1 needs a value" >&2; return 2; fi
    case $1 in
      --steps) steps=$2 ;;
      --integrator) integrator=$2 ;;
      --cells) cells=$2 ;;
      --temperature) temperature=$2 ;;
      --seed) seed=$2 ;;
      --skin) skin=$2 ;;
      --backend) backend=$2 ;;
      --threads) threads=$2 ;;
      *) echo "lj_deck: unknown option $1" >&2; return 2 ;;
    esac
    shift 2
  done
  if [ -z "$steps" ]; then echo "lj_deck: --steps is required" >&2; return 2; fi
  {
    if [ -n "$threads" ]; then echo "threads: $threads"; fi
    cat <<YAML
system:
  lattice: {style: fcc, density: 0.8442, cells: [$cells, $cells, $cells]}
velocity: {temperature: $temperature, seed: $seed}
potential:
  style: lj/cut
  cutoff: 2.5
  coeffs:
    - {types: [1, 1], epsilon: 1.0, sigma: 1.0}
YAML
    if [ -n "$skin" ]; then echo "neighbor: {skin: $skin}"; fi
    echo "integrator: $integrator"
    if [ -n "$backend" ]; then echo "backend: $backend"; fi
    echo "run: {steps: $steps}"
    if [ $# -gt 0 ]; then
      echo "output:"
      printf '  %s\n' "$@"
    fi
  } > "$file"
}
# The model of LAMMPS's two-type molecular melt (tests/reference/mol_melt.data,
# as tests/unit/molecular_decks.hpp gives it): mol_pair prints its
# `potential:` block, mol_bonded its harmonic bonds and angles; the callers
# add special_bonds and the rest of their decks.
mol_pair() {
  cat <<'YAML'
potential:
  style: lj/cut
  cutoff: 2.5
  mixing: none
  coeffs:
    - {types: [1, 1], epsilon: 1.0, sigma: 1.0}
    - {types: [2, 2], epsilon: 0.8, sigma: 1.1}
    - {types: [1, 2], epsilon: 0.9, sigma: 1.05}
YAML
}
mol_bonded() {
  cat <<'YAML'
bonds:
  style: harmonic
  coeffs:
    - {type: 1, K: 200.0, r0: 1.0}
    - {type: 2, K: 150.0, r0: 1.1}
angles:
  style: harmonic
  coeffs:
    - {type: 1, K: 50.0, theta0: 110.0}
    - {type: 2, K: 40.0, theta0: 120.0}
YAML
}
