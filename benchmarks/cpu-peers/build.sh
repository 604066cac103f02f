#!/usr/bin/env bash
# Build the CPU peers from Debian 12's source packages, outside the repository:
#   GROMACS 2022.5 (Debian 2022.5-2), mixed and double precision, thread-MPI,
#     at the widest SIMD this CPU runs (AVX_512 / AVX2_256 / SSE4.1);
#   LAMMPS 29 Sep 2021 update 2 (Debian 20220106.git7586adbb6a+ds1-2), OpenMPI,
#     packages OPT OPENMP INTEL MOLECULE MANYBODY.
#
#   bash benchmarks/cpu-peers/build.sh [--cache DIR] [all|gromacs|gromacs-mixed|gromacs-double|lammps]...
#
# Environment:
#   TESSERA_CPU_PEERS_CACHE  cache root (default .cache/tessera-cpu-peers beside the checkout; --cache wins)
#   JOBS                     parallel compile jobs (default 2)
#   NICE                     nice level of downloads and builds (default 10)
#   GMX_SIMD                 force a GROMACS SIMD level instead of detecting one
#
# Layout under the cache root:
#   src/                  Debian source packages (.dsc, .orig, .debian) and their unpacked trees
#   gromacs-mixed/        build/, install/bin/gmx,   build.log, stamp
#   gromacs-double/       build/, install/bin/gmx_d, build.log, stamp
#   lammps/               build/, bin/lmp,           build.log, stamp
#   build-times.txt       wall time of each build, appended
#   build-info.txt        compilers, flags, SIMD level, what the binaries say about themselves
#
# A build whose binary exists and whose stamp (source version + options +
# compiler) matches is skipped, so a rerun with everything built only prints
# where the binaries are.
set -Eeuo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# Beside the checkout, never in it: third-party sources and builds stay out of the repository.
OUTSIDE="$(cd "$HERE/../../.." && pwd)"
CACHE="${TESSERA_CPU_PEERS_CACHE:-$OUTSIDE/.cache/tessera-cpu-peers}"
JOBS="${JOBS:-2}"
NICE="${NICE:-10}"

usage() {
  echo "usage: $0 [--cache DIR] [all|gromacs|gromacs-mixed|gromacs-double|lammps]..." >&2
  exit 2
}

targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --cache) [ $# -ge 2 ] || usage; CACHE="$2"; shift 2 ;;
    --cache=*) CACHE="${1#--cache=}"; shift ;;
    -h|--help) usage ;;
    all) targets+=(gromacs-mixed gromacs-double lammps); shift ;;
    gromacs) targets+=(gromacs-mixed gromacs-double); shift ;;
    gromacs-mixed|gromacs-double|lammps) targets+=("$1"); shift ;;
    *) echo "build.sh: unknown argument '$1'" >&2; usage ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(gromacs-mixed gromacs-double lammps)

GMX_DEB_VERSION="2022.5-2"
GMX_UPSTREAM="2022.5"
LMP_DEB_VERSION="20220106.git7586adbb6a+ds1-2"
LMP_UPSTREAM="20220106.git7586adbb6a+ds1"

# Progress goes to stderr: some functions return their result on stdout.
note() { echo "build.sh: $*" >&2; }
die() { echo "build.sh: ERROR: $*" >&2; exit 1; }
# A failed command under set -e would otherwise end the script without saying which step broke.
on_err() {
  local rc=$?
  echo "build.sh: ERROR: command failed (exit $rc) at line $1: $BASH_COMMAND" >&2
  exit "$rc"
}
trap 'on_err $LINENO' ERR

mkdir -p "$CACHE" || die "cannot create cache folder $CACHE"
CACHE="$(cd "$CACHE" && pwd)"
SRCDIR="$CACHE/src"
TIMES="$CACHE/build-times.txt"
INFO="$CACHE/build-info.txt"
mkdir -p "$SRCDIR"
# LAMMPS stamps its binary with `git describe` of whatever repository encloses
# the source tree; the cache may sit inside one (a checkout's parent), which would be misreported.
export GIT_CEILING_DIRECTORIES="$CACHE"

