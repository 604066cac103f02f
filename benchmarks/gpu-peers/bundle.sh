#!/usr/bin/env bash
# Fill DEST with what the device machine needs to run the GPU peers (gamdpy and
# LAMMPS's GPU package) next to Tessera in the one device call, with nothing
# installed there but the driver and its Python:
#
#   bash benchmarks/gpu-peers/bundle.sh DEST        (e.g. .device/bundle/peers)
#
#   DEST/run.sh                 the device half (benchmarks/gpu-peers/run.sh)
#   DEST/gamdpy_lj.py           Tessera's driver for gamdpy's LJ benchmark
#   DEST/gamdpy/src/gamdpy/     gamdpy's package source (git archive of the fetched
#                               mirror's HEAD, cached in $TESSERA_PEERS_CACHE)
#   DEST/gamdpy/LICENSE.txt
#   DEST/lammps/bin/lmp-double  LAMMPS 20220106 + GPU package (CUDA, sm_90, Open
#   DEST/lammps/bin/lmp-mixed   MPI), stripped; built by build-lammps-gpu.sh
#   DEST/lammps/lib/            the shared libraries ldd lists for them, less glibc's,
#                               the loader's and libcuda (the driver's must be used)
#   DEST/PEERS_MANIFEST.txt     versions, files, sizes, newest glibc symbol needed
#   DEST/peers.env              versions for run.sh (sourced)
#
# It builds nothing: run build-lammps-gpu.sh first (about 21 minutes on 2 cores).
# Exits non-zero with a message on stderr when gamdpy or lmp-double is missing
# (lmp-mixed is optional) or when DEST packs to more than PEERS_LIMIT_MIB
# (default 25) MiB with gzip, and then leaves no DEST behind; the caller goes
# on without peers.
#
# Environment:
#   TESSERA_PEERS_CACHE  default .cache/tessera-peers beside the checkout
#   GAMDPY_GIT_DIR       default .mirror/jklust+gamdpy/repo beside the checkout (where the
#                        search tool's fetch puts its copy)
#   PEERS_LIMIT_MIB      default 25
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# Beside the checkout, never in it: fetched and built code stays out of the repository.
OUTSIDE="$(cd "$HERE/../../.." && pwd)"
CACHE="${TESSERA_PEERS_CACHE:-$OUTSIDE/.cache/tessera-peers}"
GAMDPY_GIT_DIR="${GAMDPY_GIT_DIR:-$OUTSIDE/.mirror/jklust+gamdpy/repo}"
LIMIT_MIB="${PEERS_LIMIT_MIB:-25}"

DEST_MADE=0
# On any failure DEST is removed again, so that nothing half-filled gets packed.
cleanup() {
  local rc=$?
  if [ $rc -ne 0 ] && [ "$DEST_MADE" = 1 ]; then
    rm -rf "$DEST"
    echo "bundle.sh (gpu-peers): failed (exit $rc): removed $DEST" >&2
  fi
}
trap cleanup EXIT
die() { echo "bundle.sh (gpu-peers): ERROR: $*" >&2; exit 1; }
note() { echo "bundle.sh (gpu-peers): $*"; }

[ $# -eq 1 ] || { echo "usage: $0 DEST" >&2; exit 2; }
DEST="$1"
case "$DEST" in ""|/|.|..) die "refusing DEST '$DEST'";; esac
if [ -d "$DEST" ] && [ -n "$(ls -A "$DEST")" ] && [ ! -f "$DEST/PEERS_MANIFEST.txt" ] && [ ! -f "$DEST/run.sh" ]; then
  die "DEST $DEST is not empty and holds no earlier peers bundle: refusing to clear it"
fi
rm -rf "$DEST"
mkdir -p "$DEST"
DEST_MADE=1

# ---- gamdpy: source of the fetched mirror's HEAD, archived into the cache ----
[ -d "$GAMDPY_GIT_DIR" ] || die "no gamdpy mirror at $GAMDPY_GIT_DIR (bring github:jklust/gamdpy with the fetch tool, or set GAMDPY_GIT_DIR)"
GAMDPY_COMMIT="$(git --git-dir="$GAMDPY_GIT_DIR" rev-parse HEAD)" || die "cannot read HEAD of $GAMDPY_GIT_DIR"
GAMDPY_DATE="$(git --git-dir="$GAMDPY_GIT_DIR" log -1 --format=%cs HEAD)"
GCACHE="$CACHE/gamdpy-${GAMDPY_COMMIT:0:12}"
if [ ! -f "$GCACHE/gamdpy/__init__.py" ]; then
  rm -rf "$GCACHE.tmp" && mkdir -p "$GCACHE.tmp"
  # Only the package and its licence: examples and data stay behind (some of
  # their blobs are absent from the mirror, which git reports and skips).
  git --git-dir="$GAMDPY_GIT_DIR" archive HEAD gamdpy LICENSE.txt 2>/dev/null | tar x -C "$GCACHE.tmp" ||
    die "git archive of gamdpy failed"
  [ -f "$GCACHE.tmp/gamdpy/__init__.py" ] || die "git archive gave no gamdpy/__init__.py"
  rm -rf "$GCACHE" && mv "$GCACHE.tmp" "$GCACHE"
fi
mkdir -p "$DEST/gamdpy/src"
cp -r "$GCACHE/gamdpy" "$DEST/gamdpy/src/"
cp "$GCACHE/LICENSE.txt" "$DEST/gamdpy/" 2>/dev/null || true
find "$DEST/gamdpy" -name __pycache__ -prune -exec rm -rf {} +
cp "$HERE/gamdpy_lj.py" "$DEST/"

