#!/usr/bin/env bash
# Speed race (issue 7): times Tessera, LAMMPS and GROMACS on the same systems in
# the same run: the LJ benchmark of LAMMPS's bench/in.lj at four sizes, a Morse
# solid, bench/in.chain, bench/in.eam and the 32k in.lj system under fix npt
# (GROMACS: the LJ NVE cases only).
# See README.md beside this file.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
invocation="benchmarks/race/run.sh${*:+ $*}"

usage() {
  cat <<EOF
Usage: benchmarks/race/run.sh [options]
  --sizes LIST    cases to run, comma-separated from: 32k,256k,2M,16M,morse,chain,eam,npt
                  (default: all)
  --reps N        timed repetitions per engine and case (default: 3)
  --cores N       Tessera threads (1 process) = LAMMPS MPI ranks (default: $(nproc))
  --tessera-layouts LIST  Tessera's layouts on N cores, comma-separated from:
                  threads (1 process of N OpenMP threads; engine tags tessera,
                  tessera_mixed, ...), ranks (N MPI ranks of 1 thread each, as
                  LAMMPS runs; tags tessera_ranks, tessera_mixed_ranks, ...)
                  (default: threads,ranks; threads on 1 core)
  --tessera-ranks the same as --tessera-layouts ranks
  --tessera BIN   Tessera binary (default: <repo>/build/src/app/tessera)
  --tessera-also LIST  more Tessera engines on the lattice cases (32k ... 16M, morse, npt),
                  comma-separated from: clusters (neighbor.layout: clusters, double),
                  mixed (rows with precision: mixed) (default: none; the
                  default rows always run)
  --out FILE      results file, .md; the plot goes beside it as .png
                  (default: benchmarks/results/race-<date>-<cores>core.md)
  --steps N       override every case's step count (quick checks; a multiple of 20
                  keeps the rebuild pattern; without --out the results stay in /tmp)
  --lammps-variants LIST  LAMMPS variants to time, comma-separated from: plain, opt,
                  omp (-sf omp), intel (-sf intel, mode double), intel-mixed (-sf
                  intel, mode mixed: a mixed-precision peer, on the LJ cases 32k ...
                  16M and npt only) (default: plain,opt, what Debian's lmp has; omp and the
                  intel ones need a build with those packages: benchmarks/cpu-peers/)
  --gromacs LIST  GROMACS precisions to time on the LJ cases, comma-separated from:
                  double (gmx_d), mixed (gmx); or none (default: double,mixed, those
                  that are built; each in two layouts: -ntmpi N -ntomp 1 and
                  -ntmpi 1 -ntomp N)
  --gromacs-cache DIR  the cpu-peers cache holding the GROMACS builds (default:
                  \$TESSERA_CPU_PEERS_CACHE, else .cache/tessera-cpu-peers beside the
                  checkout; benchmarks/cpu-peers/build.sh gromacs builds them)
  --dry-run       print the plan and the time estimate, run nothing
Environment: LMP (default /usr/bin/lmp), PYTHON (default /usr/bin/python3),
TESSERA_CPU_PEERS_CACHE.
EOF
}

# case name -> fcc cells per side and default steps. Steps are chosen so that
# one timed loop is ~3e7 atom-steps or more (seconds, at the ~6e6/s LAMMPS does
# on 2 cores), long enough that timer and thermo noise do not matter, and a
# multiple of 20 so both engines do the same number of neighbour-list builds.
# chain: LAMMPS's in.chain system (issue 29), read from the reference melt
# (32,000 beads; no lattice, so its "cells" entry only marks it known).
# npt: the 32k system under LAMMPS's fix npt (issue 31's NPT case).
declare -A cells=([32k]=20 [256k]=40 [2M]=80 [16M]=160 [morse]=40 [chain]=0 [eam]=20 [npt]=20)
declare -A nsteps=([32k]=1000 [256k]=200 [2M]=60 [16M]=40 [morse]=200 [chain]=2000 [eam]=500 [npt]=1000)
all_cases="32k 256k 2M 16M morse chain eam npt"

sizes="32k,256k,2M,16M,morse,chain,eam,npt"; reps=3; cores=$(nproc); out=""; steps=""; dry=0; tlayouts=""
variants="plain,opt"
gmx_precisions="double,mixed"
gmx_cache="${TESSERA_CPU_PEERS_CACHE:-$(cd "$repo/.." && pwd)/.cache/tessera-cpu-peers}"
tessera="$repo/build/src/app/tessera"
also=""
while [ $# -gt 0 ]; do
  case "$1" in --dry-run|--tessera-ranks|-h|--help) ;; *) [ $# -ge 2 ] || { echo "run.sh: $1 needs a value" >&2; exit 2; } ;; esac
  case "$1" in
    --sizes) sizes="$2"; shift 2 ;;
    --reps) reps="$2"; shift 2 ;;
    --cores) cores="$2"; shift 2 ;;
    --tessera) tessera="$2"; shift 2 ;;
    --tessera-also) also="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --steps) steps="$2"; shift 2 ;;
    --lammps-variants) variants="$2"; shift 2 ;;
    --gromacs) gmx_precisions="$2"; shift 2 ;;
    --gromacs-cache) gmx_cache="$2"; shift 2 ;;
    --dry-run) dry=1; shift ;;
    --tessera-ranks) tlayouts=ranks; shift ;;
    --tessera-layouts) tlayouts="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "run.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
  esac
