#!/usr/bin/env bash
# Molecules on every rank count and through restarts (issue 29): LAMMPS's
# two-type molecular melt (harmonic bonds and angles, special_bonds lj 0 0.5
# 0.8, tests/reference/mol_melt.data) and a Kremer-Grest melt built by the
# deck (system.polymer_melt, FENE, special_bonds fene), on 2, 3, 4 and 8
# ranks, give one rank's thermo to 1e-10 for 20 steps: bonds and angles
# cross sub-domain faces, their partners found among the ghosts. A restart
# continues bitwise on the grid that wrote it and within 1e-10 on another;
# a FENE bond stretched to R0 stops the run with exit 3 naming its atoms.
# Usage: molecules.sh TESSERA SOURCE_DIR
set -uo pipefail
# shellcheck source=/dev/null
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bin=$(realpath "$1")
src=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

columns="columns: [step, temp, pe, ke, etotal, press]"
cat > mol.yaml <<YAML
system: {read_data: $src/tests/reference/mol_melt.data}
$(mol_pair)
bonds: {style: harmonic}
angles:
  style: harmonic
  coeffs:
    - {type: 1, K: 50.0, theta0: 110.0}
    - {type: 2, K: 40.0, theta0: 120.0}
special_bonds: {lj: [0, 0.5, 0.8]}
neighbor: {skin: 0.3}
integrator: {style: langevin, dt: 0.005, temperature: 1.2, damping: 0.5, seed: 5}
run: {steps: 20}
output:
  thermo: {every: 1, file: mol.csv, $columns}
YAML
# 20 chains of 50 under the sanitizers (a box 10.6 wide: 8 ranks still
# get sub-boxes wider than the reach).
chains=$(sized 40 20)
cat > kg.yaml <<YAML
system:
  polymer_melt: {chains: $chains, beads: 50, density: 0.85, seed: 3}
velocity: {temperature: 1.0, seed: 9}
potential:
  style: lj/cut
  cutoff: 1.122462048309373
  shift: true
  coeffs:
    - {types: [1, 1], epsilon: 1.0, sigma: 1.0}
bonds: {style: fene, coeffs: [{type: 1, K: 30.0, R0: 1.5, epsilon: 1.0, sigma: 1.0}]}
special_bonds: fene
neighbor: {skin: 0.4}
integrator: {style: nve, dt: 0.012}
run: {steps: 20}
output:
  thermo: {every: 1, file: kg.csv, $columns}
YAML
# Under the sanitizers 2 and 8 ranks (a slab and a 2 x 2 x 2 grid) find a
# bad access as well as all four would.
rank_counts=$(sized "2 3 4 8" "2 8")
for sys in mol kg; do
  run_ranks 1 "$sys.yaml" > "$sys.1.out" 2>&1
  check "$sys: one rank runs" test $? -eq 0
  mv "$sys.csv" "$sys.1.csv"
  for np in $rank_counts; do
    run_ranks "$np" "$sys.yaml" > "$sys.$np.out" 2>&1
    check "$sys, $np ranks: exit 0" test $? -eq 0
    check "$sys, $np ranks: thermo equals one rank's to 1e-10" same_thermo "$sys.1.csv" "$sys.csv" 21
  done
done

# The kernel variants list neighbours (exclusions included) and sum forces
# bitwise alike: the scalar variant's run is the default variant's.
for sys in mol kg; do
  TESSERA_SIMD=scalar run_ranks 1 "$sys.yaml" > "$sys.scalar.out" 2>&1
  check "$sys, scalar kernels: thermo bitwise the default kernels'" cmp -s "$sys.1.csv" "$sys.csv"
done

# Half lists (neighbor.list: half) with exclusions, fractional special
# pairs, bonds and angles: the full list's one-rank thermo to 1e-10, on 1
# and 4 ranks.
for sys in mol kg; do
  sed -e 's/neighbor: {skin: \([0-9.]*\)}/neighbor: {skin: \1, list: half}/' "$sys.yaml" > "$sys-half.yaml"
  for np in 1 4; do
    run_ranks "$np" "$sys-half.yaml" > "$sys-half.$np.out" 2>&1
    check "$sys, half lists, $np rank(s): exit 0 on a half list" grep -q "^Backend .*, half neighbour list" "$sys-half.$np.out"
    check "$sys, half lists, $np rank(s): thermo equals the full list's one rank to 1e-10" same_thermo "$sys.1.csv" "$sys.csv" 21
  done
done

# Short pair cutoffs with angles: the molecular melt with every pair cut at
# 1.2 (reach 1.5) has angle ends up to ~2.2 apart. Without more ghosts the
# run stops naming an angle whose far atom it cannot see; with
# neighbor.ghost_cutoff 2.5 it runs, and 4 ranks equal one.
sed -e 's/cutoff: 2.5/cutoff: 1.2/' -e 's/mol.csv/short.csv/' mol.yaml > short.yaml
run_ranks 1 short.yaml > short.out 2>&1
check "angles beyond the ghosts' reach: exit 3" test $? -eq 3
check "... names the angle's atoms and neighbor.ghost_cutoff" \
  grep -Eq "an angle of atom [0-9]+ \(type [12], with atoms [0-9]+ and [0-9]+\): atom [0-9]+ is not within the ghosts' reach \(1.5\).*raise neighbor.ghost_cutoff" short.out
