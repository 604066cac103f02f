#!/usr/bin/env bash
# The command-line contract: run, validate, --help, --version, exit codes,
# and that output already written survives a run that stops.
set -uo pipefail
# shellcheck source=/dev/null
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bin=$(realpath "$1")
src=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

"$bin" --help > help.txt 2>&1
check "--help exits 0" test $? -eq 0
check "--help lists run and validate" grep -q "validate" help.txt
"$bin" --version > version.txt 2>&1
check "--version exits 0" test $? -eq 0
check "--version names the commit" grep -Eq "^tessera [0-9]+\.[0-9]+\.[0-9]+ \(commit " version.txt
# The commit is stamped at build time, so the binary names the checkout it
# was built from, not the one cmake last configured (cmake/git_commit.cmake).
# (A binary not rebuilt since the last commit fails this too, rightly.)
if head=$(git -C "$src" rev-parse --short=12 HEAD 2>/dev/null); then
  check "--version names the checkout's commit ($head; the binary says: $(cat version.txt))" \
    grep -Eq "\(commit $head(-dirty)?, " version.txt
fi
"$bin" frobnicate > /dev/null 2>&1
check "unknown command exits 2" test $? -eq 2
"$bin" run > no-deck.out 2> no-deck.err
check "run without a deck exits 2" test $? -eq 2
check "run without a deck: says so on stderr, nothing on stdout" \
  bash -c "grep -q \"^tessera: error: no deck given: 'tessera run' needs an input deck\" no-deck.err && test ! -s no-deck.out"
check "run without a deck: the usage line and an example that works" \
  bash -c "grep -q '^usage: tessera run DECK.yaml' no-deck.err && grep -q '^example: tessera run inputs/lj-melt.yaml$' no-deck.err"
"$bin" > no-verb.err 2>&1
check "no command: exit 2, with an example" bash -c "test $? -eq 2 && grep -q '^example: tessera run inputs/lj-melt.yaml$' no-verb.err"
# Every command's --help ends with examples of itself.
for verb in run validate plan info; do
  "$bin" "$verb" --help > "help-$verb.txt" 2>&1
  check "$verb --help exits 0 and shows an example" \
    bash -c "test $? -eq 0 && grep -q '^Examples:' help-$verb.txt && grep -Eq '^  tessera $verb( |$)' help-$verb.txt"
done
check "--help shows an example" grep -q "^  tessera run inputs/lj-melt.yaml$" help.txt

# A deck in another folder reads its data file relative to its own folder,
# whatever folder tessera runs in (outputs go to the folder it runs in).
# The data file is the topology a run writes beside its trajectory
# (molecular style), read back.
mkdir -p decks elsewhere
lj_deck decks/make.yaml --steps 0 --cells 4 "trajectory: {every: 10, file: decks/made.h5md}"
"$bin" run decks/make.yaml -q > make.out 2>&1
check "a run writes its topology beside its trajectory" test -s decks/made.data
sed -e 's#^  lattice: .*#  read_data: made.data#' -e 's#^run: .*#run: {steps: 5}#' decks/make.yaml | grep -v trajectory \
  | sed '/^output:$/d' > decks/from-data.yaml
printf 'output:\n  thermo: {every: 5, file: from-data.csv}\n' >> decks/from-data.yaml
(cd elsewhere && "$bin" validate ../decks/from-data.yaml > validate.out 2>&1)
check "validate a deck in another folder: read_data relative to the deck (256 atoms)" \
  bash -c "test $? -eq 0 && grep -q 'OK (256 atoms' elsewhere/validate.out"
(cd / && "$bin" validate "$work/decks/from-data.yaml" > "$work/validate-root.out" 2>&1)
check "... also from / with the deck's absolute path" grep -q "OK (256 atoms" validate-root.out
(cd elsewhere && "$bin" run ../decks/from-data.yaml -q > run.out 2>&1)
check "run it from another folder: exit 0, its thermo CSV in the folder run in" \
  bash -c "test $? -eq 0 && test -s elsewhere/from-data.csv && test ! -e decks/from-data.csv"

"$bin" validate "$src/inputs/lj-melt.yaml" > validate.txt 2>&1
check "validate lj-melt exits 0" test $? -eq 0
check "validate reports the atom count" grep -q "OK (32000 atoms" validate.txt
check "validate writes no output file" test ! -e lj-melt.thermo.csv

"$bin" run "$src/inputs/lj-melt.yaml" > run.txt 2>&1
check "run lj-melt exits 0" test $? -eq 0
check "thermo CSV header" test "$(head -n 1 lj-melt.thermo.csv)" = "step,temp,pe,ke,etotal,press"
check "thermo CSV has steps 0..100 every 10" test "$(cut -d, -f1 lj-melt.thermo.csv | tail -n +2 | tr '\n' ' ')" = "0 10 20 30 40 50 60 70 80 90 100 "
check "step 0 temperature is the requested 1.44" grep -Eq "^0,1\.44000000000000" lj-melt.thermo.csv
check "thermo table on screen" grep -Eq "^ +Step +Temp +PotEng +KinEng +TotEng +Press" run.txt
check "summary: atom-steps/s" grep -Eq "^Performance: [0-9.e+]+ atom-steps/s" run.txt
check "header: how the threads are placed (unbound unless asked)" \
  bash -c "env | grep -q '^OMP_PROC_BIND=' || grep -Eq '^Threads +[0-9]+ OpenMP threads? per rank( \\(chosen: [^)]*\\))?, not bound' run.txt"
