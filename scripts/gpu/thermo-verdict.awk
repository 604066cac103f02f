# The GPU check's verdict on one run (docs/gpu.md): is the run's thermo CSV
# (the second file) the reference's (the first, the CPU backend's run of the
# same deck) to a relative tolerance, line for line? POSIX awk (checked
# with mawk, Debian's and Ubuntu's awk): the device machine has nothing
# installed but the driver, and its image need not have Python.
#
#   awk -v tol=1e-10 [-v cols=temp,pe,ke,etotal,press] -f thermo-verdict.awk REF.csv RUN.csv
#
# Prints one line, PASS or FAIL, with the largest relative difference
# |a - b| / max(|a|, |b|) found, its column and step; exits 0 on PASS, 1 on
# FAIL. A run that stopped early (fewer lines than the reference), a step
# the reference lacks, a missing column or a value that is not a finite
# number (nan, inf) fails: none of them may pass for agreement.
BEGIN {
  FS = ","
  if (cols == "") cols = "temp,pe,ke,etotal,press"
  ncols = split(cols, want, ",")
  if (tol == "") { why = "no tolerance given (-v tol=...)"; bad = 1; exit 1 }
  worst = 0; at = "none"; lines = 0
  number = "^[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$"
}
FNR == 1 {
  file++
  for (i = 1; i <= NF; i++) column[file, $i] = i
  for (c = 1; c <= ncols; c++)
    if (!((file, want[c]) in column)) { why = "no column " want[c] " in " FILENAME; bad = 1; exit 1 }
  if (!((file, "step") in column)) { why = "no column step in " FILENAME; bad = 1; exit 1 }
  next
}
file == 1 {
  step = $(column[1, "step"])
  steps++
  for (c = 1; c <= ncols; c++) ref[step, want[c]] = $(column[1, want[c]])
  has[step] = 1
  next
}
{
  step = $(column[2, "step"])
  if (!(step in has)) { why = "step " step " is not in the reference"; bad = 1; exit 1 }
  lines++
  for (c = 1; c <= ncols; c++) {
    a = ref[step, want[c]]; b = $(column[2, want[c]])
    if (a !~ number || b !~ number) { why = "not a number at step " step ", " want[c] ": " a " against " b; bad = 1; exit 1 }
    a += 0; b += 0
    m = (a < 0 ? -a : a); mb = (b < 0 ? -b : b); if (mb > m) m = mb
    d = a - b; if (d < 0) d = -d
    if (m > 0) d /= m
    if (d > worst) { worst = d; at = want[c] " at step " step }
  }
}
END {
  if (!bad && lines < steps) { why = "the run has " lines " thermo lines, the reference " steps; bad = 1 }
  if (!bad && lines == 0) { why = "no thermo lines"; bad = 1 }
  if (bad) { printf "FAIL %s (tolerance %s on %s)\n", why, tol, cols; exit 1 }
  verdict = (worst <= tol + 0) ? "PASS" : "FAIL"
  printf "%s max relative difference %.3g (%s) over %d thermo lines; tolerance %s on %s\n", verdict, worst, at, lines, tol, cols
  exit (verdict == "PASS") ? 0 : 1
}
