# Shared by the end-to-end scripts (sourced): one ok/FAIL line per check,
# and `fail` set to 1 by any failure, for the script's exit code.
fail=0
check() {  # check NAME COMMAND...
  local name=$1; shift
  if "$@"; then echo "ok   $name"; else echo "FAIL $name"; fail=1; fi
}