done

die() { echo "run.sh: $*" >&2; exit 2; }
posint() { [[ "$2" =~ ^[1-9][0-9]*$ ]] || die "$1 must be a positive integer, got '$2'"; }
posint --reps "$reps"; posint --cores "$cores"
[ -z "$steps" ] || posint --steps "$steps"
cases=()
for c in ${sizes//,/ }; do
  [ -n "${cells[$c]:-}" ] || die "unknown size '$c' (choose from: $all_cases)"
  cases+=("$c")
done
[ ${#cases[@]} -gt 0 ] || die "--sizes is empty"
# LAMMPS variant -> the engine tag of the timings (race.py) and its switches.
# Every variant runs as MPI ranks of one OpenMP thread each.
declare -A vtag=([plain]=lj_cut [opt]=opt [omp]=omp [intel]=intel [intel-mixed]=intel_mixed)
declare -A vargs=([plain]="" [opt]="-sf opt" [omp]="-sf omp -pk omp 1" [intel]="-sf intel -pk intel 0 mode double omp 1"
                  [intel-mixed]="-sf intel -pk intel 0 mode mixed omp 1")
engines=()
for v in ${variants//,/ }; do
  [ -n "${vtag[$v]:-}" ] || die "unknown LAMMPS variant '$v' (choose from: plain, opt, omp, intel, intel-mixed)"
  engines+=("${vtag[$v]}")
done
[ ${#engines[@]} -gt 0 ] || die "--lammps-variants is empty"
# intel-mixed computes its pairs in single precision, so it is a peer of the
# mixed engines on the LJ lattice cases only: INTEL has no morse style, and the
# chain and EAM cases check step 0 to 1e-10, past what single precision gives.
single_variants=" intel-mixed "
single_cases=" 32k 256k 2M 16M npt "
variants_in() {  # case: the LAMMPS variants that run in it
  local v
  for v in ${variants//,/ }; do
    [[ "$single_variants" == *" $v "* && "$single_cases" != *" $1 "* ]] || echo -n "$v "
  done
}
lprec() { [[ "$1" == intel_mixed* ]] && echo mixed || echo double; }  # LAMMPS tag
# More Tessera engines (tags tessera_<layout>, race.py) on the lattice cases,
# each from the case's tessera.yaml with the layout's keys added.
tessera_also=()
for t in ${also//,/ }; do
  case "$t" in clusters|mixed) tessera_also+=("tessera_$t") ;; *) die "unknown --tessera-also '$t' (choose from: clusters, mixed)" ;; esac
done
lattice_cases=" 32k 256k 2M 16M morse npt "
also_in() { [[ "$lattice_cases" == *" $1 "* ]] && echo "${tessera_also[@]}"; }  # case
# Tessera's layouts (issue 31 item 4: on this 2-vCPU VM one process of two
# threads had slow phases lasting minutes that two ranks did not): each engine
# above runs in each layout, the ranks one tagged <engine>_ranks.
[ -n "$tlayouts" ] || { [ "$cores" -gt 1 ] && tlayouts=threads,ranks || tlayouts=threads; }
tsuffixes=()
for l in ${tlayouts//,/ }; do
  case "$l" in threads) tsuffixes+=("") ;; ranks) tsuffixes+=(_ranks) ;;
    *) die "unknown --tessera-layouts '$l' (choose from: threads, ranks)" ;; esac
done
[ ${#tsuffixes[@]} -gt 0 ] || die "--tessera-layouts is empty"
tessera_tags() {  # case: every Tessera engine tag of the case, layouts inner
  local b x
  for b in tessera $(also_in "$1"); do for x in "${tsuffixes[@]}"; do echo -n "$b$x "; done; done
}
tprec() { [[ "$1" == tessera_mixed* ]] && echo mixed || echo double; }  # tag

# GROMACS: per precision its binary in the cpu-peers cache, and the engine tags
# gmx_<precision>_<layout> of the timings (race.py). It runs the LJ lattice cases
# only: it has no Morse or EAM pair potential, and no list rebuilt on a distance
# check, which the chain case (bench/in.chain) uses.
declare -A gmx_bin=([double]=gromacs-double/install/bin/gmx_d [mixed]=gromacs-mixed/install/bin/gmx)
declare -A gmx_layout=([tmpi]="-ntmpi $cores -ntomp 1" [omp]="-ntmpi 1 -ntomp $cores")
gmx_layouts="tmpi omp"
[ "$cores" -gt 1 ] || gmx_layouts="tmpi"  # the same layout on one core
gmx_cases=" 32k 256k 2M 16M "
gmx_warm=20  # mdrun -resetstep: one list period untimed (race.py checks it is one)
case "$gmx_cache" in /*) ;; *) gmx_cache="$(pwd)/$gmx_cache" ;; esac
gmx_run=()
[ "$gmx_precisions" != none ] || gmx_precisions=""
for p in ${gmx_precisions//,/ }; do
  [ -n "${gmx_bin[$p]:-}" ] || die "unknown GROMACS precision '$p' (choose from: double, mixed; or none)"
  if [ -x "$gmx_cache/${gmx_bin[$p]}" ]; then gmx_run+=("$p")
  else echo "run.sh: GROMACS $p skipped: no $gmx_cache/${gmx_bin[$p]} (benchmarks/cpu-peers/build.sh gromacs builds it)"; fi
done
for v in ${variants//,/ }; do
  [[ "$single_variants" == *" $v "* ]] || continue
  skipped=""
  for c in "${cases[@]}"; do [[ "$gmx_cases" == *" $c "* ]] || skipped+="${skipped:+, }$c"; done
  [ -z "$skipped" ] || echo "run.sh: LAMMPS $v skipped for $skipped (single precision; LJ cases only)"
done
for c in "${cases[@]}"; do
  [ -n "$(variants_in "$c")" ] || die "no LAMMPS variant runs in $c (intel-mixed runs on the LJ cases only)"
done
gmx_here=()  # the cases of this race that GROMACS runs
if [ ${#gmx_run[@]} -gt 0 ]; then
  for c in "${cases[@]}"; do [[ "$gmx_cases" != *" $c "* ]] || gmx_here+=("$c"); done
  skipped=""
  for c in "${cases[@]}"; do [[ "$gmx_cases" == *" $c "* ]] || skipped+="${skipped:+, }$c"; done
  [ -z "$skipped" ] || echo "run.sh: GROMACS skipped for $skipped (not the same physics in GROMACS; LJ cases only)"
fi

case "$tessera" in /*) ;; *) tessera="$(pwd)/$tessera" ;; esac
[ -x "$tessera" ] || die "Tessera binary not found: $tessera (build it, or pass --tessera BIN)"
lmp="${LMP:-/usr/bin/lmp}"; python="${PYTHON:-/usr/bin/python3}"
command -v "$lmp" >/dev/null || die "LAMMPS not found: $lmp"
command -v mpirun >/dev/null || die "mpirun not found (Debian: openmpi-bin)"
"$python" -c "import matplotlib" 2>/dev/null || die "$python lacks matplotlib (Debian: python3-matplotlib)"

# Quick checks must never land among the real results.
if [ -z "$out" ]; then
  if [ -n "$steps" ]; then out="/tmp/race-$(date +%F)-${cores}core.md"
  else out="$repo/benchmarks/results/race-$(date +%F)-${cores}core.md"; fi
fi
case "$out" in /*) ;; *) out="$(pwd)/$out" ;; esac

# Rough cost for an idle 2-core development machine: both engines ~3e6
# atom-steps/s per core, ~6 us per atom of setup per process (lattice,
# velocities, first list; measured ~13 us under load), and Tessera's peak
# memory of ~0.8 KB per atom (LAMMPS needs about half).
# Per case: a 20-step check of each engine, then reps x (Tessera, each LAMMPS
# variant, each GROMACS precision x layout) timed runs; GROMACS runs one more
# list period (untimed) and writes its inputs with grompp, counted as a run.
nlay=$(wc -w <<< "$gmx_layouts")
est_total=0
mem_kb=$(awk '/MemAvailable/ {print $2}' /proc/meminfo)
printf "%-6s %10s %6s %12s %8s\n" case atoms steps est.minutes est.GB
for c in "${cases[@]}"; do
  # the chain reads its 32,000 beads from the reference melt, not a lattice
  n=${cells[$c]}; atoms=$((4 * n * n * n)); [ "$c" != chain ] || atoms=32000; s=${steps:-${nsteps[$c]}}
  ntess=$(wc -w <<< "$(tessera_tags "$c")")
  nlmp=$(wc -w <<< "$(variants_in "$c")")
  nrun=$((ntess + nlmp)); ncheck=$((1 + ntess)); ng=0
  [[ " $(variants_in "$c")" != *" intel-mixed "* ]] || ncheck=$((ncheck + 1))
  [[ " ${gmx_here[*]} " != *" $c "* ]] || { ng=$((${#gmx_run[@]} * nlay)); ncheck=$((ncheck + 3 * ${#gmx_run[@]})); }
  secs=$(( (reps * (nrun * s + ng * (s + 20)) + 20 * ncheck) * atoms / (3000000 * cores) \
           + (reps * (nrun + ng) + ncheck) * atoms * 6 / 1000000 ))
  est_total=$(( est_total + secs ))
  awk -v c="$c" -v a="$atoms" -v s="$s" -v t="$secs" -v m="$mem_kb" 'BEGIN {
    printf "%-6s %10d %6d %12.1f %8.1f%s\n", c, a, s, t / 60, a * 0.8e-6, (a * 0.8 > m ? "  (more than is free now)" : "") }'
done
awk -v t="$est_total" -v c="$cores" -v m="$mem_kb" \
  'BEGIN {printf "run.sh: estimated total %.1f min on %d cores if the machine is idle; %.1f GB free now\n", t / 60, c, m / 1048576}'
[ "$dry" = 0 ] || exit 0

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpi=(mpirun -np "$cores")
[ "$cores" -le "$(nproc)" ] || mpi+=(--oversubscribe)

# Record the commit now: other work may commit while the race runs.
commit="$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo '?')"
dirty=clean
[ -z "$(git -C "$repo" status --porcelain --untracked-files=no 2>/dev/null)" ] || dirty=dirty
# The report names the checkout's commit and the binary's own: say at the
# start when they differ (a binary built before the last commit, or from a
# dirty tree), while there is still time to rebuild.
built="$("$tessera" --version 2>/dev/null | sed -n 's/.*(commit \([^,]*\),.*/\1/p' | head -1)"
head_full="$(git -C "$repo" rev-parse HEAD 2>/dev/null || true)"
if [ -n "$built" ] && [ -n "$head_full" ] && { [ "${head_full#"${built%-dirty}"}" = "$head_full" ] || [ "$built" != "${built%-dirty}" ]; }; then
  echo "run.sh: warning: $tessera was built from commit $built, the checkout is at ${commit} ($dirty); the report will name both" >&2
fi
scratch="$(mktemp -d "${TMPDIR:-/tmp}/race.XXXXXX")"
echo "run.sh: logs and inputs in $scratch"

# The host's state around every timed run (host_probe.c): the slowest of the
# cores' pointer-chase readings, before or after the run, so the report can
# tell the engines' own spread from a shared host's slow minutes. Without a
# C compiler or taskset the column reads "-" and the report says so.
probe="$scratch/host_probe"
{ command -v taskset > /dev/null && cc -O2 -o "$probe" "$here/host_probe.c" 2> /dev/null; } || probe=""
probe_host() {  # prints the slowest core's ns per load, or - without the probe
  [ -n "$probe" ] || { echo -; return; }
  local k v worst=0
  for ((k = 0; k < cores && k < $(nproc); k++)); do
    v="$(taskset -c "$k" "$probe")" || { echo -; return; }
    worst="$(awk -v a="$worst" -v b="$v" 'BEGIN {print (b > a) ? b : a}')"
  done
  echo "$worst"
}
declare -A host_ns=()
probed() {  # tag command...: runs the command between two readings; host_ns[tag] = the slower one
  local tag=$1 before after; shift
  before="$(probe_host)"
  "$@"
  after="$(probe_host)"
  host_ns[$tag]="$(awk -v a="$before" -v b="$after" 'BEGIN {if (a == "-" || b == "-") print "-"; else print (b > a) ? b : a}')"
}

# One template per case writes both inputs, so the two cannot drift apart.
# Physics of bench/in.lj; the Morse case is an fcc solid whose nearest-neighbour
# distance (density 1.0: 2^(1/6)) sits at the Morse minimum r0.
# The chain and EAM cases' writers are in inputs.sh beside this file (the
# GPU check writes its in.chain and in.eam decks with them too).
# shellcheck source=benchmarks/race/inputs.sh
source "$here/inputs.sh"

write_inputs() {  # case dir steps
  [ "$1" != chain ] || { write_chain_inputs "$2" "$3"; return; }
  [ "$1" != eam ] || { write_eam_inputs "$2" "$3"; return; }
  local c=$1 dir=$2 s=$3 n=${cells[$1]}
  local density=0.8442 temp=1.44 seed=87287 cut=2.5 skin=0.3 dt=0.005 every=20
  local style=lj/cut tcoeff="epsilon: 1.0, sigma: 1.0" lcoeff="1.0 1.0"
  local integrator="{style: nve, dt: $dt}" fix=nve columns="" ensemble=""
  if [ "$c" = morse ]; then
    density=1.0 temp=1.0 style=morse
    local d0=1.0 alpha=5.0 r0=1.122462048309373
    tcoeff="d0: $d0, alpha: $alpha, r0: $r0"; lcoeff="$d0 $alpha $r0"
  fi
  if [ "$c" = npt ]; then
    # MTK with Nose-Hoover chains of 3 on the particles and on the barostat,
    # both engines' defaults (LAMMPS fix npt: tchain 3, pchain 3, mtk yes);
    # Tdamp 100 dt, Pdamp 1000 dt (LAMMPS's advice); a target pressure near
    # the fluid's at T0, which the lattice start (p = -5) reaches in the run.
    local tdamp=0.5 press=5.0 pdamp=5.0
    integrator="{style: npt, dt: $dt, temperature: $temp, damping: $tdamp, pressure: $press, pressure_damping: $pdamp}"
    fix="npt temp $temp $temp $tdamp iso $press $press $pdamp" columns=" vol"
    ensemble=" ensemble=npt,iso,T=$temp,Tdamp=$tdamp,P=$press,Pdamp=$pdamp"
  fi
  mkdir -p "$dir"
  cat > "$dir/tessera.yaml" <<EOF
units: lj
system:
  lattice: {style: fcc, density: $density, cells: [$n, $n, $n]}
  masses: [1.0]
velocity: {temperature: $temp, seed: $seed}
potential:
  style: $style
  cutoff: $cut
  coeffs:
    - {types: [1, 1], $tcoeff}
neighbor: {skin: $skin, every: $every, delay: 0, check: false}
integrator: $integrator
run: {steps: $s}
output:
  thermo: {every: 0, file: tessera.thermo.csv}
EOF
  local t
  for t in $(also_in "$c"); do
    # mixed: rows, the CPU's faster mixed form (benchmarks/NOTES.md)
    if [ "$t" = tessera_mixed ]; then
      { cat "$dir/tessera.yaml"; echo "precision: mixed"; } > "$dir/$t.yaml"
    else
      sed 's/check: false}/check: false, layout: clusters}/' "$dir/tessera.yaml" > "$dir/$t.yaml"
    fi
  done
  cat > "$dir/lammps.in" <<EOF
units           lj
atom_style      atomic
lattice         fcc $density
region          box block 0 $n 0 $n 0 $n
create_box      1 box
create_atoms    1 box
mass            1 1.0
velocity        all create $temp $seed loop geom
pair_style      $style $cut
pair_coeff      1 1 $lcoeff $cut
neighbor        $skin bin
neigh_modify    delay 0 every $every check no
fix             1 all $fix
timestep        $dt
thermo_style    custom step temp pe ke etotal press$columns
thermo_modify   norm yes format float %.17g
thermo          $s
run             $s
EOF
  # what race.py needs for the exact step-0 lattice sums
  # (and the report's description of each case)
  echo "style=$style density=$density temp=$temp cutoff=$cut coeffs=${lcoeff// /,} skin=$skin dt=$dt every=$every$ensemble" > "$dir/physics"
  [[ " ${gmx_here[*]} " != *" $c "* ]] || write_gromacs_inputs
}

# GROMACS's inputs of an LJ case, from write_inputs' values (its locals are
# visible here). Units: sigma = 1 nm, epsilon = 1 kJ/mol, mass = 1 u, so the
# reduced values carry over, tau = 1 ps, and T0 in K is T0* / k_B with GROMACS's
# own k_B in kJ/mol/K. One atom type with c6 = 4 eps sig^6, c12 = 4 eps sig^12
# (comb-rule 1), one-atom molecules, no charges. mdrun -resetstep $gmx_warm
# (one list period) then times the loop from that step on: with nsteps =
# steps + gmx_warm - 1 that is the same number of steps and list builds as
# the other engines time.
write_gromacs_inputs() {
  local kb=0.0083144626181532
  local tk rlist c6 c12
  read -r tk rlist c6 c12 < <(awk -v t="$temp" -v kb="$kb" -v rc="$cut" -v sk="$skin" -v c="$lcoeff" 'BEGIN {
    split(c, e, " "); printf "%.17g %.17g %.17g %.17g\n", t / kb, rc + sk, 4 * e[1] * e[2] ^ 6, 4 * e[1] * e[2] ^ 12 }')
  "$python" "$here/race.py" gro --density "$density" --cells "$n" --out "$dir/conf.gro"
  "$python" "$here/race.py" top --c6 "$c6" --c12 "$c12" --atoms $((4 * n * n * n)) \
    --title "LJ fcc lattice, density $density" --out "$dir/topol.top"
  cat > "$dir/grompp.mdp" <<EOF
integrator              = md
dt                      = $dt
nsteps                  = $((s + gmx_warm - 1))
cutoff-scheme           = Verlet
nstlist                 = $every
verlet-buffer-tolerance = -1
rlist                   = $rlist
vdwtype                 = Cut-off
vdw-modifier            = None
rvdw                    = $cut
DispCorr                = no
coulombtype             = Cut-off
rcoulomb                = $cut
tcoupl                  = no
pcoupl                  = no
gen-vel                 = yes
gen-temp                = $tk
gen-seed                = $seed
ld-seed                 = $seed
constraints             = none
comm-mode               = None
nstcalcenergy           = $((s + gmx_warm - 1))
nstenergy               = $((s + gmx_warm - 1))
nstlog                  = $((s + gmx_warm - 1))
EOF
}

# Each run leaves its stdout/log in $dir/<tag>.log; Tessera's CSV is renamed to match.
tessera_run=(env OMP_NUM_THREADS="$cores" "$tessera" run tessera.yaml --threads "$cores")
tessera_ranks_run=(env OMP_NUM_THREADS=1 "${mpi[@]}" "$tessera" run tessera.yaml --threads 1)
# The ranks layout moves its planes by measured time at the rebuilds (its
# deck <engine>.yaml is the engine's with a load_balance block added; one
# process ignores it): on this 2-vCPU VM one vCPU ran about 1.4x slower
# than the other for minutes at a time (a neighbour on its host core), and
# two equal slabs then waited on it each step (in.lj 256k mixed, 2 ranks,
# interleaved: loop 3.0-3.25 s with equal slabs, 2.68-2.80 s balanced every
# 20 steps; both 2.04-2.35 s when the vCPUs were equal). GROMACS's ranks
# balance the same way by default (its dynamic load balancing); the threads
# layout's rows already hand a slow thread's chunks to the other
# (backend/cpu_shares.hpp).
# A check every tenth of the run, not every 20 steps: the chain's 20-step
# intervals (30 ms) are short enough for timing noise to cross the
# threshold, and the planes then moved 10-15 times a run for nothing (1-4 %
# slower than equal slabs with the vCPUs equal).
ranks_keys="load_balance: {every: max(20, steps / 10), by: time}"  # as the report words it
ranks_balance() {  # deck: the block for that deck's step count
  local s; s=$(sed -n 's/^run: {steps: \([0-9]*\)}$/\1/p' "$1")
  [ -n "$s" ] || die "no 'run: {steps: N}' line in $1"
  echo "load_balance: {every: $(( s / 10 > 20 ? s / 10 : 20 )), by: time}"
}
run_tessera() {  # dir engine logtag: the engine's deck (<engine less _ranks>.yaml) in its layout
  local deck="${2%_ranks}.yaml" cmd=("${tessera_run[@]}")
  if [[ "$2" == *_ranks ]]; then
    cmd=("${tessera_ranks_run[@]}")
    { cat "$1/$deck" && ranks_balance "$1/$deck"; } > "$1/$2.yaml" || die "cannot write $1/$2.yaml"
    deck="$2.yaml"
  fi
  (cd "$1" && "${cmd[@]/#tessera.yaml/$deck}" > "$3.log" 2>&1 \
     && mv tessera.thermo.csv "$3.csv") || { tail -n 5 "$1/$3.log" >&2; die "Tessera ($2) failed in $1"; }
}
run_lammps() {  # dir tag [switches...]
  local dir=$1 tag=$2; shift 2
  (cd "$dir" && OMP_NUM_THREADS=1 "${mpi[@]}" "$lmp" "$@" -in lammps.in -log "$tag.log" -screen none \
     > "$tag.out" 2>&1) || { tail -n 5 "$dir/$tag.out" "$dir/$tag.log" >&2; die "LAMMPS failed in $dir"; }
}
# A timed LAMMPS run that fails does not end the race: its variant is left
# out of this case's later repetitions, and the case, the variant and the
# first error line go to $failures, which the results list (LAMMPS's INTEL
# package, for one, fails to allocate its list at 1M atoms a rank).
declare -A failed=()  # case:engine -> 1
try_lammps() {  # case dir engine tag [switches...]
  local c=$1 dir=$2 e=$3 tag=$4 msg; shift 4
  (cd "$dir" && OMP_NUM_THREADS=1 "${mpi[@]}" "$lmp" "$@" -in lammps.in -log "$tag.log" -screen none \
     > "$tag.out" 2>&1) && return 0
  msg="$(cat "$dir/$tag.out" "$dir/$tag.log" 2>/dev/null | grep -m1 -E 'ERROR|[Ff]ailed|error' | tr '\t' ' ' | cut -c1-300)"
  failed[$c:$e]=1
  echo -e "$c\t$e\t${msg:-LAMMPS exited with a failure and no error line}" >> "$failures"
  echo "run.sh: $c: LAMMPS $e failed (${msg:-no error line}); left out of this case" >&2
}
# GROMACS: grompp once per precision and folder (gmx-<precision>.tpr), then
# mdrun per layout, and gmx energy -dp for the step-0 terms race.py checks.
# grompp warns once, and only that warning is let through (-maxwarn 1): no
# centre-of-mass motion removal (comm-mode None), as in LAMMPS and Tessera,
# which do not remove it every step either.
gmx_grompp() {  # dir precision
  local dir=$1 bin="$gmx_cache/${gmx_bin[$2]}"
  (cd "$dir" && "$bin" grompp -f grompp.mdp -c conf.gro -p topol.top -o "gmx-$2.tpr" -po "gmx-$2.mdout.mdp" \
     -maxwarn 1 > "gmx-$2.grompp.out" 2>&1) || { tail -n 20 "$dir/gmx-$2.grompp.out" >&2; die "grompp ($2) failed in $dir"; }
  local warnings
  warnings=$(grep -c '^WARNING' "$dir/gmx-$2.grompp.out" || true)
  [ "$warnings" = 0 ] || { [ "$warnings" = 1 ] && grep -A1 '^WARNING' "$dir/gmx-$2.grompp.out" | grep -q 'center of mass motion removal'; } \
    || { grep -A4 '^WARNING' "$dir/gmx-$2.grompp.out" >&2; die "grompp ($2) in $dir: a warning other than comm-mode None"; }
}
run_gromacs() {  # dir precision layout tag
  local dir=$1 bin="$gmx_cache/${gmx_bin[$2]}" tag=$4
  # shellcheck disable=SC2086  # a layout's switches are words
  (cd "$dir" && env -u OMP_NUM_THREADS GMX_MAXBACKUP=-1 "$bin" mdrun -s "gmx-$2.tpr" -deffnm "$tag" ${gmx_layout[$3]} \
     -resetstep "$gmx_warm" -nb cpu -pin on -noconfout > "$tag.out" 2>&1 \
     && printf 'Potential\nVir-XX\nVir-YY\nVir-ZZ\nTemperature\nPressure\n\n' \
        | "$bin" energy -f "$tag.edr" -o "$tag.xvg" -dp > "$tag.energy.out" 2>&1) \
    || { tail -n 20 "$dir/$tag.out" >&2; die "GROMACS ($2, $3) failed in $dir"; }
}
gmx_check() {  # dir tag precision case; prints race.py's table, or dies showing it
  local report n=${cells[$4]}
  report="$("$python" "$here/race.py" gromacs-check --log "$1/$2.log" --xvg "$1/$2.xvg" --physics "$1/physics" \
    --precision "$3" --atoms $((4 * n * n * n)))" || { echo "$report" >&2; die "$1: $2: not the same physics (see above)"; }
  echo "$report"
}

check() {  # dir tessera-tag lammps-tag [tessera-precision]; prints race.py's table, or dies showing it
  local report
  report="$("$python" "$here/race.py" check --tessera "$1/$2" --lammps "$1/$3.log" --physics "$1/physics" \
    --tessera-precision "${4:-double}" --lammps-precision "$(lprec "$3")")" \
    || { echo "$report" >&2; die "$1: $2 vs $3: not the same physics (see above)"; }
  echo "$report"
}

# Same physics first, before any timing: a short run of each engine per case;
# 20 steps so that the rebuild schedule is checked too, not only step 0.
for c in "${cases[@]}"; do
  write_inputs "$c" "$scratch/$c/check" 20
  run_lammps "$scratch/$c/check" lammps
  for t in $(tessera_tags "$c"); do
    run_tessera "$scratch/$c/check" "$t" "$t"
    echo -n "run.sh: $c same physics, $t: "; check "$scratch/$c/check" "$t" lammps "$(tprec "$t")"
  done
  # intel-mixed is a different computation from the plain style checked
  # above: its step 0 gets its own check (against the first Tessera engine)
  if [[ " $(variants_in "$c")" == *" intel-mixed "* ]]; then
    # shellcheck disable=SC2086  # a variant's switches are words
    run_lammps "$scratch/$c/check" intel_mixed ${vargs[intel-mixed]}
    t=$(tessera_tags "$c"); t=${t%% *}
    echo -n "run.sh: $c same physics, LAMMPS intel-mixed: "; check "$scratch/$c/check" "$t" intel_mixed "$(tprec "$t")"
  fi
  [[ " ${gmx_here[*]} " == *" $c "* ]] || continue
  for p in "${gmx_run[@]}"; do
    gmx_grompp "$scratch/$c/check" "$p"
    run_gromacs "$scratch/$c/check" "$p" tmpi "gmx_$p"
    echo -n "run.sh: $c same physics, GROMACS $p: "; gmx_check "$scratch/$c/check" "gmx_$p" "$p" "$c"
  done
done

# Reps outer, engines inner: a change in machine load then hits all engines alike.
timings="$scratch/timings.tsv"
echo -e "case\tengine\trep\tloop_s\tsteps\tatoms\thost_ns" > "$timings"
failures="$scratch/failures.tsv"
echo -e "case\tengine\terror" > "$failures"
# "Loop time of X [s|on N procs] for S steps with A atoms", from either engine
loop_of() { awk '/^Loop time of/ {print $4, $(NF-4), $(NF-1)}' "$1"; }
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for c in "${cases[@]}"; do
  dir="$scratch/$c"; s=${steps:-${nsteps[$c]}}
  write_inputs "$c" "$dir" "$s"
  gtags=()  # GROMACS's engine tags in this case: gmx_<precision>_<layout>
  if [[ " ${gmx_here[*]} " == *" $c "* ]]; then
    for p in "${gmx_run[@]}"; do
      gmx_grompp "$dir" "$p"
      for l in $gmx_layouts; do gtags+=("gmx_${p}_$l"); done
    done
  fi
  for r in $(seq "$reps"); do
    for t in $(tessera_tags "$c"); do probed "$t-$r" run_tessera "$dir" "$t" "$t-$r"; done
    for v in $(variants_in "$c"); do
      [ -z "${failed[$c:${vtag[$v]}]:-}" ] || continue
      # shellcheck disable=SC2086  # a variant's switches are words
      probed "${vtag[$v]}-$r" try_lammps "$c" "$dir" "${vtag[$v]}" "${vtag[$v]}-$r" ${vargs[$v]}
    done
    ran=()  # the LAMMPS engines still in this case, the double ones first
    for prec in double mixed; do
      for v in $(variants_in "$c"); do
        e=${vtag[$v]}
        [ "$(lprec "$e")" != "$prec" ] || [ -n "${failed[$c:$e]:-}" ] || ran+=("$e")
      done
    done
    for g in "${gtags[@]}"; do
      IFS=_ read -r _ p l <<< "$g"
      probed "$g-$r" run_gromacs "$dir" "$p" "$l" "$g-$r"
    done
    # same physics each run: the default rows against every LAMMPS variant, the
    # others against one (a double one when any is left; check() gives a mixed
    # LAMMPS its own bound either way)
    for t in $(tessera_tags "$c"); do
      case "$t" in
        tessera|tessera_ranks) for e in "${ran[@]}"; do check "$dir" "$t-$r" "$e-$r" > /dev/null; done ;;
        *) [ ${#ran[@]} -eq 0 ] || check "$dir" "$t-$r" "${ran[0]}-$r" "$(tprec "$t")" > /dev/null ;;
      esac
    done
    for g in "${gtags[@]}"; do
      IFS=_ read -r _ p _ <<< "$g"
      gmx_check "$dir" "$g-$r" "$p" "$c" > /dev/null
    done
    # shellcheck disable=SC2046  # tessera_tags's tags are words
    for e in $(tessera_tags "$c") "${ran[@]}" "${gtags[@]}"; do
      if [[ "$e" == gmx_* ]]; then timing="$("$python" "$here/race.py" gromacs-loop --log "$dir/$e-$r.log")" || die "$dir/$e-$r.log: no timing"
      else timing="$(loop_of "$dir/$e-$r.log")"; fi
      read -r t st at <<< "$timing"
      [ -n "${at:-}" ] || die "no loop time in $dir/$e-$r.log"
      echo -e "$c\t$e\t$r\t$t\t$st\t$at\t${host_ns[$e-$r]:--}" >> "$timings"
      awk -v c="$c" -v r="$r" -v e="$e" -v t="$t" -v n="$((at * st))" \
        'BEGIN {printf "run.sh: %-6s rep %d %-15s loop %9.3f s  %.3e atom-steps/s\n", c, r, e, t, n/t}'
    done
  done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# tessera --version names the commit but not the compiler flags: take those of
# the core library from the build the binary came from, when it is there.
bdir="$(cd "$(dirname "$tessera")/../.." && pwd)"
flags="(not found: no build.ninja beside the binary)"
if [ -f "$bdir/build.ninja" ]; then
  # every distinct flag set, most used first (SIMD kernels may add their own)
  flags="$(grep -A8 '^build src/CMakeFiles/tessera_core.dir/.*\.o:' "$bdir/build.ninja" \
    | sed -n 's/^ *FLAGS = //p' | sort | uniq -c | sort -rn | sed 's/^ *[0-9]* //' | paste -sd'|' | sed 's/|/ | /g')"
  flags="$(grep -m1 '^CMAKE_CXX_COMPILER:' "$bdir/CMakeCache.txt" | cut -d= -f2) $flags"
fi

switches=""
for v in ${variants//,/ }; do
  switches+="${switches:+ | }$v: ${vargs[$v]:-(none)}"
  [[ "$single_variants" != *" $v "* ]] || switches+=" (LJ cases only)"
done
gmx_version="" gmx_cmd=""
for p in "${gmx_run[@]}"; do
  gmx_version+="${gmx_version:+; }$p: $("$gmx_cache/${gmx_bin[$p]}" --version 2>/dev/null | awk -F': *' '
    /^GROMACS version/ {v = $2} /^Precision/ {pr = $2} /^SIMD instructions/ {s = $2} END {print "GROMACS " v ", " pr " precision, SIMD " s}')"
  gmx_cmd+="${gmx_cmd:+ | }$p: $gmx_cache/${gmx_bin[$p]}"
done
layouts=""
for l in $gmx_layouts; do layouts+="${layouts:+ | }$l: ${gmx_layout[$l]}"; done
[ -z "$gmx_cmd" ] || gmx_cmd="GMX grompp -f grompp.mdp -c conf.gro -p topol.top -o gmx-P.tpr -maxwarn 1 && env -u OMP_NUM_THREADS GMX_MAXBACKUP=-1 GMX mdrun -s gmx-P.tpr -deffnm T LAYOUT -resetstep $gmx_warm -nb cpu -pin on -noconfout   # GMX per precision P: $gmx_cmd; LAYOUT: $layouts"
mkdir -p "$(dirname "$out")"
"$python" "$here/race.py" report --timings "$timings" --failures "$failures" --out "$out" \
  --command "$invocation" --commit "$commit ($dirty)" --cores "$cores" \
  --tessera-version "$("$tessera" --version 2>&1 | head -1)" \
  --lammps-version "$(head -1 "$scratch/${cases[0]}/check/lammps.log")" \
  --tessera-cmd "${tessera_run[*]}" --tessera-ranks-cmd "${tessera_ranks_run[*]}" --tessera-ranks-keys "$ranks_keys" \
  --tessera-layout "$(for x in "${tsuffixes[@]}"; do [ -z "$x" ] && echo -n "1 process of $cores OpenMP threads (threads); " || echo -n "$cores MPI ranks of 1 thread each (ranks, tags *_ranks); "; done | sed 's/; $//')" \
  --lammps-cmd "OMP_NUM_THREADS=1 ${mpi[*]} $lmp [SWITCHES] -in lammps.in -log L -screen none   # SWITCHES per variant: $switches" \
  --build-flags "$flags" --load "$load_before -> $load_after" --scratch "$scratch" \
  --gromacs-version "${gmx_version:-?}" --gromacs-cmd "${gmx_cmd:-?}" --peers-cache "$gmx_cache" --repo "$repo"
