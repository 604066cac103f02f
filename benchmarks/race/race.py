#!/usr/bin/env python3
"""Helper of run.sh: the step-0 physics check, and the report (markdown + PNG)."""
import argparse
import csv
import datetime
import math
import os
import re
import statistics
import subprocess
import sys

# Step 0 depends only on the lattice (PE, virial) and the rescaled temperature,
# so each engine is compared with the exact lattice sum, although their
# velocities differ. Engines add the pair terms one by one (LAMMPS into one
# accumulator per rank), so their round-off may grow up to n * eps * sum|x| / |sum x|
# for n terms: that bound, not a fixed figure, is the tolerance at large N
# (1e-10 at 32k LJ atoms, ~1e-7 at 16M); a wrong density, potential or
# parameter moves PE by 1e-6 or more.
EPS = 2.0 ** -53

# The engine tags run.sh writes for LAMMPS (its --lammps-variants), with a
# short name and the switches they stand for.
VARIANTS = {"lj_cut": ("plain", "the plain style"), "opt": ("opt", "`-sf opt`"), "omp": ("omp", "`-sf omp`"),
            "intel": ("intel", "`-sf intel`, mode double")}


def pair_terms(style, c):
    """E(r) and the virial term r * F(r) of one pair, for run.sh's coefficients."""
    if style == "lj/cut":
        eps, sig = c
        return (lambda r: 4 * eps * ((sig / r) ** 12 - (sig / r) ** 6),
                lambda r: 24 * eps * (2 * (sig / r) ** 12 - (sig / r) ** 6))
    d0, alpha, r0 = c
    ex = lambda r: math.exp(-alpha * (r - r0))
    return (lambda r: d0 * (ex(r) ** 2 - 2 * ex(r)),
            lambda r: 2 * alpha * d0 * r * (ex(r) ** 2 - ex(r)))


def lattice_step0(phys, natoms):
    """Exact PE per atom and pressure of the perfect fcc lattice at temperature T0,
    with each summation's round-off bound (relative) for one-by-one addition."""
    rho, rc, t0 = float(phys["density"]), float(phys["cutoff"]), float(phys["temp"])
    energy, virial = pair_terms(phys["style"], [float(x) for x in phys["coeffs"].split(",")])
    a = (4 / rho) ** (1 / 3)
    n = int(2 * rc / a) + 1
    # fcc sites are the integer points (i, j, k) * a/2 with i + j + k even
    rs = [math.sqrt(i * i + j * j + k * k) * a / 2
          for i in range(-n, n + 1) for j in range(-n, n + 1) for k in range(-n, n + 1)
          if (i + j + k) % 2 == 0 and (i, j, k) != (0, 0, 0)]
    rs = [r for r in rs if r < rc]
    e = [energy(r) for r in rs]
    w = [virial(r) for r in rs]
    pe = 0.5 * math.fsum(e)
    wsum = 0.5 * natoms * math.fsum(w)
    volume = natoms / rho
    press = ((3 * natoms - 3) * t0 + wsum) / (3 * volume)
    terms = natoms * len(rs)  # full-list count: an upper bound for half lists too
    tol_pe = max(1e-12, terms * EPS * math.fsum(map(abs, e)) / abs(math.fsum(e)))
    # the virial's error relative to the pressure, plus T's own round-off
    tol_p = max(1e-12, terms * EPS * 0.5 * natoms * math.fsum(map(abs, w)) / (3 * volume * max(abs(press), 1.0)))
    return pe, press, tol_pe, tol_p


def lammps_step0(path):
    """Thermo columns of the first thermo line, keyed by Tessera's CSV names."""
    names = {"Step": "step", "Temp": "temp", "PotEng": "pe", "KinEng": "ke", "TotEng": "etotal", "Press": "press"}
    lines = open(path).read().splitlines()
    for i, line in enumerate(lines):
        head = line.split()
        if head[:1] == ["Step"]:
            return {names[h]: float(v) for h, v in zip(head, lines[i + 1].split())}
    sys.exit(f"race.py: no thermo table in {path}")


