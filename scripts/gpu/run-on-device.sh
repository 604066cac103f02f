#!/usr/bin/env bash
# The local half of a GPU check (docs/gpu.md): builds tessera and
# tessera_gpu_tests, then packs into .device/bundle/ (ignored by git)
# everything the device machine needs to run them with nothing installed
# there but the NVIDIA driver: the two binaries, the shared libraries they
# load (not glibc's, not libcuda: the driver's own must be used), the test
# reference files, the decks, compute-sanitizer when this toolkit has it, and
# device-run.sh, the half that runs there. Then make the one device-tool call
# that docs/gpu.md gives (carry: [".device/bundle"]).
#
# Run it in the checkout the device tool sends (the session's own, not a
# helper's worktree), or set BUNDLE_DIR to that checkout's .device/bundle.
#
# Environment: TESSERA_BUILD_DIR (default build/), JOBS (default 2),
# BUNDLE_DIR (default .device/bundle), BUNDLE_LIMIT_MIB (default 60, the
# packed size),
# SKIP_BUILD=1 to pack what is already built.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${TESSERA_BUILD_DIR:-$root/build}
bundle=${BUNDLE_DIR:-$root/.device/bundle}
limit_mib=${BUNDLE_LIMIT_MIB:-60}
jobs=${JOBS:-2}

# 1. Build (CUDA on, architectures 90 by default: the H100 and H200).
if [[ ${SKIP_BUILD:-0} != 1 ]]; then
  gen=()
  command -v ninja >/dev/null && [[ ! -f $build/Makefile ]] && gen=(-G Ninja)
  nice -n 10 cmake -S "$root" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DTESSERA_CUDA=ON >/dev/null
  nice -n 10 cmake --build "$build" --parallel "$jobs" --target tessera tessera_gpu_tests
fi
tessera=$build/src/app/tessera
gpu_tests=$build/tests/device/tessera_gpu_tests
for f in "$tessera" "$gpu_tests"; do
  [[ -x $f ]] || { echo "run-on-device: $f is missing (is TESSERA_CUDA on and Thrust found?)" >&2; exit 1; }
done

# 2. The bundle, from scratch.
rm -rf "$bundle"
mkdir -p "$bundle/bin" "$bundle/lib" "$bundle/inputs"
cp "$tessera" "$gpu_tests" "$bundle/bin/"
cp "$root/scripts/gpu/device-run.sh" "$bundle/"

# Shared libraries as ldd resolves them here. Left out: glibc's own (the
# device machine's newer glibc runs what was built against Debian 12's) and
# the loader, and libcuda: the driver library must match the driver there.
skip='^(linux-vdso|ld-linux|libc|libm|libmvec|libpthread|libdl|librt|libresolv|libutil|libanl|libnsl|libnss_.*|libthread_db|libcuda|libnvidia-ml)\.so'
for exe in "$tessera" "$gpu_tests"; do
  ldd "$exe" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}'
done | sort -u | while read -r name path; do
  if [[ $name =~ $skip ]]; then continue; fi
  cp -L "$path" "$bundle/lib/$name"
done
if ldd "$tessera" "$gpu_tests" | grep -q "not found"; then
  echo "run-on-device: a library is not found here:" >&2
  ldd "$tessera" "$gpu_tests" | grep "not found" >&2
  exit 1
fi

