#!/usr/bin/env bash
# Regenerate the LAMMPS reference outputs for Tessera's tests.
#
# Runs LAMMPS serially on the *.lmp inputs next to this script and writes all
# outputs next to this script (whatever the current directory is). LAMMPS logs
# go to a temporary directory that is removed afterwards (kept on failure).
# Finishes with check_references.py, which validates every output and
# recomputes energies/forces independently with numpy.
#
# Environment overrides: LMP (default: lmp), PYTHON (default: /usr/bin/python3)
set -euo pipefail

DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
LMP="${LMP:-lmp}"
PYTHON="${PYTHON:-/usr/bin/python3}"
export OMP_NUM_THREADS=1

TMP="$(mktemp -d "${TMPDIR:-/tmp}/tessera-ref.XXXXXX")"
ok=0
cleanup() {
    if [[ $ok -eq 1 ]]; then rm -rf "$TMP"; else echo "LAMMPS logs kept in $TMP" >&2; fi
}
trap cleanup EXIT

cd "$DIR"
version="$("$LMP" -h | sed -n 's/^ *Large-scale.*Simulator - //p')"
echo "LAMMPS: $version"
if [[ "$version" != "29 Sep 2021"* ]]; then
    echo "WARNING: references were made with LAMMPS 29 Sep 2021 - Update 2; got '$version'" >&2
fi

run_lmp() {  # run_lmp NAME [LMP ARGS...] -> runs NAME.lmp, log in $TMP/NAME.log
    local name="$1"
    shift
    echo "  lmp -in $name.lmp${*:+ $*}"
    if ! "$LMP" -nocite "$@" -in "$name.lmp" -log "$TMP/$name.log" -screen "$TMP/$name.screen"; then
        echo "LAMMPS failed on $name.lmp; last lines of its log:" >&2
        tail -n 20 "$TMP/$name.log" >&2 || true
        exit 1
    fi
    if grep -q '^ERROR' "$TMP/$name.log"; then
        echo "ERROR in $TMP/$name.log" >&2; exit 1
    fi
    if grep -q '^WARNING' "$TMP/$name.log"; then
        echo "  warnings in $name.log:"; grep '^WARNING' "$TMP/$name.log" | sed 's/^/    /'
    fi
}

# Remove previous outputs so nothing stale survives.
rm -f ./*_melt.data ./*_forces.dump ./*_run0.csv ./*_tensor_run0.csv ./*_nve_1000.csv ./mix_rdf.txt ./mix_msd.txt \
    ./lj_npt_iso.csv ./mix_npt_aniso.csv ./lj_nph_iso.csv \
    ./*_melt.data.gz ./*_forces.dump.gz ./*_nve_100.csv ./fene_clamp.txt

echo "melts (1000 steps NVE from T=3.0):"
for sys in lj morse mix; do
    run_lmp "${sys}_melt"
    "$PYTHON" extract_thermo.py "$TMP/${sys}_melt.log" "$TMP/${sys}_melt.csv"
    echo "    final thermo (step,temp,pe,ke,etotal,press): $(tail -n 1 "$TMP/${sys}_melt.csv")"
done

echo "run 0 single points:"
for name in lj_run0 lj_shift_run0 lj_smooth_run0 morse_run0 mix_run0 morse_tensor_run0 mix_tensor_run0; do
    run_lmp "$name"
    "$PYTHON" extract_thermo.py "$TMP/$name.log" "$name.csv"
done

echo "NVE trajectories (1000 steps, thermo every step):"
for sys in lj lj_smooth morse; do
    run_lmp "${sys}_nve"
    "$PYTHON" extract_thermo.py "$TMP/${sys}_nve.log" "${sys}_nve_1000.csv"
done

echo "constant pressure (200 steps of fix npt / fix nph, thermo every step):"
run_lmp mix_aniso_melt  # the non-cubic two-type melt with per-pair cutoffs
for name in lj_npt_iso mix_npt_aniso lj_nph_iso; do
    run_lmp "$name"
    "$PYTHON" extract_thermo.py "$TMP/$name.log" "$name.csv"
done

echo "metal and real units (200 steps of fix nvt / fix npt, thermo every step, totals):"
rm -f ./cu_morse_metal_melt.data ./ar_lj_real_melt.data ./cu_morse_metal_nvt.csv ./ar_lj_real_npt.csv
run_lmp cu_morse_metal_melt
run_lmp ar_lj_real_melt
for name in cu_morse_metal_nvt ar_lj_real_npt; do
    run_lmp "$name"
    "$PYTHON" extract_thermo.py "$TMP/$name.log" "$name.csv"
done

echo "g(r) and MSD (100 NVE steps of the binary melt):"
run_lmp mix_analysis

echo "molecules: in.chain melt (32,000 FENE beads) and 100 NVE steps, thermo every step:"
"$PYTHON" make_chains.py chain "$TMP/chain_init.data"
run_lmp chain_melt -var init "$TMP/chain_init.data"  # ~5500 steps: a few minutes
gzip -n -9 -f chain_melt.data                        # -> chain_melt.data.gz (lmp reads it directly)
run_lmp chain_nve
"$PYTHON" extract_thermo.py "$TMP/chain_nve.log" chain_nve_100.csv
gzip -n -9 -f chain_forces.dump

echo "molecules: harmonic bonds, three angle styles, special_bonds lj 0.0 0.5 0.8 (100 NVE steps each):"
"$PYTHON" make_chains.py mol "$TMP/mol_init.data"
run_lmp mol_melt -var init "$TMP/mol_init.data"
for name in mol_harmonic_nve mol_cosine_nve mol_cosine_squared_nve; do
    run_lmp "$name"
    "$PYTHON" extract_thermo.py "$TMP/$name.log" "${name}_100.csv"
done
run_lmp mol_harmonic_excl_run0  # special_bonds lj 0 0 0
"$PYTHON" extract_thermo.py "$TMP/mol_harmonic_excl_run0.log" mol_harmonic_excl_run0.csv

echo "FENE near R0: where LAMMPS clamps the log's argument (expect 'FENE bond too long' warnings):"
run_lmp fene_clamp

echo "EAM in metal units (melts of 1000 NVE steps, then 100 NVE steps, thermo every step; lammps-data's files):"
rm -f ./*_eam_melt.data ./*_eam_forces.dump ./*_eam_nve_100.csv
for sys in cu_eam cuni_eam alfe_eam; do  # Cu_u3.eam (eam), CuNi.eam.alloy (eam/alloy), AlFe_mm.eam.fs (eam/fs)
    run_lmp "${sys}_melt"
    run_lmp "${sys}_nve"
    "$PYTHON" extract_thermo.py "$TMP/${sys}_nve.log" "${sys}_nve_100.csv"
done
rm -f ./cuni_eam_tensor_run0.csv ./cuni_funcfl_run0.csv ./cuni_funcfl_forces.dump
for name in cuni_eam_tensor_run0 cuni_funcfl_run0; do  # the alloy's pressure tensor; Cu_u3 + Ni_u3 funcfl on it
    run_lmp "$name"
    "$PYTHON" extract_thermo.py "$TMP/$name.log" "$name.csv"
done

echo "checking outputs:"
"$PYTHON" check_references.py "$DIR"
ok=1