OMP_PROC_BIND=close OMP_PLACES=threads OMP_NUM_THREADS=1 "$bin" run decks/make.yaml > bound.txt 2>&1
check "header: threads bound on request name their CPUs" \
  grep -Eq '^Threads +1 OpenMP thread per rank, bound close \(OMP_PLACES=threads\): thread 0 on CPU [0-9]+$' bound.txt
check "summary: phase table" bash -c "grep -Eq '^Pair ' run.txt && grep -Eq '^Neighbor ' run.txt && grep -Eq '^Communicate ' run.txt && grep -Eq '^Output ' run.txt && grep -Eq '^Integrate ' run.txt"

# A run that blows up: exit 3, the message names step and atom, and the
# thermo lines written before the failure are intact.
sed -e 's/dt: 0.005/dt: 0.04/' -e 's/temperature: 1.44/temperature: 30.0/' -e 's/every: 10, file: lj-melt.thermo.csv/every: 1, file: blowup.csv/' \
  "$src/inputs/lj-melt.yaml" > blowup.yaml
"$bin" run blowup.yaml > blowup.out 2> blowup.err
rc=$?
check "blow-up exits 3" test $rc -eq 3
check "blow-up names step, atom and position" grep -Eq "step [0-9]+: atom [0-9]+ at \(" blowup.err
check "blow-up keeps the thermo written so far" bash -c "test \$(wc -l < blowup.csv) -ge 2 && head -n 1 blowup.csv | grep -q '^step,temp'"
check "blow-up still prints the summary" grep -q "Loop time of" blowup.out

# A bad deck must not truncate an output file of an earlier run.
cp lj-melt.thermo.csv keep.csv
sed -e 's/file: lj-melt.thermo.csv/file: keep.csv/' -e 's/skin: 0.3/skin: -1/' "$src/inputs/lj-melt.yaml" > bad.yaml
"$bin" run bad.yaml > /dev/null 2>&1
check "bad deck exits 2" test $? -eq 2
check "bad deck leaves earlier output alone" cmp -s keep.csv lj-melt.thermo.csv

# tessera plan: rank grid, per-rank counts, a job header.
"$bin" plan "$src/inputs/lj-melt.yaml" --gpus 8 --nodes 2 > plan.txt 2>&1
check "plan exits 0" test $? -eq 0
check "plan picks a 2 x 2 x 2 grid for 8 GPUs" grep -q "^Rank grid  2 x 2 x 2" plan.txt
check "plan lists 8 ranks of 4000 atoms" test "$(grep -Ec '^ +[0-7] +\([01],[01],[01]\) +4000 ' plan.txt)" -eq 8
check "plan suggests the job header" grep -q "^#SBATCH --ntasks-per-node=4" plan.txt
"$bin" plan "$src/inputs/lj-melt.yaml" --gpus 3 --nodes 2 > /dev/null 2>&1
check "plan: nodes must divide GPUs (exit 2)" test $? -eq 2
check "plan has a time-per-step line from the built-in figures" grep -q "^Time per step: " plan.txt
# Time per step from measured figures given on the command line: 4,000
# atoms per rank at 2e8 atom-steps/s is 20 us, 2 ms for the deck's 100 steps.
{
  echo "# made by cli.sh"
  echo "date,commit,device,backend,precision,layout,atoms,ranks,atom_steps_per_s"
  echo "2026-12-01,abc1234,Test GPU,cuda,double,rows,4000,1,2e8"
} > figures.csv
"$bin" plan "$src/inputs/lj-melt.yaml" --gpus 8 --figures figures.csv > plan-figures.txt 2>&1
check "plan --figures exits 0" test $? -eq 0
check "plan --figures estimates 20 us per step" grep -q "Test GPU: 20 us per step, 0.002 s for run.steps 100" plan-figures.txt
check "plan --figures sizes the time limit" grep -q "^#SBATCH --time=00:11:00" plan-figures.txt
# The link between GPUs, as given: 6 staged transfers of 3 us and the
# largest halo, 5841 positions (140 kB), at 450 GB/s: 18 + 0.31 us.
"$bin" plan "$src/inputs/lj-melt.yaml" --gpus 8 --figures figures.csv --link 450,3 > plan-link.txt 2>&1
check "plan --link exits 0" test $? -eq 0
check "plan --link adds the halo's time" \
  grep -q "^  6 transfers x 3 us + 140 kB / 450 GB/s = 18.3 us per step for the largest halo$" plan-link.txt
