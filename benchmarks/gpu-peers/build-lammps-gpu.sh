#!/usr/bin/env bash
# Build LAMMPS `lmp` with the GPU package (CUDA, sm_90) from Debian 12's lammps
# source package (20220106), with Debian's Open MPI, for the GPU peer runs of
# benchmarks/gpu-peers/run.sh. Everything is cached outside the repository.
#
#   bash benchmarks/gpu-peers/build-lammps-gpu.sh [double|mixed|both]   (default: both)
#
# Environment:
#   TESSERA_PEERS_CACHE  cache root (default .cache/tessera-peers beside the checkout)
#   JOBS                 make -j (default 1)
#   NICE                 nice level (default 19)
#   CUDA_HOME            CUDA toolkit (default /usr/local/cuda)
#   GPU_ARCH             default sm_90
#
# Result: $TESSERA_PEERS_CACHE/lammps-gpu/install/lmp-double and lmp-mixed
# (not stripped; bundle.sh strips its copies). A binary that exists and whose
# .stamp matches the source, the patch and the options is not rebuilt.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# Beside the checkout, never in it: fetched and built code stays out of the repository.
OUTSIDE="$(cd "$HERE/../../.." && pwd)"
CACHE="${TESSERA_PEERS_CACHE:-$OUTSIDE/.cache/tessera-peers}"
JOBS="${JOBS:-1}"
NICE="${NICE:-19}"
CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
GPU_ARCH="${GPU_ARCH:-sm_90}"
WHICH="${1:-both}"
case "$WHICH" in
  double) PRECS=(double) ;;
  mixed) PRECS=(mixed) ;;
  both) PRECS=(double mixed) ;;
  *) echo "usage: $0 [double|mixed|both]" >&2; exit 2 ;;
esac

DEB_VERSION="20220106.git7586adbb6a+ds1-2"
DSC_NAME="lammps_${DEB_VERSION}.dsc"
PATCH="$HERE/lammps-20220106-cuda13.patch"
SRCDL="$CACHE/src"
ROOT="$CACHE/lammps-gpu"
BUILD="$ROOT/build"
INSTALL="$ROOT/install"
LOG="$ROOT/build.log"
TIMES="$ROOT/build-times.txt"
mkdir -p "$SRCDL" "$ROOT" "$INSTALL"

die() { echo "build-lammps-gpu: ERROR: $*" >&2; exit 1; }
note() { echo "build-lammps-gpu: $*"; }

[ -x "$CUDA_HOME/bin/nvcc" ] || die "no nvcc at $CUDA_HOME/bin/nvcc"
[ -x "$CUDA_HOME/bin/bin2c" ] || die "no bin2c at $CUDA_HOME/bin/bin2c"
for t in cmake make g++ dpkg-source patch sha256sum; do
  command -v "$t" >/dev/null || die "$t not found (apt-get install cmake make g++ dpkg-dev patch)"
done

# The key of a build: source version, patch, options. A change rebuilds.
OPTS_COMMON=(
  -D CMAKE_BUILD_TYPE=Release
  # Debian's Open MPI, the one the device bundle carries (mpi/, lib/): the GPU
  # package leaves integration, packing and ghosts to the host, so users run
  # several ranks per GPU; a serial (STUBS) lmp measured one core, not the GPU
  # (benchmarks/results/gpu-2026-11-28b-h200.md).
  -D BUILD_MPI=yes
  -D BUILD_OMP=no            # no libgomp needed
  -D BUILD_SHARED_LIBS=no
  -D BUILD_TOOLS=no
  -D LAMMPS_EXCEPTIONS=no
  -D WITH_JPEG=no -D WITH_PNG=no -D WITH_GZIP=no -D WITH_FFMPEG=no
  -D PKG_GPU=yes             # the only package: in.lj needs only core styles + lj/cut/gpu
  -D GPU_API=cuda
  -D GPU_ARCH="$GPU_ARCH"
  -D CUDA_TOOLKIT_ROOT_DIR="$CUDA_HOME"
  -D BIN2C="$CUDA_HOME/bin/bin2c"
  # nvcc 13 marks double4 deprecated (use double4_16a/32a); 61 kernels x dozens of lines of that warning.
  # LAL_USE_OLD_NEIGHBOR, in the kernels and in lib/gpu's host code alike:
  # lal_neighbor_gpu.cu turns it on for CUDA 11.2 and later 11.x only
  # ("incorrect results in CUDA >= 11.2"), so CUDA 13 got the newer GPU list
  # build, whose first kernel launch failed on an H200 with driver error 1
  # (CUDA_ERROR_INVALID_VALUE) while `-pk gpu 1 neigh no` ran
  # (benchmarks/results/gpu-2026-11-28-h200.md). Not yet tried on a GPU.
  -D "CUDA_NVCC_FLAGS=-diag-suppress=1444;-DLAL_USE_OLD_NEIGHBOR"
  -D CMAKE_CXX_FLAGS=-DLAL_USE_OLD_NEIGHBOR
)
KEY="$(printf '%s\n' "$DEB_VERSION" "$(sha256sum "$PATCH" | cut -c1-16)" "${OPTS_COMMON[*]}" "$("$CUDA_HOME/bin/nvcc" --version | tail -1)" | sha256sum | cut -c1-16)"

