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
            "intel": ("intel", "`-sf intel`, mode double"), "intel_mixed": ("intel mixed", "`-sf intel`, mode mixed")}
# Those of them that compute pairs in single precision: peers of Tessera mixed
# and GROMACS mixed, never of the double engines (best LAMMPS, the double ratio).
LAMMPS_MIXED = ["intel_mixed"]


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


def lattice_step0(phys, natoms, eps=EPS, random_walk=False):
    """Exact PE per atom and pressure of the perfect fcc lattice at temperature T0,
    with each summation's round-off bound (relative) for one-by-one addition of
    terms with unit round-off eps; random_walk: the statistical bound (sqrt of the
    term count instead of the count), for single-precision sums."""
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
    terms = math.sqrt(terms) if random_walk else terms
    tol_pe = max(1e-12, terms * eps * math.fsum(map(abs, e)) / abs(math.fsum(e)))
    # the virial's error relative to the pressure, plus T's own round-off
    tol_p = max(1e-12, terms * eps * 0.5 * natoms * math.fsum(map(abs, w)) / (3 * volume * max(abs(press), 1.0)))
    return pe, press, tol_pe, tol_p


def lammps_step0(path, last=False):
    """Thermo columns of the first (or the last) thermo line, keyed by Tessera's
    CSV names."""
    names = {"Step": "step", "Temp": "temp", "PotEng": "pe", "KinEng": "ke", "TotEng": "etotal", "Press": "press",
             "Volume": "vol"}
    lines = open(path).read().splitlines()
    for i, line in enumerate(lines):
        head = line.split()
        if head[:1] == ["Step"]:
            rows = [lines[i + 1].split()]
            while last and i + len(rows) + 1 < len(lines) and not lines[i + len(rows) + 1].startswith("Loop time"):
                rows.append(lines[i + len(rows) + 1].split())
            return {names[h]: float(v) for h, v in zip(head, rows[-1])}
    sys.exit(f"race.py: no thermo table in {path}")


def tessera_step0(csv_path, last=False):
    with open(csv_path) as f:
        rows = list(csv.DictReader(f))
    row = rows[-1] if last else rows[0]
    return {k.split(" ")[0]: float(v) for k, v in row.items()}  # "pe (eV)" in metal units


def check_barostat(tessera_csv, lammps_log, natoms, density):
    """The npt case: the trajectories differ (the engines draw their velocities
    differently), so the last step's volumes agree only statistically; 0.5 %
    holds with room (0.07 % after the race's 1000 steps at 32k). A target
    pressure 10 % off misses it (1.3 %), half the barostat's damping time
    does not (0.3 %): it checks the barostat's target, not its mass. On a run long enough for the box to
    move (100 steps and more) each engine's must have moved by 1 % or more
    from the lattice's volume, so an engine whose barostat did nothing fails."""
    t, lm = tessera_step0(tessera_csv, last=True), lammps_step0(lammps_log, last=True)
    v0 = natoms / density
    rel = abs(t["vol"] - lm["vol"]) / lm["vol"]
    ok = rel <= 5e-3
    msgs = [f"last step {int(t['step'])} volume: Tessera {t['vol']:.10g} vs LAMMPS {lm['vol']:.10g} "
            f"(rel {rel:.1e}, tol 5.0e-03)" + ("" if ok else "  MISMATCH")]
    if t["step"] >= 100:
        for name, v in (("Tessera", t["vol"]), ("LAMMPS", lm["vol"])):
            moved = abs(v / v0 - 1)
            good = moved >= 1e-2
            ok &= good
            msgs.append(f"{name} volume moved {moved:.2%} from the lattice's {v0:.10g} (at least 1 %)"
                        + ("" if good else "  NO BAROSTAT?"))
    return ok, msgs


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
        if args.lammps_precision == "mixed":
            # these cases compare the engines with each other to 1e-10, which
            # single-precision pairs cannot meet (run.sh runs no mixed LAMMPS there)
            sys.exit(f"race.py: no check of a mixed-precision LAMMPS for style {phys['style']}")
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
    # Tessera's mixed precision and LAMMPS INTEL's mode mixed (both float pair
    # math, double sums): GROMACS mixed's statistical single-precision bound
    # for PE and pressure.
    ref = {"double": lattice_step0(phys, na),
           "mixed": lattice_step0(phys, na, GMX_EPS["mixed"], random_walk=True)}
    t0 = float(phys["temp"])
    # Both rescale velocities to exactly T0; what is left is the round-off of
    # summing N kinetic terms, twice (rescale, then thermo).
    tol_t = max(1e-12, 2 * na * EPS)
    rows = []
    for name, v, prec in (("Tessera", t, args.tessera_precision), ("LAMMPS", lm, args.lammps_precision)):
        p_, pr_, tp_, tpr_ = ref[prec]
        name += " mixed" if prec == "mixed" else ""
        rows += [(f"{name} temp vs target", v["temp"], t0, tol_t),
                 (f"{name} pe/atom vs lattice sum", v["pe"], p_, tp_),
                 (f"{name} press vs lattice sum", v["press"], pr_, tpr_)]
    for name, a, b, tol in rows:
        rel = abs(a - b) / max(abs(b), 1.0)
        good = rel <= tol
        ok &= good
        msgs.append(f"{name}: {a:.17g} vs {b:.17g} (rel {rel:.1e}, tol {tol:.1e})" + ("" if good else "  MISMATCH"))
    if phys.get("ensemble", "").startswith("npt"):
        good, more = check_barostat(args.tessera + ".csv", args.lammps, na, float(phys["density"]))
        ok &= good
        msgs += more
    print(("OK" if ok else "FAILED") + "\n  " + "\n  ".join(msgs))
    return 0 if ok else 1