# Open MPI's launcher with its plugins and help files, for the runs of
# several ranks sharing the GPU: the device machine has no MPI. Open MPI
# finds them under OPAL_PREFIX (device-run.sh sets it to mpi/ here) at the
# paths it was built with, the prefix (/usr) replaced. Checked here with the
# system's copies moved away: only PMIx's optional compression plugin is
# then missing, which device-run.sh silences.
if mpirun_bin=$(readlink -f "$(command -v mpirun 2>/dev/null)") && [[ -x $mpirun_bin ]] && command -v ompi_info >/dev/null; then
  mpi_path() { ompi_info --path "$1" 2>/dev/null | sed -n 's/^ *[A-Za-z_]*: *//p' | head -1; }
  prefix=$(mpi_path prefix)
  mkdir -p "$bundle/mpi/bin"
  cp "$mpirun_bin" "$bundle/mpi/bin/mpirun"
  for d in "$(mpi_path pkglibdir)" "$(mpi_path pkgdatadir)"; do
    [[ -d $d && $d == "$prefix"/* ]] || { echo "run-on-device: Open MPI folder $d is not under $prefix" >&2; exit 1; }
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
  echo "run-on-device: no Open MPI here (mpirun, ompi_info): the bundle has no launcher, the multi-rank steps will not run" >&2
fi

# The LAMMPS melts the device tests read. Their path is compiled in
# (TESSERA_REFERENCE_DIR); device-run.sh makes that path lead here.
mkdir -p "$bundle/reference"
cp "$root"/tests/reference/*.data "$bundle/reference/"
reference_dir=$(grep -ao 'TESSERA_REFERENCE_DIR=\\"[^\\]*' "$build/build.ninja" 2>/dev/null |
  grep tests/device | head -1 | sed 's/.*=\\"//')
[[ -n $reference_dir ]] || reference_dir=$root/tests/device/../reference

# Decks: the 32,000-atom LJ melt, and the same melt with 4x and 8x the fcc
# cells per side: 80^3 cells x 4 atoms = 2,048,000 atoms, and 160^3 x 4 =
# 16,384,000 (in.lj's size in issue 7's GPU targets).
cp "$root/inputs/lj-melt.yaml" "$bundle/inputs/"
sed -e 's/cells: \[20, 20, 20\]/cells: [80, 80, 80]/' \
    -e 's/lj-melt\.thermo\.csv/lj-melt-2m.thermo.csv/' \
    -e '1i # Generated by scripts/gpu/run-on-device.sh from lj-melt.yaml: 80^3 fcc cells, 2,048,000 atoms.' \
    "$root/inputs/lj-melt.yaml" >"$bundle/inputs/lj-melt-2m.yaml"
grep -q 'cells: \[80, 80, 80\]' "$bundle/inputs/lj-melt-2m.yaml" ||
  { echo "run-on-device: inputs/lj-melt.yaml has no 'cells: [20, 20, 20]' to scale" >&2; exit 1; }
"$tessera" validate "$bundle/inputs/lj-melt-2m.yaml" >/dev/null
sed -e 's/cells: \[20, 20, 20\]/cells: [160, 160, 160]/' \
    -e 's/lj-melt\.thermo\.csv/lj-melt-16m.thermo.csv/' \
    -e '1i # Generated by scripts/gpu/run-on-device.sh from lj-melt.yaml: 160^3 fcc cells, 16,384,000 atoms.' \
    "$root/inputs/lj-melt.yaml" >"$bundle/inputs/lj-melt-16m.yaml"
grep -q 'cells: \[160, 160, 160\]' "$bundle/inputs/lj-melt-16m.yaml" ||
  { echo "run-on-device: could not scale inputs/lj-melt.yaml to 16M atoms" >&2; exit 1; }
# The same two with the cluster neighbour list (issue 7's memory lever).
for size in 2m 16m; do
  sed -e 's/check: true}/check: true, layout: clusters}/' -e "s/lj-melt-$size\.thermo/lj-melt-$size-clusters.thermo/" \
    "$bundle/inputs/lj-melt-$size.yaml" >"$bundle/inputs/lj-melt-$size-clusters.yaml"
  grep -q 'layout: clusters' "$bundle/inputs/lj-melt-$size-clusters.yaml" ||
    { echo "run-on-device: inputs/lj-melt.yaml has no 'check: true}' to add the layout to" >&2; exit 1; }
  "$tessera" validate "$bundle/inputs/lj-melt-$size-clusters.yaml" >/dev/null
done

# compute-sanitizer runs from a copy of its folder (it finds its libraries
# beside itself). Only when this toolkit has it and it fits; otherwise
# device-run.sh uses the device machine's own (its CUDA image ships one).
sanitizer_note="not bundled: device-run.sh uses the device machine's own"
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

# The newest glibc symbol version anything in the bundle needs.
glibc_needed=$(for f in "$bundle"/bin/* "$bundle"/lib/*; do
  v=$(objdump -T "$f" 2>/dev/null | grep -o 'GLIBC_[0-9][0-9.]*' | sort -uV | tail -1)
  [[ -n $v ]] && echo "${v#GLIBC_} $(basename "$f")"
done | sort -V | tail -1)

{
  echo "commit:        $(git -C "$root" rev-parse --short=12 HEAD)$(git -C "$root" diff --quiet HEAD -- 2>/dev/null || echo ' (with local changes)')"
  echo "built:         $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname), $build"
  echo "architectures: $("$tessera" --version | grep -o 'architectures [^)]*' | cut -d' ' -f2-)"
  echo "reference dir: $reference_dir"
  echo "needs glibc:   ${glibc_needed% *} or newer (the newest needed by ${glibc_needed#* })"
  echo "sanitizer:     $sanitizer_note"
  echo "files:"
  (cd "$bundle" && find . -type f ! -path './compute-sanitizer/*' | sort | xargs du -k | awk '{printf "  %6d KiB  %s\n", $1, $2}')
} >"$bundle/MANIFEST.txt"

# Packed: the CUDA fatbins and the libraries shrink to about a third, and
# device-run.sh unpacks them on the device machine before anything runs.
unpacked_mib=$(du -sm "$bundle" | cut -f1)
payload=$(mktemp "${TMPDIR:-/tmp}/tessera-payload.XXXXXX")
tar -czf "$payload" -C "$bundle" --exclude=./device-run.sh --exclude=./MANIFEST.txt .
find "$bundle" -mindepth 1 -maxdepth 1 ! -name device-run.sh ! -name MANIFEST.txt -exec rm -rf {} +
chmod 644 "$payload"
mv "$payload" "$bundle/payload.tar.gz"
mib=$(du -sm "$bundle" | cut -f1)
bytes=$(du -sb "$bundle" | cut -f1)
echo "bundle: $bundle, $mib MiB packed ($bytes bytes; $unpacked_mib MiB unpacked)"
echo "compute-sanitizer: $sanitizer_note"
if ((mib > limit_mib)); then
  echo "run-on-device: the bundle is over $limit_mib MiB; the device tool carries at most 64 MiB with the tree" >&2
  exit 1
fi
cat <<EOF
Now the one device-tool call (docs/gpu.md):
  run(command="bash .device/bundle/device-run.sh", carry=[".device/bundle"], timeout_s=600)
EOF
