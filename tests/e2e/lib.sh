# Shared by the end-to-end scripts (sourced): one ok/FAIL line per check,
# and `fail` set to 1 by any failure, for the script's exit code.
fail=0
check() {  # check NAME COMMAND...
  local name=$1; shift
  if "$@"; then echo "ok   $name"; else echo "FAIL $name"; fail=1; fi
}
# run_ranks N DECK [ARGS...]: `$bin run` with one thread per rank, on N MPI
# ranks (as root and oversubscribed, as the scripts export), plainly for 1.
run_ranks() {
  local n=$1; shift
  if [ "$n" -eq 1 ]; then "$bin" run "$@" --threads 1; else mpirun -np "$n" --oversubscribe "$bin" run "$@" --threads 1; fi
}