# GROMACS (a peer on the LJ lattice cases) runs them in its own units with
# sigma = 1 nm, epsilon = 1 kJ/mol and mass = 1 u: energies per atom (kJ/mol),
# virial (kJ/mol) and lengths (nm) are then the reduced values, tau = 1 ps, and
# a pressure in kJ/mol/nm^3 is p*. Engine tags in timings.tsv: gmx_<precision>_<layout>.
GMX_EPS = {"double": EPS, "mixed": 2.0 ** -24}
GMX_LAYOUTS = {"tmpi": "thread-MPI ranks of 1 OpenMP thread", "omp": "1 rank of OpenMP threads"}
GMX_ENGINES = [f"gmx_{p}_{lay}" for p in GMX_EPS for lay in GMX_LAYOUTS]
# Tessera's other layouts (run.sh --tessera-also) as engine tags, then every
# Tessera engine as N ranks of 1 thread (run.sh --tessera-layouts ranks).
TESSERA_ALSO = ["tessera_clusters", "tessera_mixed"]
TESSERA_RANKS = [e + "_ranks" for e in ("tessera", *TESSERA_ALSO)]
TESSERA_DOUBLE = ["tessera", "tessera_ranks", "tessera_clusters", "tessera_clusters_ranks"]
TESSERA_MIXED = ["tessera_mixed", "tessera_mixed_ranks"]


def tessera_label(e):
    """tessera_mixed_ranks -> 'Tessera mixed ranks'."""
    return " ".join(["Tessera", *e.split("_")[1:]])


def gro(args):
    """run.sh's fcc lattice as a .gro file of one-atom molecules. GROMACS reads
    the coordinates with the precision that the spacing of their decimal points
    gives, here 1e-10 nm; the box, free-format, to full precision."""
    rho, n = float(args.density), int(args.cells)
    a = (4 / rho) ** (1 / 3)
    basis = ((0, 0, 0), (0.5, 0.5, 0), (0.5, 0, 0.5), (0, 0.5, 0.5))
    with open(args.out, "w") as f:
        f.write(f"fcc lattice, {n}^3 cells, density {rho}\n{4 * n ** 3}\n")
        k = 0
        for i in range(n):
            for j in range(n):
                for m in range(n):
                    for bx, by, bz in basis:
                        k += 1  # residue and atom numbers wrap at 100000, as GROMACS writes them
                        f.write("%5dLJ      LJ%5d%17.10f%17.10f%17.10f\n"
                                % (k % 100000, k % 100000, (i + bx) * a, (j + by) * a, (m + bz) * a))
        f.write(f"{n * a:.17g} {n * a:.17g} {n * a:.17g}\n")
    return 0


def top(args):
    """The topology of one-atom LJ molecules that run.sh's .gro files hold:
    one atom type, c6 and c12 as given, no exclusions."""
    with open(args.out, "w") as f:
        f.write(f"""[ defaults ]
; nbfunc  comb-rule  gen-pairs
  1       1          no
[ atomtypes ]
; name  mass  charge  ptype  c6  c12
  LJ    1.0   0.0     A      {args.c6}  {args.c12}
[ moleculetype ]
; name  nrexcl
  LJ    0
[ atoms ]
; nr  type  resnr  residue  atom  cgnr  charge  mass
  1   LJ    1      LJ       LJ    1     0.0     1.0
[ system ]
{args.title}
[ molecules ]
LJ  {args.atoms}
""")
    return 0


def gromacs_step0(xvg):
    """The first row of gmx energy's .xvg, keyed by its legends."""
    names, row = [], None
    for line in open(xvg):
        m = re.match(r'@ s\d+ legend "(.*)"', line)
        if m:
            names.append(m.group(1))
        elif line.strip() and line[0] not in "#@":
            row = [float(x) for x in line.split()[1:]]
            break
    if row is None or len(row) != len(names):
        sys.exit(f"race.py: no energies in {xvg}")
    return dict(zip(names, row))


