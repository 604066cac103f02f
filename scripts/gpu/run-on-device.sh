#!/usr/bin/env bash
# The local half of a GPU check (docs/gpu.md). A GPU machine is lent rarely
# and for one call, so everything that can fail is made to fail here, before
# the call: this builds tessera and tessera_gpu_tests, generates and
# validates the decks, and packs into .device/bundle/ (ignored by git)
# everything the device machine needs with nothing installed there but the
# NVIDIA driver:
#   device-run.sh     the half that runs there (scripts/gpu/device-run.sh)
#   MANIFEST.txt      commit, architectures, compiled-in reference path,
#                     glibc needed, sanitizer and peers notes, file sizes
#   payload.tar.gz    bin/ (the two binaries), lib/ (the shared libraries
#                     they and mpirun load, not glibc's, not libcuda: the
#                     driver's own must be used), mpi/ (Open MPI's launcher,
#                     plugins, help files), reference/ (the LAMMPS melts the
#                     tests read), potentials/ (the EAM files the device
#                     tests name), inputs/ (the decks), thermo-verdict.awk,
#                     ncu-kernels.awk (the profile step's summer),
#                     compute-sanitizer/ when this toolkit has it, and
#                     peers/ from benchmarks/gpu-peers/bundle.sh when that
#                     exists (PEERS=0 leaves it out; its failure only drops it)
# Then make the one device-tool call that docs/gpu.md gives
# (carry: [".device/bundle"]).
#
# It prints the packed size, and refuses (exit 1, the bundle removed) a
# bundle over BUNDLE_LIMIT_MIB or one that, with the working tree that
# travels beside it, is over the device tool's 64 MiB. Any failure names
# what failed and removes the half-made bundle, so a bundle that exists is
# whole.
#
# Run it in the checkout the device tool sends (the session's own, not a
# helper's worktree), or set BUNDLE_DIR to that checkout's .device/bundle.
#
# Environment: TESSERA_BUILD_DIR (default build/; Ninja or Makefiles),
# JOBS (default 2), BUNDLE_DIR (default .device/bundle), BUNDLE_LIMIT_MIB
# (default 60, the packed bundle), SKIP_BUILD=1 to pack what is already
# built, PEERS=0 to leave the GPU peers out.
#
#   run-on-device.sh --reference-dir BUILD   prints the reference path
#   compiled into BUILD's tessera_gpu_tests, and exits (for the tests)
set -Eeuo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
carry_limit_mib=64

die() {
  echo "run-on-device: $*" >&2
  exit 1
}