need=()
for p in "${PRECS[@]}"; do
  if [ -x "$INSTALL/lmp-$p" ] && [ "$(cat "$INSTALL/lmp-$p.stamp" 2>/dev/null)" = "$KEY" ]; then
    note "lmp-$p is up to date ($INSTALL/lmp-$p, key $KEY)"
  else
    need+=("$p")
  fi
done
[ ${#need[@]} -eq 0 ] && exit 0

# ---- 1. the Debian source package (apt-get source, with a temporary deb-src entry) ----
if [ ! -f "$SRCDL/$DSC_NAME" ]; then
  note "downloading Debian source package lammps $DEB_VERSION"
  SRCLIST=/etc/apt/sources.list.d/tessera-peers-src.sources
  added=0
  if ! grep -rqs "deb-src" /etc/apt/sources.list /etc/apt/sources.list.d/ ; then
    [ -w /etc/apt/sources.list.d ] || die "no deb-src entry and cannot add one (need root)"
    cat > "$SRCLIST" <<'EOF'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    added=1
    nice -n "$NICE" apt-get update -qq || die "apt-get update failed"
  fi
  chmod 777 "$SRCDL" 2>/dev/null || true
  (cd "$SRCDL" && nice -n "$NICE" apt-get source --download-only "lammps=$DEB_VERSION") || die "apt-get source lammps=$DEB_VERSION failed"
  if [ $added = 1 ]; then rm -f "$SRCLIST"; nice -n "$NICE" apt-get update -qq || true; fi
fi
[ -f "$SRCDL/$DSC_NAME" ] || die "missing $SRCDL/$DSC_NAME"

# ---- 2. unpack (checksums verified by dpkg-source against the .dsc) and patch ----
SRC="$ROOT/src"
SRCKEY="$(printf '%s\n' "$DEB_VERSION" "$(sha256sum "$PATCH" | cut -c1-16)" | sha256sum | cut -c1-16)"
if [ "$(cat "$ROOT/src.stamp" 2>/dev/null)" != "$SRCKEY" ] || [ ! -d "$SRC/cmake" ]; then
  note "unpacking $DSC_NAME into $SRC (Debian's patches are not applied: they touch packaging only)"
  rm -rf "$SRC" "$BUILD" "$ROOT/src.stamp"
  # --skip-patches: orig tarball as released by Debian; its debian/patches change
  # spglib/potential paths/docs, nothing the GPU build uses.
  nice -n "$NICE" dpkg-source --skip-patches -x "$SRCDL/$DSC_NAME" "$SRC" >/dev/null || die "dpkg-source -x failed"
  (cd "$SRC" && patch -p1 --forward < "$PATCH") || die "patch $PATCH did not apply"
  echo "$SRCKEY" > "$ROOT/src.stamp"
fi

# ---- 3. configure and build, one precision after the other in the same build tree ----
# GPU_PREC changes only the compile definitions of the static 'gpu' library (lib/gpu
# host code and the 61 kernels); LAMMPS proper is not rebuilt when it changes.
for p in "${need[@]}"; do
  note "building lmp ($p, $GPU_ARCH, make -j$JOBS, nice $NICE); log: $LOG"
  t0=$(date +%s)
  {
    echo "==== $(date -u +%FT%TZ) configure GPU_PREC=$p"
    nice -n "$NICE" cmake -S "$SRC/cmake" -B "$BUILD" "${OPTS_COMMON[@]}" -D GPU_PREC="$p"
    echo "==== $(date -u +%FT%TZ) build"
    nice -n "$NICE" make -C "$BUILD" -j"$JOBS" lmp
    echo "==== $(date -u +%FT%TZ) done"
  } >> "$LOG" 2>&1 || { tail -40 "$LOG" >&2; die "build of lmp ($p) failed; see $LOG"; }
  t1=$(date +%s)
  cp "$BUILD/lmp" "$INSTALL/lmp-$p"
  echo "$KEY" > "$INSTALL/lmp-$p.stamp"
  echo "$(date -u +%FT%TZ) lmp-$p $((t1 - t0)) s wall, make -j$JOBS nice $NICE, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), host $(hostname)" >> "$TIMES"
  note "lmp-$p built in $((t1 - t0)) s: $INSTALL/lmp-$p"
done