def gromacs_log(log):
    """What md.log says about the run: atoms, the mdp values it used, the step
    at which the counters were reset (mdrun -resetstep), the call counts of the
    pair search and the force computation since then, and the wall time."""
    text = open(log).read()
    grab = lambda pat, conv=str: (lambda m: conv(m.group(1)) if m else None)(re.search(pat, text, re.M))
    param = lambda name: grab(rf"^\s+{re.escape(name)}\s+=\s+(\S+)")
    return {"atoms": grab(r"^There are:\s+(\d+) Atoms", int),
            "nsteps": int(param("nsteps")), "nstlist": int(param("nstlist")), "dt": float(param("dt")),
            "rlist": float(param("rlist")), "rvdw": float(param("rvdw")),
            "vdw-modifier": param("vdw-modifier"), "DispCorr": param("DispCorr"),
            "reset": grab(r"^step (\d+): resetting all time and cycle counters", int) or 0,
            "searches": grab(r"^ Neighbor search\s+\d+\s+\d+\s+(\d+)", int),
            "forces": grab(r"^ Force\s+\d+\s+\d+\s+(\d+)", int),
            "wall": grab(r"^\s+Time:\s+\S+\s+(\S+)", float),
            "ns_day": grab(r"^Performance:\s+(\S+)", float)}


