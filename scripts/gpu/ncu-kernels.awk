# Nsight Compute's CSV (--csv --metrics gpu__time_duration.sum
# --print-kernel-base demangled) summed by kernel: one line per kind of
# kernel, "total_ms share% calls label", unsorted. The label is the first
# Tessera type in the kernel's name (the functor a Thrust or our own kernel
# runs), shortened, with "(float)" when the name has a float in it, or else
# the name's start (CUB's sorts and scans), with one example of each such
# name on stderr. Columns are found by their
# header, so versions of ncu that order them differently read the same.
BEGIN { FS = "\",\"" }
/^"ID"/ {
  for (i = 1; i <= NF; i++) {
    h = $i; gsub(/"/, "", h)
    if (h == "Kernel Name") kn = i
    if (h == "Metric Name") mn = i
    if (h == "Metric Value") mv = i
  }
  next
}
kn && /^"/ {
  m = $mn; gsub(/"/, "", m)
  if (m != "gpu__time_duration.sum") next
  name = $kn; t = $mv; gsub(/[",]/, "", t)
  if (match(name, /tessera::[A-Za-z_0-9:]*/)) {
    # The type with its template arguments: up to where its brackets close.
    rest = substr(name, RSTART); depth = 0; label = ""
    for (c = 1; c <= length(rest); c++) {
      ch = substr(rest, c, 1)
      if (ch == "<") depth++
      if (ch == ">") { if (depth == 0) break; depth-- }
      if (ch == "," && depth == 0) break
      label = label ch
    }
    gsub(/tessera::|device::|cuda_system::|host_system::|detail::/, "", label)
    label = substr(label, 1, 90)
  } else {
    label = name
    sub(/^void /, "", label)
    sub(/<.*/, "", label)
    # ncu's base names drop the outer namespace (tessera::), and Thrust's
    # kernels carry the functor they run as a template argument: name such a
    # kernel by its functor (ours: device::..., or a Thrust one such as
    # compute_sequence_value), so the for_each kernels are told apart.
    op = ""
    if (match(name, /device::[A-Za-z_0-9:]*/)) op = substr(name, RSTART, RLENGTH)
    else if (match(name, /functor<[^,]*, [A-Za-z_0-9:]*/)) { op = substr(name, RSTART, RLENGTH); sub(/^functor<[^,]*, /, "", op) }
    if (op != "") {
      gsub(/device::|detail::|cuda_system::|system::/, "", op)
      label = label " " op
    }
    # What such a name looks like, once per label, on stderr: the first GPU
    # call found Thrust's for_each kernels under this branch.
    if (!(label in seen)) { seen[label] = 1; print "example of " label ": " substr(name, 1, 600) > "/dev/stderr" }
  }
  if (name ~ /float/) label = label " (float)"
  calls[label]++; ns[label] += t; total += t
}
END {
  if (!total) { print "ncu-kernels: no gpu__time_duration.sum rows" > "/dev/stderr"; exit 1 }
  for (l in ns) printf "%12.3f ms %6.1f%% %6d calls  %s\n", ns[l] / 1e6, 100 * ns[l] / total, calls[l], l
}