# ---------------------------------------------------------------- SIMD level
flags="$(grep -m1 '^flags' /proc/cpuinfo || true)"
if [ -z "${GMX_SIMD:-}" ]; then
  case " $flags " in
    *" avx512f "*) GMX_SIMD=AVX_512 ;;
    *" avx2 "*) GMX_SIMD=AVX2_256 ;;
    *" sse4_1 "*) GMX_SIMD=SSE4.1 ;;
    *) die "CPU has neither avx512f, avx2 nor sse4_1 (set GMX_SIMD to override)" ;;
  esac
fi
# GROMACS's step timers read the time-stamp counter with rdtscp unless told
# not to, and its mdrun refuses to start on a CPU without the instruction:
# "compiled to use the rdtscp CPU instruction. However, this is not
# supported by the current hardware" (2026-11-29, a 2-vCPU AMD EPYC VM whose
# /proc/cpuinfo lists no rdtscp). Off where the CPU lacks it; part of the
# stamp, so a cache built elsewhere is rebuilt.
case " $flags " in
  *" rdtscp "*) GMX_RDTSCP=ON ;;
  *) GMX_RDTSCP=OFF ;;
esac

# ---------------------------------------------------------------- options
# Thread-MPI only, no GPU, Debian's FFTW; internal BLAS/LAPACK and no hwloc so
# the result does not depend on which optional -dev packages happen to be installed.
GMX_OPTS_COMMON=(
  -G Ninja
  -D CMAKE_BUILD_TYPE=Release
  -D GMX_SIMD="$GMX_SIMD"
  -D GMX_USE_RDTSCP="$GMX_RDTSCP"
  -D GMX_MPI=OFF
  -D GMX_THREAD_MPI=ON
  -D GMX_OPENMP=ON
  -D GMX_GPU=OFF
  -D GMX_FFT_LIBRARY=fftw3
  -D GMX_BUILD_OWN_FFTW=OFF
  -D GMX_EXTERNAL_BLAS=OFF
  -D GMX_EXTERNAL_LAPACK=OFF
  -D GMX_HWLOC=OFF
  -D GMX_DEFAULT_SUFFIX=ON
  -D GMX_BUILD_MANUAL=OFF
  -D GMXAPI=OFF
  -D GMX_PYTHON_PACKAGE=OFF
  -D GMX_INSTALL_NBLIB_API=OFF
  -D BUILD_TESTING=OFF
  -D REGRESSIONTEST_DOWNLOAD=OFF
)

# -march=native: the INTEL package gets its vector width from the compiler's
# target, and with GCC that is only wider than SSE2 when asked for.
# -faligned-new: LAMMPS forces C++11, where `new` ignores the 64-byte alignment
# of FixIntel's and the /intel styles' members; with AVX-512 stores into them
# `-sf intel` died in FixIntel's constructor (vmovdqa to a 16-byte-aligned object).
LMP_CXX_FLAGS="-O3 -march=native -faligned-new -DNDEBUG"
LMP_OPTS=(
  -G Ninja
  -D CMAKE_BUILD_TYPE=Release
  -D CMAKE_CXX_FLAGS_RELEASE="$LMP_CXX_FLAGS"
  -D BUILD_MPI=yes
  -D BUILD_OMP=yes
  -D BUILD_SHARED_LIBS=no
  -D BUILD_TOOLS=no
  -D LAMMPS_EXCEPTIONS=no
  -D WITH_JPEG=no -D WITH_PNG=no -D WITH_GZIP=no -D WITH_FFMPEG=no
  -D PKG_OPT=yes
  -D PKG_OPENMP=yes
  -D PKG_INTEL=yes
  -D INTEL_ARCH=cpu
  -D PKG_MOLECULE=yes
  -D PKG_MANYBODY=yes
)

compiler_id() { "${1}" --version 2>/dev/null | head -1; }

stamp_of() {  # version, options and compiler of one build, hashed
  printf '%s\n' "$@" "$(compiler_id g++)" "$(cmake --version | head -1)" | sha256sum | cut -c1-16
}

