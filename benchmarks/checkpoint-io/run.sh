#!/usr/bin/env bash
# Checkpoint I/O benchmark (issue 4, item 8): checkpoint write and cold-cache
# read speed for 1M and 10M atoms, next to the raw speed of the same disk
# measured with dd in the same run. Builds nothing.
#
# Usage: benchmarks/checkpoint-io/run.sh [BENCH_BINARY [SCRATCH_PARENT]]
#   BENCH_BINARY    default: <repo>/build/benchmarks/checkpoint-io/tessera_checkpoint_bench
#   SCRATCH_PARENT  a folder on the disk to measure; a fresh folder is made in
#                   it and removed at the end (default: <repo>/build). A tmpfs
#                   is refused (it would measure memory, not a disk) unless
#                   ALLOW_TMPFS=1.
# Environment:
#   REPEATS=R       rounds per case, medians reported (default 3); dd runs R times too
#   ATOMS="N ..."   cases (default "1000000 10000000"). With other cases the
#                   report goes to <repo>/build/checkpoint-io-results/ instead
#                   of benchmarks/results/ (a smoke test is not a result).
#   RESULTS_DIR=D   where the markdown report goes (overrides the above)
#
# Dropping the page cache before the reads uses posix_fadvise (dd
# iflag=nocache for dd) and, where writable (as root), /proc/sys/vm/drop_caches,
# which drops clean cached pages machine-wide.
set -euo pipefail
export LC_ALL=C

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"