# ---- LAMMPS lmp with the GPU package ----
LINST="$CACHE/lammps-gpu/install"
[ -x "$LINST/lmp-double" ] ||
  die "no $LINST/lmp-double: run 'bash benchmarks/gpu-peers/build-lammps-gpu.sh' first (about 21 minutes with -j1 on 2 cores; see benchmarks/gpu-peers/README.md)"
mkdir -p "$DEST/lammps/bin" "$DEST/lammps/lib"
precs=(double)
if [ -x "$LINST/lmp-mixed" ]; then precs+=(mixed); else note "warning: no $LINST/lmp-mixed: only double precision LAMMPS-GPU will run"; fi
for p in "${precs[@]}"; do
  strip -o "$DEST/lammps/bin/lmp-$p" "$LINST/lmp-$p"
done
# Shared libraries: everything ldd resolves, except glibc's own libraries, the
# loader and libcuda (which must be the device machine's driver library).
ldd "$LINST/lmp-double" > "$DEST/lammps/ldd.txt" 2>&1 || true
while read -r name _ path _; do
  [ -n "$path" ] && [ -f "$path" ] || continue
  case "$name" in
    libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|ld-linux*|libcuda.so*|linux-vdso*|libresolv.so*|libutil.so*) continue ;;
  esac
  cp -L "$path" "$DEST/lammps/lib/$name"
  strip --strip-unneeded "$DEST/lammps/lib/$name" 2>/dev/null || true
done < <(grep '=> /' "$DEST/lammps/ldd.txt")
if grep -q 'not found' "$DEST/lammps/ldd.txt"; then
  grep 'not found' "$DEST/lammps/ldd.txt" | grep -v 'libcuda' >&2 && die "lmp-double has unresolved libraries (above)"
fi
grep -q 'libcuda' "$DEST/lammps/ldd.txt" || note "warning: lmp-double does not link libcuda (unexpected for the GPU package)"

# ---- run.sh, versions, manifest ----
cp "$HERE/run.sh" "$DEST/run.sh"
LAMMPS_VERSION="20220106"
# Debian's 20220106 snapshot is LAMMPS's stable release 29 Sep 2021, Update 2
vh="$CACHE/lammps-gpu/src/src/version.h"
LAMMPS_RELEASE="$(sed -n 's/^#define LAMMPS_VERSION "\(.*\)"/\1/p' "$vh" 2>/dev/null)"
LAMMPS_RELEASE="${LAMMPS_RELEASE:-unknown}$(sed -n 's/^#define LAMMPS_UPDATE "\(.*\)"/ - \1/p' "$vh" 2>/dev/null)"
LAMMPS_PRECS="${precs[*]}"
cat > "$DEST/peers.env" <<EOF
GAMDPY_COMMIT=${GAMDPY_COMMIT}
GAMDPY_DATE=${GAMDPY_DATE}
LAMMPS_VERSION=${LAMMPS_VERSION}
LAMMPS_DEB_VERSION=20220106.git7586adbb6a+ds1-2
LAMMPS_RELEASE="${LAMMPS_RELEASE}"
LAMMPS_PRECS="${LAMMPS_PRECS}"
LAMMPS_GPU_ARCH=sm_90
BUNDLED_AT=$(date -u +%FT%TZ)
EOF

glibc_need() {
  objdump -T "$@" 2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1
}
{
  echo "# Tessera GPU peers bundle (benchmarks/gpu-peers/bundle.sh), $(date -u +%FT%TZ)"
  echo "gamdpy: github jklust/gamdpy $GAMDPY_COMMIT ($GAMDPY_DATE), package source only"
  echo "lammps: Debian source package lammps 20220106.git7586adbb6a+ds1-2 (LAMMPS $LAMMPS_RELEASE), GPU package, CUDA $(/usr/local/cuda/bin/nvcc --version 2>/dev/null | grep -o 'release [0-9.]*' | cut -d' ' -f2), sm_90, Debian's Open MPI (run with the bundle's mpirun), precisions: $LAMMPS_PRECS"
  echo "patch: $(basename "$HERE/lammps-20220106-cuda13.patch") sha256 $(sha256sum "$HERE/lammps-20220106-cuda13.patch" | cut -c1-16)"
  echo "newest glibc symbol needed by lmp and its libraries: $(glibc_need "$DEST"/lammps/bin/* "$DEST"/lammps/lib/*)"
  echo "files:"
  (cd "$DEST" && find . -type f ! -name PEERS_MANIFEST.txt -printf '%s\t%p\n' | sort -k2)
} > "$DEST/PEERS_MANIFEST.txt"

# ---- what went in, and its size ----
note "filled $DEST:"
(cd "$DEST" && find . -maxdepth 3 \( -type f -o -type d \) ! -path './gamdpy/src/gamdpy/*' -printf '  %10s  %p\n' | sort -k2)
note "  (gamdpy/src/gamdpy: $(find "$DEST/gamdpy/src/gamdpy" -type f | wc -l) files, $(du -sk "$DEST/gamdpy/src/gamdpy" | cut -f1) KiB)"
unpacked_k=$(du -sk "$DEST" | cut -f1)
packed_b=$(tar czf - -C "$DEST" . | wc -c)
packed_mib=$(awk -v b="$packed_b" 'BEGIN{printf "%.1f", b/1048576}')
note "size: $((unpacked_k / 1024)) MiB unpacked, $packed_mib MiB with tar+gzip (limit $LIMIT_MIB MiB)"
awk -v b="$packed_b" -v l="$LIMIT_MIB" 'BEGIN{exit !(b > l*1048576)}' &&
  die "the peers bundle packs to $packed_mib MiB, over PEERS_LIMIT_MIB=$LIMIT_MIB"
exit 0