def tessera_step0(csv_path):
    with open(csv_path) as f:
        row = next(csv.DictReader(f))
    return {k.split(" ")[0]: float(v) for k, v in row.items()}  # "pe (eV)" in metal units


def from_log(log, pattern):
    m = re.search(pattern, open(log).read(), re.M)
    return int(m.group(1)) if m else None


def check_same_start(t, lm, na, nb):
    """A case whose step 0 both engines must give alike to round-off: the chain
    (both read the same atoms and velocities from a data file) and EAM (the
    same lattice and tables; velocities differ but are rescaled to the same
    temperature, so the kinetic terms agree too)."""
    ok = na is not None and na == nb
    msgs = [f"atoms {na} vs {nb}" + ("" if ok else "  MISMATCH")]
    for col in ("temp", "pe", "ke", "press"):
        rel = abs(t[col] - lm[col]) / max(abs(lm[col]), 1.0)
        good = rel <= 1e-10
        ok &= good
        msgs.append(f"step 0 {col}: Tessera {t[col]:.17g} vs LAMMPS {lm[col]:.17g} (rel {rel:.1e}, tol 1e-10)"
                    + ("" if good else "  MISMATCH"))
    print(("OK" if ok else "FAILED") + "\n  " + "\n  ".join(msgs))
    return 0 if ok else 1


def check(args):
    t = tessera_step0(args.tessera + ".csv")
    lm = lammps_step0(args.lammps)
    phys = dict(kv.split("=", 1) for kv in open(args.physics).read().split())
    atoms = r"^Loop time of .* with (\d+) atoms"
    if phys.get("style") in ("chain", "eam"):
        return check_same_start(t, lm, from_log(args.tessera + ".log", atoms), from_log(args.lammps, atoms))
    atoms = r"^Loop time of .* with (\d+) atoms"
    na, nb = from_log(args.tessera + ".log", atoms), from_log(args.lammps, atoms)
    # The rebuild schedule (every 20, check no) is invisible at step 0 but shows
    # in the build counts; Tessera also counts the setup build, LAMMPS does not.
    builds = r"^Neighbor list builds\s*[:=]\s*(\d+)"
    ba, bb = from_log(args.tessera + ".log", builds), from_log(args.lammps, builds)
    ok = na is not None and na == nb
    msgs = [f"atoms {na} vs {nb}" + ("" if ok else "  MISMATCH")]
    good = ba is not None and bb is not None and ba == bb + 1
    ok &= good
    msgs.append(f"neighbour list builds {ba} (with setup) vs {bb}" + ("" if good else "  MISMATCH"))
    if na is None:
        print("FAILED\n  " + "\n  ".join(msgs))
        return 1
    pe, press, tol_pe, tol_p = lattice_step0(phys, na)
    t0 = float(phys["temp"])
    # Both rescale velocities to exactly T0; what is left is the round-off of
    # summing N kinetic terms, twice (rescale, then thermo).
    tol_t = max(1e-12, 2 * na * EPS)
    rows = []
    for name, v in (("Tessera", t), ("LAMMPS", lm)):
        rows += [(f"{name} temp vs target", v["temp"], t0, tol_t),
                 (f"{name} pe/atom vs lattice sum", v["pe"], pe, tol_pe),
                 (f"{name} press vs lattice sum", v["press"], press, tol_p)]
    for name, a, b, tol in rows:
        rel = abs(a - b) / max(abs(b), 1.0)
        good = rel <= tol
        ok &= good
        msgs.append(f"{name}: {a:.17g} vs {b:.17g} (rel {rel:.1e}, tol {tol:.1e})" + ("" if good else "  MISMATCH"))
    print(("OK" if ok else "FAILED") + "\n  " + "\n  ".join(msgs))
    return 0 if ok else 1