bench="${1:-$repo/build/benchmarks/checkpoint-io/tessera_checkpoint_bench}"
case "$bench" in
  /*) ;;
  *) bench="$(pwd)/$bench" ;;
esac
if [ ! -x "$bench" ]; then
  echo "run.sh: bench binary not found or not executable: $bench" >&2
  echo "run.sh: build it (ninja -C build tessera_checkpoint_bench) or pass its path as the first argument" >&2
  exit 2
fi

scratch_parent="${2:-$repo/build}"
mkdir -p "$scratch_parent"
fs_type="$(stat -f -c %T "$scratch_parent")"
case "$fs_type" in
  tmpfs | ramfs)
    if [ "${ALLOW_TMPFS:-0}" != 1 ]; then
      echo "run.sh: $scratch_parent is on a $fs_type: that measures memory, not a disk (ALLOW_TMPFS=1 to insist)" >&2
      exit 2
    fi
    ;;
esac

repeats="${REPEATS:-3}"
default_atoms="1000000 10000000"
atoms_list="${ATOMS:-$default_atoms}"
if ! [[ "$repeats" =~ ^[1-9][0-9]*$ ]]; then
  echo "run.sh: REPEATS must be a positive integer, got '$repeats'" >&2
  exit 2
fi
largest=0
for n in $atoms_list; do
  if ! [[ "$n" =~ ^[1-9][0-9]*$ ]]; then
    echo "run.sh: ATOMS must list positive integers, got '$n'" >&2
    exit 2
  fi
  if [ "$n" -gt "$largest" ]; then largest=$n; fi
done

# The bench writes 128 bytes per atom; at the peak the checkpoint and its raw
# rewrite sit side by side. Half again for HDF5's overhead and safety.
need_kb=$(( largest * 128 * 3 / 1024 ))
avail_kb=$(df -Pk "$scratch_parent" | awk 'NR == 2 { print $4 }')
if [ "$avail_kb" -lt "$need_kb" ]; then
  echo "run.sh: $scratch_parent has ${avail_kb} kB free; the largest case needs about ${need_kb} kB" >&2
  exit 2
fi

# Record the commit now: other work may commit while the benchmark runs.
commit="$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo '?')"
if [ -n "$(git -C "$repo" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
  tree_state="dirty (uncommitted changes to tracked files)"
else
  tree_state=clean
fi

if [ -n "${RESULTS_DIR:-}" ]; then
  results_dir="$RESULTS_DIR"
elif [ "$atoms_list" = "$default_atoms" ]; then
  results_dir="$repo/benchmarks/results"
else
  results_dir="$repo/build/checkpoint-io-results"
fi
mkdir -p "$results_dir"
report="$results_dir/checkpoint-io-$(date +%F).md"

scratch="$(mktemp -d "$scratch_parent/checkpoint-io.XXXXXX")"
cleanup() { rm -rf "$scratch"; }
trap cleanup EXIT

# No machine paths in the report: the scratch folder shows as $SCRATCH, the
# build folder (when the binary sits at its usual place in one) as <build>,
# the repository as <repo>.
build_dir="${bench%/benchmarks/checkpoint-io/tessera_checkpoint_bench}"
[ "$build_dir" = "$bench" ] && build_dir="$(dirname "$bench")"
redact() { sed -e "s|$scratch|\$SCRATCH|g" -e "s|$build_dir|<build>|g" -e "s|$repo|<repo>|g"; }
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"

log="$scratch/bench.log"
: > "$log"
declare -A result phases
for n in $atoms_list; do
  echo "run.sh: load average $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$log"
  echo "run.sh: $bench --atoms $n --dir $scratch/ckpt --repeats $repeats"
  "$bench" --atoms "$n" --dir "$scratch/ckpt" --repeats "$repeats" | tee -a "$log"
  result[$n]="$(grep '^RESULT ' "$log" | grep " atoms=$n " | tail -1)"
  phases[$n]="$(grep -A1 "^RESULT atoms=$n " "$log" | grep '^PHASES ' | tail -1)"
done

# Value of key=... in a RESULT/PHASES line.
get() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<< " $1"; }

# dd of the largest checkpoint's size, so both move the same number of bytes.
size_mb="$(get "${result[$largest]}" size_mb)"
dd_count="$(awk -v mb="$size_mb" 'BEGIN { printf "%d", mb * 1e6 / 1048576 + 0.5 }')"
dd_file="$scratch/dd.bin"
dd_mbs() { awk '/copied/ { printf "%.1f", $1 / 1e6 / $(NF - 3) }'; }
drop_cache() {
  local used=""
  sync "$1"
  if dd if="$1" iflag=nocache count=0 status=none 2>/dev/null; then used="fadvise"; fi
  if (echo 1 > /proc/sys/vm/drop_caches) 2>/dev/null; then used="${used:+$used+}drop_caches"; fi
  echo "${used:-none}"
}
dd_write=()
dd_read=()
dd_log="$scratch/dd.log"
: > "$dd_log"
for ((r = 1; r <= repeats; r++)); do
  rm -f "$dd_file"
  echo "run.sh: dd if=/dev/zero of=\$SCRATCH/dd.bin bs=1M count=$dd_count conv=fsync" | tee -a "$dd_log"
  out="$(dd if=/dev/zero of="$dd_file" bs=1M count="$dd_count" conv=fsync 2>&1)"
  echo "$out" | tee -a "$dd_log"
  dd_write+=("$(dd_mbs <<< "$out")")
  dd_drop="$(drop_cache "$dd_file")"
  resident="?"
  if command -v fincore >/dev/null; then resident="$(fincore -b -n -o RES "$dd_file" | awk '{ print $1 }')"; fi
  echo "run.sh: cache dropped by $dd_drop, $resident bytes resident; dd if=\$SCRATCH/dd.bin of=/dev/null bs=1M" |
    tee -a "$dd_log"
  out="$(dd if="$dd_file" of=/dev/null bs=1M 2>&1)"
  echo "$out" | tee -a "$dd_log"
  dd_read+=("$(dd_mbs <<< "$out")")
done
rm -f "$dd_file"
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ddw="$(median "${dd_write[@]}")"
ddr="$(median "${dd_read[@]}")"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

table="| case | file size (MB) | write (MB/s) | read, cold cache (MB/s) | write / dd write | read / dd read |
| --- | ---: | ---: | ---: | ---: | ---: |
| dd, zeros, bs=1M (write conv=fsync) | $(awk -v c="$dd_count" 'BEGIN { printf "%.1f", c * 1048576 / 1e6 }') | $ddw | $ddr | 1.00 | 1.00 |"
for n in $atoms_list; do
  w="$(get "${result[$n]}" write_mbs)"
  rd="$(get "${result[$n]}" read_mbs)"
  table+="
| checkpoint, $n atoms | $(get "${result[$n]}" size_mb) | $w | $rd | $(ratio "$w" "$ddw") | $(ratio "$rd" "$ddr") |"
done

phase_table="| case | write (s) | same call on tmpfs (s) | write+fsync+rename of the bytes alone (s) | = MB/s | whole-file hash (s) | one zero-filled file-sized allocation (s) | read, cold (s) | same call on tmpfs (s) | cold seal pass: disk read + hash (s) | = MB/s |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for n in $atoms_list; do
  p="${phases[$n]}"
  phase_table+="
| $n atoms | $(get "${result[$n]}" write_s) | $(get "$p" mem_write_s) | $(get "$p" raw_write_s) | $(get "$p" raw_write_mbs) | $(get "$p" hash_s) | $(get "$p" alloc_s) | $(get "${result[$n]}" read_s) | $(get "$p" mem_read_s) | $(get "$p" seal_cold_s) | $(get "$p" seal_cold_mbs) |"
done

cpu_model="$(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -1)"
cpus="$(nproc --all)"
mem_gib="$(awk '/^MemTotal:/ { printf "%.1f", $2 / 1048576 }' /proc/meminfo)"
read -r disk_dev disk_fs < <(df -PT "$scratch" | awk 'NR == 2 { print $1, $2 }')
mount_opts="$(findmnt -no OPTIONS -T "$scratch" 2>/dev/null || echo '?')"
cmd="benchmarks/checkpoint-io/run.sh $*"
[ $# -eq 0 ] && cmd="benchmarks/checkpoint-io/run.sh"
env_note=""
[ -n "${REPEATS:-}" ] && env_note+="REPEATS=$REPEATS "
[ -n "${ATOMS:-}" ] && env_note+="ATOMS=\"$ATOMS\" "

{
  echo "# Checkpoint write/read speed vs the raw disk ($(date +%F))"
  echo
  echo "Issue 4, item 8: checkpoint write and cold-cache read speed for ${atoms_list// / and } atoms next to"
  echo "the raw speed of the same disk (dd), all from this one run. Each case is written and read back $repeats times"
  echo "(medians shown); MB = 10^6 bytes. A write is the whole \`write_checkpoint\` call (in-memory HDF5 image,"
  echo "checksums, write, fsync, rename, folder fsync); a read is the whole \`read_checkpoint\` call (whole-file"
  echo "checksum, HDF5 reads, per-dataset checksums, content checks) after dropping the file from the page cache."
  echo "The read-back arrays were checked bit for bit against those written."
  echo
  echo "## Setup"
  echo
  echo "- Machine: $cpu_model, $cpus logical CPUs, $mem_gib GiB memory; kernel $(uname -r)"
  echo "- Disk measured: \`$disk_dev\`, $disk_fs (mount options \`$mount_opts\`)"
  echo "- Commit: \`$commit\` when the run started, work tree $tree_state"
  echo "- Load average (1/5/15 min) before the run: $load_before (other work on the machine competes for the CPUs and the disk)"
  echo "- Page cache dropped before reads by: $(get "${result[$largest]}" cache_drop) (bench), $dd_drop (dd)"
  echo
  echo "Commands (\`\$SCRATCH\` is the fresh folder run.sh makes on the disk measured, \`<build>\` the build folder):"
  echo
  echo '```'
  echo "$env_note$cmd" | redact
  for n in $atoms_list; do echo "$bench --atoms $n --dir \$SCRATCH/ckpt --repeats $repeats" | redact; done
  echo "dd if=/dev/zero of=\$SCRATCH/dd.bin bs=1M count=$dd_count conv=fsync   # x$repeats, each followed by:"
  echo "dd if=\$SCRATCH/dd.bin iflag=nocache count=0; echo 1 > /proc/sys/vm/drop_caches; dd if=\$SCRATCH/dd.bin of=/dev/null bs=1M"
  echo '```'
  echo
  echo "## Results"
  echo
  echo "$table"
  echo
  echo "dd per round (MB/s): write ${dd_write[*]}; read ${dd_read[*]}."
  echo
  echo "### Where the time goes (medians)"
  echo
  echo "Measured inside the bench after each timed write/read, apart from it: the same \`write_checkpoint\` /"
  echo "\`read_checkpoint\` calls on a tmpfs (\`/dev/shm\`: no disk, so what remains is HDF5, checksums, copies and page"
  echo "faults); the file's bytes rewritten alone through the library's write+fsync+rename path; the whole-file XXH3 over"
  echo "the bytes in memory; a zero-filled allocation of one file-sized buffer (first-touch page faults: the image build"
  echo "fills two such buffers, HDF5's in-memory file and the copy taken of it); a cold-cache \`verify_checkpoint_seal\`"
  echo "(the read's first pass: the whole file read from disk and hashed). -1 means not measured (no tmpfs)."
  echo
  echo "$phase_table"
  echo
  echo "## Raw output"
  echo
  echo '```'
  redact < "$log"
  redact < "$dd_log"
  echo '```'
} > "$report"

echo
echo "$table"
echo
echo "$phase_table"
echo
echo "run.sh: report written to $report"