def gromacs_check(args):
    """The same physics as the other engines, from a GROMACS run's md.log and the
    step-0 energies: the mdp values it ran with, the atom count, the list
    rebuilt every `every` steps over the timed steps, and the step-0 PE per atom
    and virial pressure against the exact lattice sums. Its step-0 kinetic
    energy is the leap-frog average of the half steps around step 0, not the
    generated T0, so temperature and total pressure are shown, not compared."""
    g, e = gromacs_log(args.log), gromacs_step0(args.xvg)
    phys = dict(kv.split("=", 1) for kv in open(args.physics).read().split())
    every, cut, skin = int(phys["every"]), float(phys["cutoff"]), float(phys["skin"])
    na = g["atoms"]
    ok = na == int(args.atoms)
    msgs = [f"atoms {na} vs {args.atoms}" + ("" if ok else "  MISMATCH")]
    timed = g["nsteps"] + 1 - g["reset"]
    want = {"dt": (g["dt"], float(phys["dt"])), "rvdw (cutoff)": (g["rvdw"], cut),
            "rlist (cutoff + skin)": (g["rlist"], cut + skin), "nstlist": (g["nstlist"], every),
            "vdw-modifier": (g["vdw-modifier"], "None"), "DispCorr": (g["DispCorr"], "No"),
            "untimed steps (mdrun -resetstep: one list period)": (g["reset"], every),
            "force calls timed": (g["forces"], timed),
            "pair searches timed (one per list period)": (g["searches"], timed // every)}
    for name, (a, b) in want.items():
        good = a == b if isinstance(b, (str, int)) else abs(a - b) <= 1e-9 * abs(b)
        ok &= good
        msgs.append(f"{name}: {a} vs {b}" + ("" if good else "  MISMATCH"))
    if not ok:
        print("FAILED\n  " + "\n  ".join(msgs))
        return 1
    single = args.precision == "mixed"
    pe, press, tol_pe, tol_p = lattice_step0(phys, na, GMX_EPS[args.precision], random_walk=single)
    volume = na / float(phys["density"])
    pvir = press - (3 * na - 3) * float(phys["temp"]) / (3 * volume)
    rows = [("pe/atom vs lattice sum", e["Potential"] / na, pe, tol_pe),
            ("virial pressure vs lattice sum", -2 * (e["Vir-XX"] + e["Vir-YY"] + e["Vir-ZZ"]) / (3 * volume), pvir,
             tol_p * max(abs(press), 1.0) / max(abs(pvir), 1.0))]
    for name, a, b, tol in rows:
        rel = abs(a - b) / max(abs(b), 1.0)
        good = rel <= tol
        ok &= good
        msgs.append(f"GROMACS {args.precision} {name}: {a:.17g} vs {b:.17g} (rel {rel:.1e}, tol {tol:.1e}"
                    + (", statistical single-precision bound)" if single else ")") + ("" if good else "  MISMATCH"))
    msgs.append(f"(not compared) step-0 temperature {e['Temperature']:.6g} K, pressure {e['Pressure']:.6g} bar")
    print(("OK" if ok else "FAILED") + "\n  " + "\n  ".join(msgs))
    return 0 if ok else 1


def gromacs_loop(args):
    """Loop time, steps and atoms of a GROMACS run, as loop_of in run.sh gives them
    for the other engines: md.log's wall time and steps count from the reset
    (mdrun -resetstep) to the end, so setup and the first list period are left out."""
    g = gromacs_log(args.log)
    steps = g["nsteps"] + 1 - g["reset"]
    if not g["wall"] or g["forces"] != steps:
        sys.exit(f"race.py: no timing of {steps} steps in {args.log}")
    # md.log's own rate must agree (to its printed rounding) with steps over wall time
    ns_day = steps * g["dt"] * 1e-3 * 86400 / g["wall"]
    if abs(ns_day - g["ns_day"]) > 0.01 * ns_day + 2e-3 * ns_day / g["wall"] + 1e-3:
        sys.exit(f"race.py: {args.log}: {steps} steps in {g['wall']} s is {ns_day:.3f} ns/day, md.log says {g['ns_day']}")
    print(g["wall"], steps, g["atoms"])
    return 0


QUIET_HOST = 1.10  # a run's host reading at most this times the race's lowest: quiet


def report(args):
    runs = {}  # (case, engine) -> [atom-steps/s]
    host = {}  # (case, engine) -> [the host probe's ns per load around each run, or None]
    atoms = {}
    steps = {}
    with open(args.timings) as f:
        for r in csv.DictReader(f, delimiter="\t"):
            n, s = int(r["atoms"]), int(r["steps"])
            runs.setdefault((r["case"], r["engine"]), []).append(n * s / float(r["loop_s"]))
            h = r.get("host_ns") or "-"
            host.setdefault((r["case"], r["engine"]), []).append(None if h == "-" else float(h))
            atoms[r["case"]], steps[r["case"]] = n, s
    cases = list(atoms)
    label = {e: tessera_label(e) for e in ("tessera", *TESSERA_ALSO, *TESSERA_RANKS)} | {
             **{e: f"LAMMPS {VARIANTS[e][0]}" for e in VARIANTS},
             **{e: "GROMACS " + " ".join(e.split("_")[1:]) for e in GMX_ENGINES}}
    med = {k: statistics.median(v) for k, v in runs.items()}
    spread = {k: f"{min(v):.3e} .. {max(v):.3e}" for k, v in runs.items()}
    # The runs' spread about their median, in per cent, and the same over the
    # runs the host probe (run.sh, host_probe.c) read quiet: no reading above
    # QUIET_HOST times the race's lowest, so a shared host's slow minutes
    # (every engine slows in them) are told apart from an engine's own spread.
    pct = lambda v, m: f"{100 * (min(v) / m - 1):+.1f} / {100 * (max(v) / m - 1):+.1f} %"
    readings = [h for v in host.values() for h in v]
    probed = bool(readings) and all(h is not None for h in readings)
    floor = min(readings) if probed else None
    quiet = {k: [x for x, h in zip(v, host[k]) if h <= QUIET_HOST * floor] for k, v in runs.items()} if probed else {}
    # The LAMMPS variants this race timed, in VARIANTS' order: the double ones,
    # and apart from them those in mixed precision.
    lammps = [e for e in VARIANTS if e not in LAMMPS_MIXED and any(k[1] == e for k in runs)]
    lmixed = [e for e in LAMMPS_MIXED if any(k[1] == e for k in runs)]
    # Per case, of the variants that ran there (a variant that failed in a
    # case has no runs in it: run.sh lists it under failures).
    best = {c: max(ran, key=lambda e: med[(c, e)]) for c in cases
            for ran in [[e for e in lammps if (c, e) in runs]] if ran}
    failures = []  # (case, engine, error)
    if args.failures and os.path.exists(args.failures):
        with open(args.failures) as f:
            failures = [(r["case"], r["engine"], r["error"]) for r in csv.DictReader(f, delimiter="\t")]
    # GROMACS, where it ran (the LJ lattice cases): per precision, its fastest layout
    gmx = [e for e in GMX_ENGINES if any(k[1] == e for k in runs)]
    gbest = {p: {c: max(timed, key=lambda e: med[(c, e)]) for c in cases
                 for timed in [[e for e in gmx if e.startswith(f"gmx_{p}_") and (c, e) in runs]] if timed}
             for p in GMX_EPS}
    # The fastest double-precision peer: best LAMMPS (all its variants here run
    # in double) or best GROMACS double.
    peer = {c: max(([best[c]] if c in best else []) + ([gbest["double"][c]] if c in gbest["double"] else []),
                   key=lambda e: med[(c, e)])
            for c in cases if c in best or c in gbest["double"]}
    # Tessera's other engines (run.sh --tessera-also, --tessera-layouts), where
    # they ran; its best double is the fastest of rows and clusters in either
    # layout, its best mixed the faster layout of mixed rows, as GROMACS's.
    also = [e for e in ("tessera_ranks", "tessera_clusters", "tessera_clusters_ranks", *TESSERA_MIXED)
            if any(k[1] == e for k in runs)]
    tbest = {c: max([e for e in TESSERA_DOUBLE if (c, e) in runs], key=lambda e: med[(c, e)])
             for c in cases}
    mbest = {c: max(ran, key=lambda e: med[(c, e)]) for c in cases
             for ran in [[e for e in TESSERA_MIXED if (c, e) in runs]] if ran}
    mixed_raced = any(e in also for e in TESSERA_MIXED)
    # The fastest mixed-precision peer: GROMACS mixed (its faster layout) or a
    # LAMMPS variant in mixed precision, of those that ran in the case.
    mpeer = {c: max(ran, key=lambda e: med[(c, e)]) for c in cases
             for ran in [([gbest["mixed"][c]] if c in gbest["mixed"] else [])
                         + [e for e in lmixed if (c, e) in runs]] if ran}
    # the mixed ratio's column: beside GROMACS mixed as before; with a mixed
    # LAMMPS it takes the fastest mixed peer, named in a column of its own
    mratio = mixed_raced and bool(gmx or lmixed)
    which = lambda e: "" if e == "tessera" else f" ({' '.join(e.split('_')[1:])})"
    cell = lambda c, e: f"{med[(c, e)]:.3e}" if (c, e) in runs else "—"
    layout = lambda e: e.split("_")[-1]
    phys = {c: dict(kv.split("=", 1) for kv in open(f"{args.scratch}/{c}/physics").read().split()) for c in cases}
    style = lambda c: phys[c]["style"]
    variant = lambda c, e: f"{style(c)}{'' if e == 'lj_cut' else '/' + e}"
    peers = "LAMMPS and GROMACS" if gmx else "LAMMPS"

    out = [f"# Speed race: Tessera vs {peers}, {args.cores} core(s) ({datetime.date.today()})", ""]
    out += ["Atom-steps/s (atoms x steps / loop time; the MD loop only, setup excluded), median of "
            f"{len(next(iter(runs.values())))} repetition(s). Best LAMMPS is the fastest median of the "
            f"double-precision variants timed ({', '.join(VARIANTS[e][1] for e in lammps) or 'none'}); "
            + ("ratio = Tessera / best LAMMPS (> 1: Tessera faster)." if not gmx else
               "best GROMACS double and GROMACS mixed the fastest median of its layouts (tmpi: "
               f"`-ntmpi {args.cores} -ntomp 1`; omp: `-ntmpi 1 -ntomp {args.cores}`); ratio = Tessera / the "
               "fastest double-precision peer, best LAMMPS or best GROMACS double (> 1: Tessera faster). "
               "GROMACS mixed precision stands beside the ratio, not in it"
               + (": Tessera's CPU mixed precision (`precision: mixed` on its default rows) "
                  "is not raced here (run.sh --tessera-also mixed races it). " if not mixed_raced else
                  ", with its own ratio, Tessera mixed (`precision: mixed` on its default rows) / "
                  + ("the fastest mixed peer. " if lmixed else "GROMACS mixed. "))
               + "GROMACS runs the LJ lattice cases only (—: not run): it has no "
               "Morse or EAM pair potential, no list rebuilt on a distance check, which the chain "
               "case uses, and its MTK barostat (MTTK) runs only under its md-vv integrator, with its "
               "own conventions, so not the npt case's `fix npt`."), ""]
    if lmixed:
        out[-2] += (f" {' and '.join(label[e] for e in lmixed)} ("
                    + ", ".join(VARIANTS[e][1] for e in lmixed) + ": single-precision pairs; the LJ lattice "
                    "cases only: INTEL has no Morse style, and the chain and EAM checks ask agreement to 1e-10) is a "
                    "mixed-precision peer: never best LAMMPS nor in the double ratio"
                    + ("; the mixed ratio is best Tessera mixed / the fastest mixed peer"
                       + (", GROMACS mixed (best layout) or LAMMPS intel mixed" if gmx else "")
                       + ", named in the column after it." if mratio else
                       " (Tessera mixed is not raced here: run.sh --tessera-also mixed races it)."))
    if also:
        out[-2] += (" Tessera is its default rows as 1 process of threads; Tessera clusters "
                    "(`neighbor.layout: clusters`) and Tessera mixed run the lattice cases too, \"ranks\" is "
                    "an engine run as MPI ranks of 1 thread each"
                    + (f" (its deck adds `{args.tessera_ranks_keys}`)" if args.tessera_ranks_keys else "")
                    + ", and the ratios take Tessera's fastest "
                    "double (or mixed) engine, named in brackets when it is not the default.")
    # the mixed columns after the double ones: a mixed LAMMPS's median, then the mixed ratio
    mhead = "".join(f" {label[e]} |" for e in lmixed) + (
        (" mixed ratio (best Tessera mixed / fastest mixed peer) | mixed peer |" if lmixed else
         " mixed ratio (best Tessera mixed / GROMACS mixed) |") if mratio else "")
    mrule = " ---: |" * len(lmixed) + ((" ---: | --- |" if lmixed else " ---: |") if mratio else "")
    if not gmx:
        out += ["| case | style | atoms | steps | Tessera |" + "".join(f" {label[e]} |" for e in also)
                + " best LAMMPS | variant | ratio |" + mhead,
                "| --- | --- | ---: | ---: | ---: |" + " ---: |" * len(also) + " ---: | --- | ---: |" + mrule]
    else:
        out += ["| case | style | atoms | steps | Tessera |" + "".join(f" {label[e]} |" for e in also)
                + " best LAMMPS | variant | best GROMACS double | layout "
                "| ratio (Tessera / best double peer) | GROMACS mixed | layout |" + mhead,
                "| --- | --- | ---: | ---: | ---: |" + " ---: |" * len(also)
                + " ---: | --- | ---: | --- | ---: | ---: | --- |" + mrule]
    for c in cases:
        b = best.get(c)
        # no double LAMMPS here: all failed, or only a mixed one was timed
        no_best = ("— (every variant failed)" if any(fc == c and fe not in LAMMPS_MIXED for fc, fe, _ in failures)
                else "— (no double variant timed)")
        row = f"| {c} | {style(c)} | {atoms[c]:,} | {steps[c]} | {cell(c, 'tessera')} |" + \
              "".join(f" {med[(c, e)]:.3e} |" if (c, e) in runs else " — |" for e in also) + " " + \
              (f"{med[(c, b)]:.3e} | {variant(c, b)} |" if b else f"{no_best} | — |")
        gcell = lambda g: f" {med[(c, g)]:.3e} | {layout(g)} |" if g else " — | — |"
        row += gcell(gbest["double"].get(c)) if gmx else ""
        tb = tbest[c]
        row += (f" {med[(c, tb)] / med[(c, peer[c])]:.2f}{which(tb)} |"
                if c in peer else " — |")
        row += gcell(gbest["mixed"].get(c)) if gmx else ""
        row += "".join(f" {cell(c, e)} |" for e in lmixed)
        if mratio:
            g, mb = mpeer.get(c), mbest.get(c)
            row += f" {med[(c, mb)] / med[(c, g)]:.2f}{' (ranks)' if mb.endswith('_ranks') else ''} |" \
                if g and mb else " — |"
            row += (f" {label[g]} |" if g and mb else " — |") if lmixed else ""
        out.append(row)
    if failures:
        out += ["", "LAMMPS variants that failed, left out of that case from the failing repetition on:", "",
                "| case | variant | error |", "| --- | --- | --- |"]
        out += [f"| {c} | {VARIANTS.get(e, (e,))[0]} | {err.replace('|', '/')} |" for c, e, err in failures]
    out += ["", "All runs (median, min .. max, atom-steps/s; spread: min and max against the median"
            + ("; quiet: the runs the host probe read quiet, their spread against their own median):"
               if probed else "; no host probe readings):"), "",
            "| case | engine | median | min .. max | spread |" + (" quiet runs | spread of quiet runs |" if probed else ""),
            "| --- | --- | ---: | --- | ---: |" + (" ---: | ---: |" if probed else "")]
    for c in cases:
        for e in ("tessera", *also, *lammps, *lmixed, *gmx):
            if (c, e) in runs:
                row = f"| {c} | {label[e]} | {med[(c, e)]:.3e} | {spread[(c, e)]} | {pct(runs[(c, e)], med[(c, e)])} |"
                if probed:
                    q = quiet[(c, e)]
                    row += f" {len(q)} of {len(runs[(c, e)])} |"
                    row += f" {pct(q, statistics.median(q))} |" if q else " — |"
                out.append(row)

    lscpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    model = re.search(r"Model name:\s*(.*)", lscpu)
    out += ["", "## Setup", "",
            f"- Machine: {model.group(1) if model else '?'}, {os.cpu_count()} logical CPUs; "
            f"load average before -> after: {args.load} (the timings are only comparable on an idle machine)",
            (f"- Host probe (benchmarks/race/host_probe.c): a pointer chase through 512 KB on each core used, "
             f"before and after every timed run, the slowest reading kept: {floor:.2f} to {max(readings):.2f} ns "
             f"per load over this race; a run is quiet when its reading is at most {QUIET_HOST} x the lowest "
             f"({sum(h <= QUIET_HOST * floor for h in readings)} of {len(readings)} runs). On a shared VM a busy "
             "tenant on the same physical core takes L2 from it, the reading rises and every engine slows; "
             "medians and ratios above take every run." if probed else
             "- Host probe: none (run.sh found no C compiler or no taskset)"),
            f"- Cores used: {args.cores} (Tessera: {args.tessera_layout}; "
            f"LAMMPS: {args.cores} MPI ranks, 1 thread each"
            + (f"; GROMACS: each layout, {GMX_LAYOUTS['tmpi']} (tmpi) and {GMX_LAYOUTS['omp']} (omp), "
               "threads pinned)" if gmx else ")"),
            f"- Tessera commit: `{args.commit}`; `tessera --version`: {args.tessera_version}",
            f"- Tessera build: {args.build_flags}",
            f"- LAMMPS: {args.lammps_version}",
            *([f"- GROMACS: {args.gromacs_version}"] if gmx else []),
            "- Physics, the same for every engine (run.sh writes all inputs from one template per case): "
            "fcc lattice, velocities at T0 (drawn differently by each engine), NVE (the npt case: "
            "LAMMPS's `fix npt` and Tessera's `npt` integrator, iso, with the values its line lists), neighbour list "
            "rebuilt every 20 steps without checks (`neigh_modify delay 0 every 20 check no`), "
            "thermo at the first and last step only. Per case (coeffs: LJ epsilon, sigma; Morse D0, alpha, r0):",
            *[f"  - {c}: " + ", ".join(f"{k} {v}" for k, v in phys[c].items()) for c in cases],
            "- Same physics, checked before timing (a 20-step run of each engine) and again on every timed "
            "run: atom count, neighbour-list builds, and the step-0 temperature (vs T0), PE per atom and "
            "pressure (vs the exact lattice sums) of both engines, to round-off (the npt case also: the last "
            "step's volumes within 0.5 %, and each moved at least 1 % from the lattice's in a timed run)"
            + (f" ({' and '.join((['Tessera mixed'] if mixed_raced else []) + [label[e] for e in lmixed])}: "
               "to the statistical single-precision bound)." if mixed_raced or lmixed else ".")]
    if gmx:
        out += ["- GROMACS units: sigma = 1 nm, epsilon = 1 kJ/mol, mass = 1 u, so tau = 1 ps, dt = 0.005 ps, "
                "T0 = 1.44 / k_B = 173.19 K (GROMACS's k_B, 0.0083144626181532 kJ/mol/K); one atom type "
                "with c6 = 4, c12 = 4 and one-atom molecules; `cutoff-scheme Verlet`, `nstlist 20`, "
                "`verlet-buffer-tolerance -1`, rlist 2.8 nm, rvdw 2.5 nm, `vdw-modifier None` (plain cut, "
                "no shift), `DispCorr no`, no charges (GROMACS then runs its LJ-only kernels), "
                "`comm-mode None`. Checked on every GROMACS run: those values as md.log lists them, the "
                "atom count, one pair search per 20 timed steps, and the step-0 PE per atom and the virial "
                "part of the pressure against the same lattice sums (double: the round-off bound above; "
                "mixed: its statistical single-precision bound). Its step-0 kinetic energy is the "
                "leap-frog average around step 0, so temperature is not compared. Timed: md.log's wall "
                f"time from `mdrun -resetstep 20` to the end, the same number of steps and list builds as "
                "the other engines, after one untimed list period."]
    def tessera_cmd(e):
        """The engine's command, and what its deck adds to tessera.yaml."""
        ranks = e.endswith("_ranks")
        base = e.removesuffix("_ranks")
        deck = e if ranks and args.tessera_ranks_keys else base
        cmd = (args.tessera_ranks_cmd if ranks else args.tessera_cmd).replace("tessera.yaml", deck + ".yaml")
        adds = ([] if base == "tessera" else
                ["`precision: mixed`" if base.startswith("tessera_mixed") else "`layout: clusters` in `neighbor`"])
        adds += [f"`{args.tessera_ranks_keys}`"] if deck != base else []
        return cmd + (f"   # {deck}.yaml: tessera.yaml with {' and '.join(adds)}" if adds else "")
    out += ["", "Commands:", "", "```", args.command,
            *[f"cd $CASE && {tessera_cmd(e)}" for e in ("tessera", *also) if any(k[1] == e for k in runs)],
            f"cd $CASE && {args.lammps_cmd}",
            *([f"cd $CASE && {args.gromacs_cmd}"] if gmx else []), "```", "",
            "Logs and inputs: a temporary folder, not kept (run.sh names it when it starts).", ""]

    png = os.path.splitext(args.out)[0] + ".png"
    series = [("Tessera double (best layout)", dict(color="C0", lw=2.2, marker="o"), tbest, True)]
    series += [(label[e], kw, {c: e for c in cases if (c, e) in runs}, False)
               for e, kw in (("tessera", dict(color="C0", lw=1.0, ls="-.", marker=".", alpha=0.6)),
                             ("tessera_ranks", dict(color="C0", lw=1.0, ls=(0, (1, 2)), marker=".", alpha=0.6)),
                             ("tessera_clusters", dict(color="C0", lw=1.2, ls=":", marker="o", alpha=0.7)))
               if any(k[1] == e for k in runs)]
    if mbest:
        series += [("Tessera mixed (best layout)", dict(color="C0", lw=1.2, ls="--", marker="X", alpha=0.7),
                    mbest, False)]
    series += [
              (f"LAMMPS (best of {'/'.join(VARIANTS[e][0] for e in lammps)})",
               dict(color="C3", lw=2.2, marker="s"), best, True)]
    dashes = [":", "--", "-.", (0, (1, 3))]
    series += [(f"LAMMPS {VARIANTS[e][0]}", dict(color="C3", lw=1, ls=dashes[k % len(dashes)], alpha=0.45,
                                                  marker="."), {c: e for c in cases if (c, e) in runs}, False)
               for k, e in enumerate(lammps)]
    series += [(label[e], dict(color="C3", lw=1.2, ls="--", marker="X", alpha=0.6),
                {c: e for c in cases if (c, e) in runs}, False) for e in lmixed]
    series += [(f"GROMACS {p} (best layout)", kw, gbest[p], False)
               for p, kw in (("double", dict(color="C2", lw=2.2, marker="P")),
                             ("mixed", dict(color="C2", lw=1.2, ls="--", marker="X", alpha=0.6)))
               if gbest[p]]
    plot(cases, atoms, med, runs, series, png,
         f"Tessera vs {peers}, {args.cores} core(s)\nLJ (lines), Morse (stars), chain (diamonds), "
         "EAM (triangles); bars: min..max")
    out += [f"![atom-steps/s against system size]({os.path.basename(png)})", ""]
    text = "\n".join(out)
    # no machine paths in the results: the peers' cache and the checkout by name
    if args.peers_cache:
        text = text.replace(args.peers_cache.rstrip("/") + "/", "<cpu-peers cache>/")
    if args.repo:
        text = text.replace(args.repo.rstrip("/") + "/", "")
    with open(args.out, "w") as f:
        f.write(text)
    print(text[:text.index("## Setup")])
    print(f"race.py: wrote {args.out} and {png}; logs and inputs in {args.scratch}")
    return 0


def plot(cases, atoms, med, runs, series, png, title):
    """series: (name, line style, {case: engine tag}, whether the non-LJ cases get a marker)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    lj = sorted((c for c in cases if c not in ("morse", "chain", "eam")), key=lambda c: atoms[c])
    for name, kw, pick, markers in series:
        xs = [c for c in lj if c in pick]
        if xs:
            y = [med[(c, pick[c])] for c in xs]
            err = [[y[i] - min(runs[(c, pick[c])]) for i, c in enumerate(xs)],
                   [max(runs[(c, pick[c])]) - y[i] for i, c in enumerate(xs)]]
            ax.errorbar([atoms[c] for c in xs], y, yerr=err, label=name, capsize=3, **kw)
        for other, marker in (("morse", "*"), ("chain", "D"), ("eam", "^")):
            if other in pick and markers:
                ax.plot(atoms[other], med[(other, pick[other])], marker=marker, ms=11, ls="none",
                        color=kw["color"], label=f"{name.split(' (')[0]}, {other}")
    ax.set_xscale("log")
    ax.set_ylim(bottom=0)
    ax.set_xlabel("atoms")
    ax.set_ylabel("atom-steps/s (median)")
    ax.set_title(title, fontsize=10)
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
    c.add_argument("--tessera-precision", default="double", choices=["double", "mixed"],
                   help="mixed: Tessera's PE and pressure against the single-precision bound")
    c.add_argument("--lammps-precision", default="double", choices=["double", "mixed"],
                   help="mixed: LAMMPS's PE and pressure against the single-precision bound (INTEL, mode mixed)")
    g = sub.add_parser("gro", help="write run.sh's fcc lattice as a GROMACS .gro file")
    for a in ("density", "cells", "out"):
        g.add_argument("--" + a, required=True)
    g = sub.add_parser("top", help="write the topology of one-atom LJ molecules for a .gro of gro")
    for a in ("c6", "c12", "atoms", "title", "out"):
        g.add_argument("--" + a, required=True)
    g = sub.add_parser("gromacs-check", help="check a GROMACS run's settings and step 0 against the lattice sums")
    g.add_argument("--log", required=True, help="md.log of the run")
    g.add_argument("--xvg", required=True, help="gmx energy -dp output with Potential, Vir-XX/YY/ZZ, Temperature, Pressure")
    g.add_argument("--physics", required=True, help="run.sh's key=value file")
    g.add_argument("--precision", required=True, choices=list(GMX_EPS))
    g.add_argument("--atoms", required=True, help="the atom count of the case")
    g = sub.add_parser("gromacs-loop", help="print 'wall-seconds steps atoms' of a GROMACS run's timed steps")
    g.add_argument("--log", required=True, help="md.log of the run")
    r = sub.add_parser("report", help="medians, markdown table and PNG from run.sh's timings.tsv")
    r.add_argument("--tessera-ranks-cmd", default="(not given)")
    r.add_argument("--tessera-ranks-keys", default="",
                   help="deck keys the ranks layout adds (its decks are then <engine>_ranks.yaml)")
    for a in ("timings", "out", "command", "commit", "cores", "tessera-version", "lammps-version",
              "tessera-cmd", "tessera-layout", "lammps-cmd", "load", "scratch"):
        r.add_argument("--" + a, required=True)
    r.add_argument("--build-flags", default="?")
    r.add_argument("--failures", default="", help="run.sh's failures.tsv: case, engine, error of each failed variant")
    r.add_argument("--gromacs-version", default="?")
    r.add_argument("--gromacs-cmd", default="?")
    r.add_argument("--peers-cache", default="", help="written as <cpu-peers cache> in the results")
    r.add_argument("--repo", default="", help="the checkout; paths below it are written relative to it")
    args = p.parse_args()
    return {"check": check, "gro": gro, "top": top, "gromacs-check": gromacs_check, "gromacs-loop": gromacs_loop,
            "report": report}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