def report(args):
    runs = {}  # (case, engine) -> [atom-steps/s]
    atoms = {}
    steps = {}
    with open(args.timings) as f:
        for r in csv.DictReader(f, delimiter="\t"):
            n, s = int(r["atoms"]), int(r["steps"])
            runs.setdefault((r["case"], r["engine"]), []).append(n * s / float(r["loop_s"]))
            atoms[r["case"]], steps[r["case"]] = n, s
    cases = list(atoms)
    label = {"tessera": "Tessera", **{e: f"LAMMPS {VARIANTS[e][0]}" for e in VARIANTS}}
    med = {k: statistics.median(v) for k, v in runs.items()}
    spread = {k: f"{min(v):.3e} .. {max(v):.3e}" for k, v in runs.items()}
    # The LAMMPS variants this race timed, in VARIANTS' order.
    lammps = [e for e in VARIANTS if any(k[1] == e for k in runs)]
    best = {c: max(lammps, key=lambda e: med[(c, e)]) for c in cases}
    phys = {c: dict(kv.split("=", 1) for kv in open(f"{args.scratch}/{c}/physics").read().split()) for c in cases}
    style = lambda c: phys[c]["style"]

    out = [f"# Speed race: Tessera vs LAMMPS, {args.cores} core(s) ({datetime.date.today()})", ""]
    out += ["Atom-steps/s (atoms x steps / loop time; the MD loop only, setup excluded), median of "
            f"{len(next(iter(runs.values())))} repetition(s). Best LAMMPS is the fastest median of the "
            f"variants timed ({', '.join(VARIANTS[e][1] for e in lammps)}); "
            "ratio = Tessera / best LAMMPS (> 1: Tessera faster).", ""]
    out += ["| case | style | atoms | steps | Tessera | best LAMMPS | variant | ratio |",
            "| --- | --- | ---: | ---: | ---: | ---: | --- | ---: |"]
    for c in cases:
        b = best[c]
        out.append(f"| {c} | {style(c)} | {atoms[c]:,} | {steps[c]} | {med[(c, 'tessera')]:.3e} | "
                   f"{med[(c, b)]:.3e} | {style(c)}{'' if b == 'lj_cut' else '/' + b} | "
                   f"{med[(c, 'tessera')] / med[(c, b)]:.2f} |")
    out += ["", "All runs (median, min .. max, atom-steps/s):", "",
            "| case | engine | median | min .. max |", "| --- | --- | ---: | --- |"]
    for c in cases:
        for e in ("tessera", *lammps):
            out.append(f"| {c} | {label[e]} | {med[(c, e)]:.3e} | {spread[(c, e)]} |")

    lscpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    model = re.search(r"Model name:\s*(.*)", lscpu)
    out += ["", "## Setup", "",
            f"- Machine: {model.group(1) if model else '?'}, {os.cpu_count()} logical CPUs; "
            f"load average before -> after: {args.load} (the timings are only comparable on an idle machine)",
            f"- Cores used: {args.cores} (Tessera: {args.tessera_layout}; "
            f"LAMMPS: {args.cores} MPI ranks, 1 thread each)",
            f"- Tessera commit: `{args.commit}`; `tessera --version`: {args.tessera_version}",
            f"- Tessera build: {args.build_flags}",
            f"- LAMMPS: {args.lammps_version}",
            "- Physics, the same for both engines (run.sh writes both inputs from one template per case): "
            "fcc lattice, velocities at T0 (drawn differently by the two engines), NVE, neighbour list "
            "rebuilt every 20 steps without checks (`neigh_modify delay 0 every 20 check no`), "
            "thermo at the first and last step only. Per case (coeffs: LJ epsilon, sigma; Morse D0, alpha, r0):",
            *[f"  - {c}: " + ", ".join(f"{k} {v}" for k, v in phys[c].items()) for c in cases],
            "- Same physics, checked before timing (a 20-step run of each engine) and again on every timed "
            "run: atom count, neighbour-list builds, and the step-0 temperature (vs T0), PE per atom and "
            "pressure (vs the exact lattice sums) of both engines, to round-off.",
            "", "Commands:", "", "```", args.command,
            f"cd $CASE && {args.tessera_cmd}", f"cd $CASE && {args.lammps_cmd}", "```", "",
            f"Logs and inputs: `{args.scratch}` (temporary).", ""]

    png = os.path.splitext(args.out)[0] + ".png"
    plot(cases, atoms, med, runs, best, png, args.cores, lammps)
    out += [f"![atom-steps/s against system size]({os.path.basename(png)})", ""]
    with open(args.out, "w") as f:
        f.write("\n".join(out))
    print("\n".join(out[:out.index("## Setup")]))
    print(f"race.py: wrote {args.out} and {png}")
    return 0