GMX_MIXED_KEY="$(stamp_of "$GMX_DEB_VERSION" "${GMX_OPTS_COMMON[*]}" GMX_DOUBLE=OFF)"
GMX_DOUBLE_KEY="$(stamp_of "$GMX_DEB_VERSION" "${GMX_OPTS_COMMON[*]}" GMX_DOUBLE=ON)"
LMP_KEY="$(stamp_of "$LMP_DEB_VERSION" "${LMP_OPTS[*]}" "$(mpicxx --showme:version 2>/dev/null || true)")"

GMX_MIXED_BIN="$CACHE/gromacs-mixed/install/bin/gmx"
GMX_DOUBLE_BIN="$CACHE/gromacs-double/install/bin/gmx_d"
LMP_BIN="$CACHE/lammps/bin/lmp"

up_to_date() {  # binary stampfile key
  [ -x "$1" ] && [ "$(cat "$2" 2>/dev/null)" = "$3" ]
}

need=()
for t in "${targets[@]}"; do
  case "$t" in
    gromacs-mixed) up_to_date "$GMX_MIXED_BIN" "$CACHE/gromacs-mixed/stamp" "$GMX_MIXED_KEY" || need+=("$t") ;;
    gromacs-double) up_to_date "$GMX_DOUBLE_BIN" "$CACHE/gromacs-double/stamp" "$GMX_DOUBLE_KEY" || need+=("$t") ;;
    lammps) up_to_date "$LMP_BIN" "$CACHE/lammps/stamp" "$LMP_KEY" || need+=("$t") ;;
  esac
done

print_where() {
  echo "GROMACS mixed:  $GMX_MIXED_BIN"
  echo "GROMACS double: $GMX_DOUBLE_BIN"
  echo "LAMMPS:         $LMP_BIN   (mpirun; -sf opt|omp|intel)"
  echo "record:         $INFO"
}