# reference_dir_of BUILD: the TESSERA_REFERENCE_DIR compiled into BUILD's
# tessera_gpu_tests. tests/CMakeLists.txt writes it to gpu-reference-dir.txt
# at configure time, whatever the generator. A build folder configured
# before that file existed is read from its generator's flags (build.ninja,
# or the Makefiles' flags.make); a miss there must not end the script (it
# once did, silently, under pipefail, for every Makefiles build folder).
reference_dir_of() {
  local build=$1 dir="" f
  if [[ -s $build/gpu-reference-dir.txt ]]; then
    dir=$(head -1 "$build/gpu-reference-dir.txt")
  fi
  for f in "$build/build.ninja" "$build/tests/device/CMakeFiles/tessera_gpu_tests.dir/flags.make"; do
    [[ -z $dir && -f $f ]] || continue
    dir=$(grep -ao 'TESSERA_REFERENCE_DIR=\\"[^\\"]*' "$f" | grep tests/device | head -1 | sed 's/.*=\\"//') || true
  done
  if [[ -z $dir ]]; then
    dir=$root/tests/device/../reference
    echo "run-on-device: no gpu-reference-dir.txt, build.ninja or flags.make in $build names the reference path: taking CMake's default, $dir" >&2
  fi
  echo "$dir"
}
if [[ ${1:-} == --reference-dir ]]; then
  [[ $# == 2 ]] || die "usage: run-on-device.sh --reference-dir BUILD"
  reference_dir_of "$2"
  exit 0
fi

build=${TESSERA_BUILD_DIR:-$root/build}
bundle=${BUNDLE_DIR:-$root/.device/bundle}
limit_mib=${BUNDLE_LIMIT_MIB:-60}
jobs=${JOBS:-2}

# A failure anywhere says what failed, and leaves no bundle: a half-made one
# would be carried and fail on the device, where a call cannot be repeated.
failed=""
payload=""
bundle_started=0
trap 'failed="line $LINENO: $BASH_COMMAND"' ERR
finish() {
  local rc=$?
  [[ -n $payload ]] && rm -f "$payload"
  if ((rc != 0)); then
    [[ -n $failed ]] && echo "run-on-device: failed (exit $rc) at $failed" >&2
    if ((bundle_started)); then
      rm -rf "$bundle"
      echo "run-on-device: removed the half-made bundle $bundle" >&2
    fi
  fi
}
trap finish EXIT

# 1. Build (CUDA on, architectures 90 by default: the H100 and H200).
if [[ ${SKIP_BUILD:-0} != 1 ]]; then
  gen=()
  command -v ninja >/dev/null && [[ ! -f $build/Makefile ]] && gen=(-G Ninja)
  nice -n 10 cmake -S "$root" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DTESSERA_CUDA=ON >/dev/null ||
    die "cmake could not configure $build"
  nice -n 10 cmake --build "$build" --parallel "$jobs" --target tessera tessera_gpu_tests ||
    die "the build of tessera and tessera_gpu_tests in $build failed"
fi
tessera=$build/src/app/tessera
gpu_tests=$build/tests/device/tessera_gpu_tests
for f in "$tessera" "$gpu_tests"; do
  [[ -x $f ]] || die "$f is missing (is TESSERA_CUDA on and Thrust found?)"
done
reference_dir=$(reference_dir_of "$build")

# What travels beside the bundle: the device tool sends the tree of the
# checkout it runs in (tracked files and untracked ones git does not
# ignore, and shared/), 64 MiB in all with the carried bundle. Measured
# before the bundle exists, so that it is not counted twice.
mkdir -p "$(dirname "$bundle")"
tree=$(git -C "$(dirname "$bundle")" rev-parse --show-toplevel 2>/dev/null) || tree=$root
tree_bytes=$(cd "$tree" && git ls-files -z -co --exclude-standard | xargs -0 -r stat -c %s -- 2>/dev/null |
  awk '{s += $1} END {print s + 0}') || true
[[ $tree_bytes =~ ^[0-9]+$ ]] || die "could not measure the working tree of $tree (git ls-files)"
if [[ -d $tree/shared ]]; then tree_bytes=$((tree_bytes + $(du -sb "$tree/shared" | cut -f1))); fi

# 2. The bundle, from scratch.
bundle_started=1
rm -rf "$bundle"
mkdir -p "$bundle/bin" "$bundle/lib" "$bundle/inputs" "$bundle/reference"
cp "$tessera" "$gpu_tests" "$bundle/bin/"
cp "$root/scripts/gpu/device-run.sh" "$root/scripts/gpu/thermo-verdict.awk" "$root/scripts/gpu/ncu-kernels.awk" "$bundle/"

# Shared libraries as ldd resolves them here. Left out: glibc's own (the
# device machine's newer glibc runs what was built against Debian 12's) and
# the loader, and libcuda: the driver library must match the driver there.
skip='^(linux-vdso|ld-linux|libc|libm|libmvec|libpthread|libdl|librt|libresolv|libutil|libanl|libnsl|libnss_.*|libthread_db|libcuda|libnvidia-ml)\.so'
if ldd "$tessera" "$gpu_tests" | grep "not found" >&2; then
  die "a library of $tessera or $gpu_tests is not found here (above)"
fi
for exe in "$tessera" "$gpu_tests"; do
  ldd "$exe" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}'
done | sort -u | while read -r name path; do
  if [[ $name =~ $skip ]]; then continue; fi
  cp -L "$path" "$bundle/lib/$name"
done

# Open MPI's launcher with its plugins and help files, for the runs of
# several ranks sharing the GPU: the device machine has no MPI. Open MPI
# finds them under OPAL_PREFIX (device-run.sh sets it to mpi/ here) at the
# paths it was built with, the prefix (/usr) replaced. Checked here with the
# system's copies moved away: only PMIx's optional compression plugin is
# then missing, which device-run.sh silences.
mpi_note="bundled"
if mpirun_bin=$(readlink -f "$(command -v mpirun 2>/dev/null)") && [[ -x $mpirun_bin ]] && command -v ompi_info >/dev/null; then
  mpi_path() { ompi_info --path "$1" 2>/dev/null | sed -n 's/^ *[A-Za-z_]*: *//p' | head -1; }
  prefix=$(mpi_path prefix)
  mkdir -p "$bundle/mpi/bin"
  cp "$mpirun_bin" "$bundle/mpi/bin/mpirun"
  for d in "$(mpi_path pkglibdir)" "$(mpi_path pkgdatadir)"; do
    [[ -d $d && $d == "$prefix"/* ]] || die "Open MPI folder '$d' is not under its prefix '$prefix'"
    mkdir -p "$bundle/mpi/$(dirname "${d#"$prefix"/}")"
    cp -r "$d" "$bundle/mpi/${d#"$prefix"/}"
  done
  for f in "$bundle/mpi/bin/mpirun" $(find "$bundle/mpi" -name '*.so'); do
    ldd "$f" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}'
  done | sort -u | while read -r name path; do
    if [[ $name =~ $skip || -e $bundle/lib/$name ]]; then continue; fi
    cp -L "$path" "$bundle/lib/$name"
  done
else
  mpi_note="none here (mpirun, ompi_info): the 2-rank verdicts will not run"
  echo "run-on-device: no Open MPI here (mpirun, ompi_info): the bundle has no launcher, the 2-rank verdicts will not run" >&2
fi

# The LAMMPS melts the device tests read. Their path is compiled in;
# device-run.sh makes that path lead here.
cp "$root"/tests/reference/*.data "$bundle/reference/"
# The EAM potential files those tests name (lammps-data's), which the
# device machine lacks; device-run.sh makes their folder lead here.
eam_files="Cu_u3.eam CuNi.eam.alloy AlFe_mm.eam.fs"
mkdir -p "$bundle/potentials"
for f in $eam_files; do
  [[ -r /usr/share/lammps/potentials/$f ]] ||
    die "/usr/share/lammps/potentials/$f is missing (Debian's lammps-data; scripts/install-deps.sh installs it)"
  cp "/usr/share/lammps/potentials/$f" "$bundle/potentials/"
done

# Decks, each lj-melt.yaml with some of its text replaced. A replacement
# whose text is not there stops the bundling (lj-melt.yaml changed), and
# every deck but the 16M one, whose edits are the 2M one's and whose
# system takes 2 GB and 9 s to build, is checked with `tessera validate`.
# derive NAME COMMENT [FROM TO]...
derive() {
  local name=$1 text err
  text="# Generated by scripts/gpu/run-on-device.sh from lj-melt.yaml: $2"$'\n'"$(cat "$root/inputs/lj-melt.yaml")"
  shift 2
  while (($# >= 2)); do
    [[ $text == *"$1"* ]] || die "inputs/lj-melt.yaml has no '$1' to make inputs/$name from"
    text=${text//"$1"/"$2"}
    shift 2
  done
  printf '%s\n' "$text" >"$bundle/inputs/$name"
  [[ $name == *16m* ]] && return
  err=$("$tessera" validate "$bundle/inputs/$name" 2>&1 >/dev/null) || die "tessera validate refuses the generated inputs/$name: $err"
}
cells='cells: [20, 20, 20]'
thermo='thermo: {every: 10, file: lj-melt.thermo.csv}'
# The verdicts: 32,000 atoms, 100 steps, a thermo line every 10 steps. Not
# every step: the pressure crosses zero near step 17, where a relative
# tolerance means nothing; the samples every 10 steps stay above 0.2.
derive verdict.yaml "the verdicts' deck: 100 steps, thermo every 10" \
  'run: {steps: 100}' 'run: {steps: 100}' "$thermo" 'thermo: {every: 10, file: verdict.thermo.csv}'
derive verdict-peer.yaml "the verdicts' deck with peer copies (CUDA IPC)" \
  'run: {steps: 100}' 'run: {steps: 100}' "$thermo" 'thermo: {every: 10, file: verdict.thermo.csv}' \
  'units: lj' $'units: lj\npeer_copies: auto'
# The benchmarks: the 32,000-atom melt, and 4x and 8x its fcc cells per
# side: 80^3 cells x 4 = 2,048,000 atoms, and 160^3 x 4 = 16,384,000 (in.lj's
# size in issue 7's GPU targets); the 2M one with the cluster neighbour
# list (issue 7's memory lever).
derive lj-melt.yaml "32,000 atoms (unchanged)"
derive lj-melt-2m.yaml "80^3 fcc cells, 2,048,000 atoms" \
  "$cells" 'cells: [80, 80, 80]' "$thermo" 'thermo: {every: 10, file: lj-melt-2m.thermo.csv}'
derive lj-melt-16m.yaml "160^3 fcc cells, 16,384,000 atoms" \
  "$cells" 'cells: [160, 160, 160]' "$thermo" 'thermo: {every: 10, file: lj-melt-16m.thermo.csv}'
derive lj-melt-2m-clusters.yaml "80^3 fcc cells, 2,048,000 atoms, the cluster neighbour list" \
  "$cells" 'cells: [80, 80, 80]' "$thermo" 'thermo: {every: 10, file: lj-melt-2m-clusters.thermo.csv}' \
  'check: true}' 'check: true, layout: clusters}'
# The sanitizers' run: short, since memcheck and racecheck slow each kernel
# tenfold or more; 50 steps so that the lists are rebuilt and atoms sorted.
derive sanitizer.yaml "10^3 fcc cells, 4,000 atoms, 50 steps, for compute-sanitizer" \
  "$cells" 'cells: [10, 10, 10]' 'run: {steps: 100}' 'run: {steps: 50}' \
  "$thermo" 'thermo: {every: 10, file: sanitizer.thermo.csv}'
# The profile's run (device-run.sh, Nsight Compute): the 2M melt for 30
# steps, so that the lists are rebuilt a few times among plain steps.
derive profile-2m.yaml "80^3 fcc cells, 2,048,000 atoms, 30 steps, for ncu" \
  "$cells" 'cells: [80, 80, 80]' 'run: {steps: 100}' 'run: {steps: 30}' \
  "$thermo" 'thermo: {every: 10, file: profile-2m.thermo.csv}'
# The molecular and metal cases of the CPU race (issues 29 and 30) on the
# GPU, from the race's own templates (benchmarks/race/inputs.sh): LAMMPS's
# in.eam (32,000 Cu atoms, Cu_u3.eam, 1000 steps) and in.chain (32,000
# beads from LAMMPS's own melt, 2000 steps), thermo every 10th of the run.
race_case() {  # case steps deck
  local dir
  dir=$(mktemp -d) || die "mktemp failed"
  (repo=$root && source "$root/benchmarks/race/inputs.sh" && "write_$1_inputs" "$dir" "$2") ||
    die "benchmarks/race/inputs.sh could not write the $1 case"
  grep -q 'thermo: {every: 0, file: tessera.thermo.csv}' "$dir/tessera.yaml" ||
    die "benchmarks/race/inputs.sh's $1 deck has no 'thermo: {every: 0, file: tessera.thermo.csv}' to set"
  sed "s|thermo: {every: 0, file: tessera.thermo.csv}|thermo: {every: $(($2 / 10)), file: ${3%.yaml}.thermo.csv}|" \
    "$dir/tessera.yaml" >"$bundle/inputs/$3"
  [[ -f $dir/chain.data ]] && cp "$dir/chain.data" "$bundle/inputs/"
  rm -rf "$dir"
}
race_case eam 1000 eam-32k.yaml
race_case chain 2000 chain-32k.yaml
tessera_abs=$(readlink -f "$tessera")  # validated from the decks' folder, for chain.data
for deck in eam-32k.yaml chain-32k.yaml; do
  err=$(cd "$bundle/inputs" && "$tessera_abs" validate "$deck" 2>&1 >/dev/null) || die "tessera validate refuses the generated inputs/$deck: $err"
done

# compute-sanitizer runs from a copy of its folder (it finds its libraries
# beside itself). Only when this toolkit has it and it fits; otherwise
# device-run.sh uses the device machine's own (its CUDA image ships one).
cs_dir=""
for d in /usr/local/cuda/compute-sanitizer "$(dirname "$(readlink -f "$(command -v compute-sanitizer 2>/dev/null || echo /nonexistent)")")"; do
  [[ -x $d/compute-sanitizer ]] && { cs_dir=$d; break; }
done
if [[ -n $cs_dir ]]; then
  cs_mib=$(du -sm --exclude=docs "$cs_dir" | cut -f1)
  now_mib=$(du -sm "$bundle" | cut -f1)
  if ((now_mib + cs_mib <= limit_mib)); then
    mkdir -p "$bundle/compute-sanitizer"
    (cd "$cs_dir" && tar --exclude=./docs -cf - .) | (cd "$bundle/compute-sanitizer" && tar -xf -)
    sanitizer_note="bundled from $cs_dir ($cs_mib MiB)"
  else
    sanitizer_note="not bundled ($cs_dir is $cs_mib MiB, over the limit): device-run.sh uses the device machine's own"
  fi
else
  sanitizer_note="not in this toolkit ($(readlink -f /usr/local/cuda)): device-run.sh uses the device machine's own"
fi

# The GPU peers (benchmarks/gpu-peers/, its own owner's): their bundle.sh
# fills peers/, which device-run.sh runs as one step of the benchmarks.
# Their failure must not cost Tessera's own check: it is noted, and the
# bundle goes on without them.
peers_note="none (no benchmarks/gpu-peers/bundle.sh)"
if [[ ${PEERS:-1} == 0 ]]; then
  peers_note="left out (PEERS=0)"
elif [[ -f $root/benchmarks/gpu-peers/bundle.sh ]]; then
  echo "run-on-device: bash benchmarks/gpu-peers/bundle.sh $bundle/peers"
  if bash "$root/benchmarks/gpu-peers/bundle.sh" "$bundle/peers"; then
    if [[ -f $bundle/peers/run.sh ]]; then
      peers_note="bundled by benchmarks/gpu-peers/bundle.sh ($(du -sm "$bundle/peers" | cut -f1) MiB unpacked)"
    else
      peers_note="benchmarks/gpu-peers/bundle.sh made no peers/run.sh: left out"
      rm -rf "$bundle/peers"
    fi
  else
    peers_note="benchmarks/gpu-peers/bundle.sh failed (exit $?): left out"
    rm -rf "$bundle/peers"
  fi
  echo "run-on-device: peers: $peers_note"
fi

# The newest glibc symbol version anything in the bundle needs.
glibc_needed=$(for f in "$bundle"/bin/* "$bundle"/lib/*; do
  v=$(objdump -T "$f" 2>/dev/null | grep -o 'GLIBC_[0-9][0-9.]*' | sort -uV | tail -1) || true
  if [[ -n $v ]]; then echo "${v#GLIBC_} $(basename "$f")"; fi
done | sort -V | tail -1)

{
  echo "commit:        $(git -C "$root" rev-parse --short=12 HEAD)$(git -C "$root" diff --quiet HEAD -- 2>/dev/null || echo ' (with local changes)')"
  echo "built:         $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname), $build"
  echo "architectures: $("$tessera" --version | grep -o 'architectures [^)]*' | cut -d' ' -f2-)"
  echo "reference dir: $reference_dir"
  echo "needs glibc:   ${glibc_needed% *} or newer (the newest needed by ${glibc_needed#* })"
  echo "sanitizer:     $sanitizer_note"
  echo "mpi:           $mpi_note"
  echo "peers:         $peers_note"
  echo "files:"
  (cd "$bundle" && find . -type f ! -path './compute-sanitizer/*' ! -path './peers/*' | sort | xargs du -k |
    awk '{printf "  %6d KiB  %s\n", $1, $2}')
  if [[ -d $bundle/peers ]]; then
    echo "  $(du -sk "$bundle/peers" | cut -f1) KiB  ./peers/ (benchmarks/gpu-peers/bundle.sh)"
  fi
} >"$bundle/MANIFEST.txt"

# Packed: the CUDA fatbins and the libraries shrink to about a third, and
# device-run.sh unpacks them on the device machine before anything runs.
unpacked_mib=$(du -sm "$bundle" | cut -f1)
payload=$(mktemp "${TMPDIR:-/tmp}/tessera-payload.XXXXXX")
tar -czf "$payload" -C "$bundle" --exclude=./device-run.sh --exclude=./MANIFEST.txt . ||
  die "could not pack $bundle into $payload"
find "$bundle" -mindepth 1 -maxdepth 1 ! -name device-run.sh ! -name MANIFEST.txt -exec rm -rf {} +
chmod 644 "$payload"
mv "$payload" "$bundle/payload.tar.gz"
payload=""
bytes=$(du -sb "$bundle" | cut -f1)
mib() { awk -v b="$1" 'BEGIN {printf "%.1f", b / 1048576}'; }
echo "bundle: $bundle, $(mib "$bytes") MiB packed ($bytes bytes; $unpacked_mib MiB unpacked); with the tree that travels beside it ($(mib "$tree_bytes") MiB, $tree): $(mib $((bytes + tree_bytes))) MiB of the device tool's $carry_limit_mib"
echo "compute-sanitizer: $sanitizer_note"
echo "peers: $peers_note"
if ((bytes > limit_mib * 1048576)); then
  die "the bundle is $(mib "$bytes") MiB packed, over BUNDLE_LIMIT_MIB=$limit_mib (the device tool carries at most $carry_limit_mib MiB, the working tree included): removed"
fi
if ((bytes + tree_bytes > carry_limit_mib * 1048576)); then
  die "the bundle ($(mib "$bytes") MiB packed) and the tree that travels beside it ($(mib "$tree_bytes") MiB, $tree) are $(mib $((bytes + tree_bytes))) MiB, over the device tool's $carry_limit_mib MiB for all it carries: removed (PEERS=0 leaves the peers out)"
fi
cat <<EOF
Now the one device-tool call (docs/gpu.md):
  run(command="bash .device/bundle/device-run.sh", carry=[".device/bundle"], timeout_s=600)
EOF