"$bin" plan "$src/inputs/lj-melt.yaml" --gpus 8 --link 450,fast > plan-link-bad.txt 2>&1
check "plan: a bad --link exits 2, naming the part" test $? -eq 2
check "plan: the bad --link message" \
  grep -q "^tessera: error: --link 450,fast: the latency 'fast' is not a number" plan-link-bad.txt
sed -i 's/,2e8$/,fast/' figures.csv
"$bin" plan "$src/inputs/lj-melt.yaml" --gpus 8 --figures figures.csv > plan-bad.txt 2>&1
check "plan: a bad figures file exits 2" test $? -eq 2
check "plan: the message names the file, line and column" \
  grep -q "figures.csv:3: column 9 (atom_steps_per_s): 'fast' is not a positive number" plan-bad.txt

# Backend selection (issue 3, item 1). Without a usable GPU (CI, this
# machine), `info` says why, `auto` runs on the CPU after a one-line notice
# (CUDA builds), and `cuda` is a bad-input error; with one, `info` lists it.
"$bin" info > info.txt 2>&1
check "info exits 0" test $? -eq 0
check "info names the build" grep -Eq "^Tessera    .*CUDA (on, architectures|off)" info.txt
check "info lists the GPUs or says why there is none" grep -Eq "^(GPU [0-9]+ +.*compute capability|GPUs       none usable: .+)" info.txt
check "info says whether NVML (GPU telemetry) is there, and why not" \
  grep -Eq "^NVML       (driver .+, [0-9]+ GPUs?|not available \(.+\): no GPU telemetry)$" info.txt
# With a stand-in NVML library (tests/unit/fake_nvml.c) on the library path,
# info reads the telemetry through it as it would through the driver's.
if [ -n "${3:-}" ]; then
  LD_LIBRARY_PATH="$3" "$bin" info > info-nvml.txt 2>&1
  check "info with NVML: driver and count" grep -q "^NVML       driver 999.1.fake, 2 GPUs$" info-nvml.txt
  check "info with NVML: per-GPU telemetry" grep -q "^  GPU 0    Fake \"Quoted\" GPU: 40% busy, 55 C, 1536 of 81920 MiB in use$" info-nvml.txt
  check "info with NVML: a reading the driver refuses is said so" grep -q "^  GPU 1    Fake GPU B: 41% busy, 56 C, memory not reported$" info-nvml.txt
fi
sed -e 's/steps: 100/steps: 10/' -e 's/file: lj-melt.thermo.csv/file: auto.csv/' "$src/inputs/lj-melt.yaml" > auto.yaml
if grep -Eq "^GPU [0-9]+ .*: usable$" info.txt; then
  # A GPU machine (scripts/gpu): cuda and auto run on it.
  "$bin" run auto.yaml --backend cuda > cuda.out 2> cuda.err
  check "backend cuda with a usable GPU: runs (exit 0)" test $? -eq 0
  check "backend cuda: the banner names the GPU" grep -Eq "^Backend    cuda, GPU [0-9]+ \(.+\), double precision$" cuda.out
  "$bin" run auto.yaml > auto.out 2>&1
  check "backend auto with a usable GPU: runs on it" grep -Eq "^Backend    cuda, GPU" auto.out
else
  "$bin" run auto.yaml --backend cuda > cuda.out 2> cuda.err
  check "backend cuda without a usable GPU: exit 2" test $? -eq 2
  check "backend cuda: one line naming --backend and the reason" \
    grep -Eq "^tessera: error: --backend: backend cuda, but no usable GPU: .+$" cuda.err
  check "backend cuda: nothing written" test ! -e auto.csv
  printf 'backend: cuda\n' >> auto.yaml
  "$bin" run auto.yaml > cuda2.out 2> cuda2.err
  check "backend: cuda in the deck names the deck" grep -q "^tessera: error: auto.yaml: backend: backend cuda" cuda2.err
  sed -i 's/^backend: cuda$/backend: auto/' auto.yaml
  "$bin" run auto.yaml > auto.out 2>&1
  check "backend auto: runs (exit 0)" test $? -eq 0
  check "backend auto: the banner says the CPU ran" grep -Eq "^Backend    cpu \(" auto.out
  if grep -q "CUDA off" info.txt; then
    check "backend auto, CPU-only build: no notice" bash -c "! grep -q '^tessera: .*running on the CPU' auto.out"
  else
    check "backend auto, CUDA build: one notice, then the CPU run" grep -Eq "^tessera: no usable GPU \(.+\): running on the CPU$" auto.out
  fi
fi

# A misspelt kernel variant is bad input (exit 2), said before anything runs.
TESSERA_SIMD=sse "$bin" run "$src/inputs/lj-melt.yaml" -q > simd.out 2>&1
check "TESSERA_SIMD=sse: exit 2" test $? -eq 2
check "TESSERA_SIMD=sse: says what it takes" grep -q "^tessera: error: TESSERA_SIMD=sse: expected scalar, avx2 or avx512$" simd.out

exit $fail