if [ ${#need[@]} -eq 0 ] && [ -f "$INFO" ]; then
  note "everything asked for is built and up to date (SIMD $GMX_SIMD)"
  print_where
  exit 0
fi

# ---------------------------------------------------------------- build dependencies
DEPS=(cmake ninja-build g++ gcc dpkg-dev xz-utils libfftw3-dev libopenmpi-dev openmpi-bin pkgconf)
missing=()
for p in "${DEPS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  note "installing missing Debian packages: ${missing[*]}"
  [ "$(id -u)" = 0 ] || die "need root to apt-get install ${missing[*]} (or install them first)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" \
    || die "apt-get install ${missing[*]} failed"
fi

# ---------------------------------------------------------------- sources
DEBSRC_ENTRY=/etc/apt/sources.list.d/tessera-cpu-peers-src.sources
remove_debsrc() {
  if [ -f "$DEBSRC_ENTRY" ]; then
    rm -f "$DEBSRC_ENTRY"
    apt-get update -qq >/dev/null 2>&1 || true
  fi
}

ensure_debsrc() {
  # An existing deb-src entry (anyone's) is used as is; one added here is removed on exit.
  if grep -rqs '^Types:.*deb-src\|^deb-src' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    return
  fi
  [ "$(id -u)" = 0 ] || die "no deb-src entry in apt's sources and no root to add one"
  local deb=/etc/apt/sources.list.d/debian.sources
  [ -f "$deb" ] || die "$deb not found: cannot derive a deb-src entry from it"
  # Same archive as the binary packages, only the type changed.
  sed 's/^Types:.*/Types: deb-src/' "$deb" > "$DEBSRC_ENTRY"
  trap remove_debsrc EXIT
  nice -n "$NICE" apt-get update -qq || die "apt-get update (with deb-src) failed"
}

fetch_source() {  # package debian-version upstream-version
  local pkg="$1" dver="$2" uver="$3"
  local dsc="$SRCDIR/${pkg}_${dver}.dsc"
  local tree="$SRCDIR/${pkg}-${uver}"
  if [ ! -f "$dsc" ]; then
    ensure_debsrc
    note "downloading Debian source package $pkg $dver"
    # apt drops privileges to _apt for downloads; it needs to write here.
    chown _apt "$SRCDIR" 2>/dev/null || chmod 777 "$SRCDIR"
    (cd "$SRCDIR" && nice -n "$NICE" apt-get source --download-only "$pkg=$dver") >&2 \
      || die "apt-get source $pkg=$dver failed"
  fi
  [ -f "$dsc" ] || die "missing $dsc after download"
  if [ ! -f "$tree/.unpacked" ]; then
    note "unpacking $dsc (dpkg-source checks it against the .dsc checksums and applies Debian's patches)"
    rm -rf "$tree"
    (cd "$SRCDIR" && dpkg-source -x "$(basename "$dsc")" "$(basename "$tree")") >/dev/null \
      || die "dpkg-source -x $dsc failed"
    touch "$tree/.unpacked"
  fi
  echo "$tree"
}

log_time() {  # name seconds
  printf '%s\t%s\t%dm%02ds\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$1" $(( $2 / 60 )) $(( $2 % 60 )) "jobs=$JOBS nice=$NICE" >> "$TIMES"
}

run_logged() {  # log command...
  local log="$1"; shift
  if ! nice -n "$NICE" "$@" >> "$log" 2>&1; then
    echo "build.sh: ERROR: '$*' failed; last lines of $log:" >&2
    tail -n 30 "$log" >&2
    exit 1
  fi
}

# ---------------------------------------------------------------- GROMACS
build_gromacs() {  # mixed|double
  local prec="$1" dbl key bin
  if [ "$prec" = double ]; then dbl=ON; key="$GMX_DOUBLE_KEY"; bin="$GMX_DOUBLE_BIN"
  else dbl=OFF; key="$GMX_MIXED_KEY"; bin="$GMX_MIXED_BIN"; fi
  local root="$CACHE/gromacs-$prec" src
  src="$(fetch_source gromacs "$GMX_DEB_VERSION" "$GMX_UPSTREAM")"
  rm -rf "$root"
  mkdir -p "$root/build"
  local log="$root/build.log"
  note "building GROMACS $GMX_UPSTREAM $prec precision, SIMD $GMX_SIMD (log: $log)"
  local t0=$SECONDS
  run_logged "$log" cmake -S "$src" -B "$root/build" "${GMX_OPTS_COMMON[@]}" \
    -D GMX_DOUBLE="$dbl" -D CMAKE_INSTALL_PREFIX="$root/install"
  run_logged "$log" ninja -C "$root/build" -j "$JOBS" install
  [ -x "$bin" ] || die "GROMACS $prec built but $bin is missing"
  "$bin" --version > "$root/version.txt" 2>&1 || die "$bin --version failed (see $root/version.txt)"
  log_time "gromacs-$prec" $(( SECONDS - t0 ))
  echo "$key" > "$root/stamp"
  note "GROMACS $prec done in $(( (SECONDS - t0) / 60 )) min: $bin"
}

# ---------------------------------------------------------------- LAMMPS
# A few steps of a small LJ crystal with each accelerator: a binary that links
# can still crash when a style is first constructed (it did, for -sf intel).
lammps_smoke() {
  local lmp="$1" dir sf
  dir="$(mktemp -d)"
  cat > "$dir/in.smoke" <<'EOF_IN'
units lj
atom_style atomic
lattice fcc 0.8442
region box block 0 6 0 6 0 6
create_box 1 box
create_atoms 1 box
mass 1 1.0
velocity all create 1.44 87287 loop geom
pair_style lj/cut 2.5
pair_coeff 1 1 1.0 1.0 2.5
neighbor 0.3 bin
fix 1 all nve
run 20
EOF_IN
  for sf in "" "-sf opt" "-sf omp -pk omp 1" "-sf intel -pk intel 0 mode double omp 1" "-sf intel -pk intel 0 mode mixed omp 1"; do
    # shellcheck disable=SC2086  # $sf is a list of words on purpose
    if ! (cd "$dir" && OMP_NUM_THREADS=1 mpirun --allow-run-as-root -np 2 -x OMP_NUM_THREADS \
          "$lmp" -in in.smoke -log none -screen none $sf) > "$dir/out" 2>&1; then
      tail -n 20 "$dir/out" >&2
      rm -rf "$dir"
      die "LAMMPS smoke run failed: lmp ${sf:-(plain)}"
    fi
  done
  rm -rf "$dir"
  note "LAMMPS smoke runs passed: plain, opt, omp, intel double, intel mixed"
}

build_lammps() {
  local root="$CACHE/lammps" src
  src="$(fetch_source lammps "$LMP_DEB_VERSION" "$LMP_UPSTREAM")"
  [ -f "$src/cmake/CMakeLists.txt" ] || die "$src/cmake/CMakeLists.txt not found"
  rm -rf "$root"
  mkdir -p "$root/build" "$root/bin"
  local log="$root/build.log"
  note "building LAMMPS $LMP_UPSTREAM (log: $log)"
  local t0=$SECONDS
  run_logged "$log" cmake -S "$src/cmake" -B "$root/build" "${LMP_OPTS[@]}"
  run_logged "$log" ninja -C "$root/build" -j "$JOBS" lmp
  cp "$root/build/lmp" "$root/bin/lmp"
  # Installed-packages line must name all five, or a package was silently dropped.
  local pk
  pk="$(mpirun --allow-run-as-root -np 1 "$root/bin/lmp" -h 2>&1 | sed -n '/^Installed packages:/,/^List of individual/p' | tr -s ' \n' ' ')"
  for p in INTEL MANYBODY MOLECULE OPENMP OPT; do
    case " $pk " in *" $p "*) ;; *) die "lmp -h does not list package $p: $pk" ;; esac
  done
  lammps_smoke "$root/bin/lmp"
  log_time lammps $(( SECONDS - t0 ))
  echo "$LMP_KEY" > "$root/stamp"
  note "LAMMPS done in $(( (SECONDS - t0) / 60 )) min: $root/bin/lmp"
}