sed -i 's/neighbor: {skin: 0.3}/neighbor: {skin: 0.3, ghost_cutoff: 2.5}/' short.yaml
run_ranks 1 short.yaml > short.1.out 2>&1
check "... with neighbor.ghost_cutoff 2.5: exit 0" test $? -eq 0
mv short.csv short.1.csv
run_ranks 4 short.yaml > short.4.out 2>&1
check "... on 4 ranks: exit 0" test $? -eq 0
check "... on 4 ranks: thermo equals one rank's to 1e-10" same_thermo short.1.csv short.csv 21

# Restarts of the molecular melt: 40 steps with a checkpoint at 20; from
# it, the same grid continues bitwise, and 3 ranks within 1e-10.
sed -e 's/run: {steps: 20}/run: {steps: 40}/' -e 's/mol.csv/full.csv/' mol.yaml > long.yaml
printf '  checkpoint: {every: 20, path: ckpt}\n' >> long.yaml
leak_checked run_ranks 2 long.yaml > long.out 2>&1
check "restart: the 40-step run with checkpoints" test $? -eq 0
cp full.csv straight.csv
run_ranks 2 long.yaml --restart ckpt/ckpt-000000000020.h5 > again.out 2>&1
check "restart on the same grid: exit 0" test $? -eq 0
check "restart on the same grid: steps 20-40 bitwise" cmp <(tail -n 21 straight.csv) <(tail -n 21 full.csv)
run_ranks 3 long.yaml --restart ckpt/ckpt-000000000020.h5 > other.out 2>&1
check "restart on 3 ranks: exit 0" test $? -eq 0
tail -n 21 straight.csv > a.csv && tail -n 21 full.csv > b.csv
sed -i '1i step,temp,pe,ke,etotal,press' a.csv b.csv
check "restart on 3 ranks: steps 20-40 within 1e-10" same_thermo a.csv b.csv 21
sed 's/special_bonds: {lj: \[0, 0.5, 0.8\]}/special_bonds: {lj: [0, 0, 0]}/' long.yaml > other-special.yaml
run_ranks 1 other-special.yaml --restart ckpt/ckpt-000000000020.h5 > special.out 2>&1
check "a restart with other special_bonds factors: exit 2" test $? -eq 2
check "... names both sets of factors" grep -q "its special_bonds lj factors \[0, 0.5, 0.8\] differ from the deck's \[0, 0, 0\]" special.out

# The same atoms without their bonds and angles (the data file's topology
# sections and counts dropped): a checkpoint and a deck that disagree about
# the topology are refused either way (exit 2), never run as loose atoms.
/usr/bin/python3 - "$src/tests/reference/mol_melt.data" > loose.data <<'PY'
import re, sys
text = open(sys.argv[1]).read()
for section in ("Bonds", "Angles", "Bond Coeffs", "Angle Coeffs"):
    text = re.sub(r"\n%s[^\n]*\n\n(?:[^\n]+\n)+" % section, "\n", text)
text = re.sub(r"^\s*\d+ (bonds|angles|bond types|angle types)\n", "", text, flags=re.M)
print(text.replace("Atoms # angle", "Atoms # molecular"), end="")
PY
sed -e "s|read_data: $src/tests/reference/mol_melt.data|read_data: loose.data|" -e '/^bonds:/d' -e '/^angles:/,/^special_bonds:/d' \
  long.yaml > loose.yaml
run_ranks 1 loose.yaml --restart ckpt/ckpt-000000000020.h5 > loose.out 2>&1
check "a molecular checkpoint into a deck without bonds: exit 2" test $? -eq 2
check "... says the checkpoint holds bonds the deck lacks" grep -q "it holds bonds and angles (a molecular system), the deck's system has none" loose.out
sed -i 's|path: ckpt}|path: loose.ckpt}|' loose.yaml
run_ranks 1 loose.yaml > loose-run.out 2>&1
check "the loose atoms run (exit 0)" test $? -eq 0
run_ranks 1 long.yaml --restart loose.ckpt/ckpt-000000000020.h5 > bonded.out 2>&1
check "a checkpoint without bonds into a molecular deck: exit 2" test $? -eq 2
check "... says the deck has bonds the checkpoint lacks" grep -q "it holds no bonds or angles, the deck's system has them" bonded.out

# A FENE bond already at 1.52 > R0 = 1.5: exit 3 at step 0, naming it.
cat > pair.data <<'DATA'
two beads

2 atoms
1 atom types
1 bonds
1 bond types
0 10 xlo xhi
0 10 ylo yhi
0 10 zlo zhi

Masses

1 1.0

Atoms # bond

1 1 1 9.24 5 5
2 1 1 0.76 5 5

Bonds

1 1 1 2
DATA
sed -e 's|polymer_melt: {[^}]*}|read_data: pair.data|' -e 's/kg.csv/broken.csv/' kg.yaml > broken.yaml
"$bin" run broken.yaml > broken.out 2>&1
check "a broken FENE bond: exit 3" test $? -eq 3
check "a broken FENE bond: names the step, the atoms and the length" \
  grep -q "simulation stopped: step 0: the fene bond between atoms 1 and 2 (type 1) is broken: its length 1.52" broken.out
exit $fail