def plot(cases, atoms, med, runs, best, png, cores, lammps):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    lj = sorted((c for c in cases if c not in ("morse", "chain", "eam")), key=lambda c: atoms[c])
    styles = [("tessera", "Tessera", dict(color="C0", lw=2.2, marker="o")),
              ("best", f"LAMMPS (best of {'/'.join(VARIANTS[e][0] for e in lammps)})",
               dict(color="C3", lw=2.2, marker="s"))]
    dashes = [":", "--", "-.", (0, (1, 3))]
    styles += [(e, f"LAMMPS {VARIANTS[e][0]}", dict(color="C3", lw=1, ls=dashes[k % len(dashes)], alpha=0.45,
                                                     marker=".")) for k, e in enumerate(lammps)]
    for key, name, kw in styles:
        pick = lambda c: best[c] if key == "best" else key
        if lj:
            x = [atoms[c] for c in lj]
            y = [med[(c, pick(c))] for c in lj]
            err = [[y[i] - min(runs[(c, pick(c))]) for i, c in enumerate(lj)],
                   [max(runs[(c, pick(c))]) - y[i] for i, c in enumerate(lj)]]
            ax.errorbar(x, y, yerr=err, label=name, capsize=3, **kw)
        for other, marker in (("morse", "*"), ("chain", "D"), ("eam", "^")):
            if other in cases and key in ("tessera", "best"):
                ax.plot(atoms[other], med[(other, pick(other))], marker=marker, ms=11, ls="none",
                        color=kw["color"], label=f"{name.split(' (')[0]}, {other}")
    ax.set_xscale("log")
    ax.set_ylim(bottom=0)
    ax.set_xlabel("atoms")
    ax.set_ylabel("atom-steps/s (median)")
    ax.set_title(f"Tessera vs LAMMPS, {cores} core(s): LJ (lines), Morse (stars), chain (diamonds), EAM (triangles); bars: min..max", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(png, dpi=120)


def main():
    p = argparse.ArgumentParser(description=__doc__)
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("check", help="compare step 0 of a Tessera run (TAG.csv, TAG.log) and a LAMMPS log")
    c.add_argument("--tessera", required=True, help="path prefix TAG of TAG.csv and TAG.log")
    c.add_argument("--lammps", required=True, help="LAMMPS log file")
    c.add_argument("--physics", required=True, help="run.sh's key=value file: style density temp cutoff coeffs")
    r = sub.add_parser("report", help="medians, markdown table and PNG from run.sh's timings.tsv")
    for a in ("timings", "out", "command", "commit", "cores", "tessera-version", "lammps-version",
              "tessera-cmd", "tessera-layout", "lammps-cmd", "load", "scratch"):
        r.add_argument("--" + a, required=True)
    r.add_argument("--build-flags", default="?")
    args = p.parse_args()
    return check(args) if args.cmd == "check" else report(args)


if __name__ == "__main__":
    sys.exit(main())