for t in "${need[@]}"; do
  case "$t" in
    gromacs-mixed) build_gromacs mixed ;;
    gromacs-double) build_gromacs double ;;
    lammps) build_lammps ;;
  esac
done

# ---------------------------------------------------------------- record
{
  echo "# CPU peers built by benchmarks/cpu-peers/build.sh, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host CPU: $(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) logical CPUs"
  echo "gcc: $(compiler_id gcc)"
  echo "g++: $(compiler_id g++)"
  echo "cmake: $(cmake --version | head -1); ninja $(ninja --version)"
  echo "mpi: $(mpirun --version 2>&1 | head -1)"
  echo "fftw: libfftw3-dev $(dpkg-query -W -f='${Version}' libfftw3-dev 2>/dev/null || echo '?')"
  echo
  echo "## GROMACS $GMX_UPSTREAM (Debian source $GMX_DEB_VERSION)"
  echo "SIMD chosen: $GMX_SIMD"
  echo "cmake options: ${GMX_OPTS_COMMON[*]} -D GMX_DOUBLE=OFF|ON"
  for prec in mixed double; do
    f="$CACHE/gromacs-$prec/version.txt"
    if [ -f "$f" ]; then
      echo "-- $prec:"
      grep -E '^(GROMACS version|Precision|SIMD instructions|CPU FFT library|C\+\+ compiler:|C\+\+ compiler flags|C compiler flags|Build type|Multi-GPU|MPI library|OpenMP support)' "$f" | sed 's/^/   /'
    else
      echo "-- $prec: not built"
    fi
  done
  echo
  echo "## LAMMPS $LMP_UPSTREAM (Debian source $LMP_DEB_VERSION)"
  echo "cmake options: ${LMP_OPTS[*]}"
  if [ -x "$LMP_BIN" ]; then
    mpirun --allow-run-as-root -np 1 "$LMP_BIN" -h 2>&1 \
      | sed -n -e '/^Large-scale/p' -e '/^LAMMPS version/p' -e '/^OS:/p' -e '/^Compiler:/p' -e '/^C++ standard/p' -e '/^MPI v/p' -e '/^Accelerator configuration/,/^List of individual/p' \
      | grep -v '^List of individual' | sed '/^$/d'
  else
    echo "not built"
  fi
  echo
  echo "## build wall times (finished UTC, target, wall, settings)"
  cat "$TIMES" 2>/dev/null || echo "none recorded"
} > "$INFO"

note "done"
print_where
