#!/usr/bin/env python3
"""Constant-pressure statistics (issue 28, item 4): the same LJ liquid at
T = 1.0, P = 1.0 in Tessera's npt, in LAMMPS's fix npt, and in Tessera's
stochastic cell rescaling barostat (C-rescale, beside a Nose-Hoover chain),
one run after the other on one core each, then

  - the mean pressure of each run against the target, with the standard
    error of block averages (20 blocks of the production part);
  - the isothermal compressibility from the volume fluctuations,
    kappa_T = (<V^2> - <V>^2) / (k_B T <V>), with a jackknife error over the
    same blocks, Tessera's against LAMMPS's;
  - the drift of the conserved quantity (etotal + ecouple per atom) per tau,
    a straight line through the block means, Tessera's against LAMMPS's.

Verdicts (exit 1 when one fails): Tessera's mean pressure within two
standard errors of the target, with either barostat; its npt compressibility
within two combined errors of LAMMPS's, and C-rescale's within two combined
errors of npt's; its npt |drift| no larger than LAMMPS's plus three combined
standard errors of the two slopes (C-rescale's drift is reported: its
conserved quantity is another one). The report (markdown) goes to
RESULTS_DIR.

Usage: run.py TESSERA_BINARY
Environment: STEPS (production steps, default 200000; a smoke run with fewer
writes its report into the scratch folder), EQUIL (steps discarded first,
default 20000), LMP (default /usr/bin/lmp), RESULTS_DIR (default
<repo>/benchmarks/results), CELLS (fcc cells per side, default 8: 2,048
atoms), REUSE (a scratch folder of an earlier run with the same settings:
its tessera.csv, lammps.log and crescale.csv are read instead of run again,
and the report says so).
"""
import datetime
import os
import platform
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

T, P = 1.0, 1.0
DT, TDAMP, PDAMP = 0.005, 0.5, 1.0
BLOCKS = 20


def tessera_deck(cells, steps, every):
    return f"""units: lj
system:
  lattice: {{style: fcc, density: 0.8442, cells: [{cells}, {cells}, {cells}]}}
velocity: {{temperature: 1.44, seed: 4242}}
potential:
  style: lj/cut
  cutoff: 2.5
  shift: true
  coeffs:
    - {{types: [1, 1], epsilon: 1.0, sigma: 1.0}}
neighbor: {{skin: 0.3}}
integrator: {{style: npt, dt: {DT}, temperature: {T}, damping: {TDAMP}, pressure: {P}, pressure_damping: {PDAMP}}}
run: {{steps: {steps}}}
output:
  thermo: {{every: {every}, file: tessera.csv, screen: false, columns: [step, temp, press, vol, etotal, econserve]}}
"""


def crescale_deck(cells, steps, every):
    deck = tessera_deck(cells, steps, every).replace("tessera.csv", "crescale.csv")
    return deck.replace(
        f"integrator: {{style: npt, dt: {DT}, temperature: {T}, damping: {TDAMP}, pressure: {P}, pressure_damping: {PDAMP}}}",
        f"integrator: {{style: nose-hoover, dt: {DT}, temperature: {T}, damping: {TDAMP}, "
        f"barostat: {{style: c-rescale, pressure: {P}, damping: {PDAMP}, compressibility: 0.1, seed: 11}}}}")


def lammps_input(cells, steps, every):
    return f"""units lj
atom_style atomic
lattice fcc 0.8442
region box block 0 {cells} 0 {cells} 0 {cells}
create_box 1 box
create_atoms 1 box
mass 1 1.0
velocity all create 1.44 4242 loop geom
pair_style lj/cut 2.5
pair_modify shift yes
pair_coeff 1 1 1.0 1.0 2.5
neighbor 0.3 bin
neigh_modify every 1 delay 0 check yes
fix 1 all npt temp {T} {T} {TDAMP} iso {P} {P} {PDAMP}
timestep {DT}
thermo_style custom step temp press vol etotal ecouple atoms
thermo_modify norm yes format float %.17g
thermo {every}
run {steps}
"""


def read_lammps(log):
    rows, table = [], False
    for line in open(log):
        w = line.split()
        if w[:1] == ["Step"]:
            table = True
        elif table and line.startswith("Loop time"):
            break
        elif table and w and w[0].isdigit():
            rows.append([float(x) for x in w])
    a = np.array(rows)
    n = a[0, 6]
    # This LAMMPS (29 Sep 2021) prints ecouple as a total even with norm
    # yes; per atom it is the barostat's and chains' share of econserve.
    return {"step": a[:, 0], "temp": a[:, 1], "press": a[:, 2], "vol": a[:, 3],
            "econserve": a[:, 4] + a[:, 5] / n}


def read_tessera(csv):
    t = np.genfromtxt(csv, delimiter=",", names=True)
    return {k: t[k] for k in ("step", "temp", "press", "vol", "econserve")}


def blocks(x, nb=BLOCKS):
    n = len(x) // nb * nb
    return x[:n].reshape(nb, -1)


def mean_se(x):
    b = blocks(x).mean(axis=1)
    return x.mean(), b.std(ddof=1) / np.sqrt(len(b))


def compressibility(v):
    """kappa_T from the volume fluctuations, and its delete-one-block jackknife error."""
    b = blocks(v)
    k = lambda s: s.var() / (T * s.mean())
    full = k(b.ravel())
    jack = np.array([k(np.delete(b, i, axis=0).ravel()) for i in range(len(b))])
    nb = len(b)
    return full, np.sqrt((nb - 1) / nb * ((jack - jack.mean()) ** 2).sum())


def drift(step, e):
    """Slope of the block means of e per tau, and its standard error."""
    t = blocks(step * DT).mean(axis=1)
    y = blocks(e).mean(axis=1)
    A = np.column_stack([t, np.ones_like(t)])
    coef, res, _, _ = np.linalg.lstsq(A, y, rcond=None)
    r = y - A @ coef
    s2 = (r ** 2).sum() / (len(t) - 2)
    return coef[0], np.sqrt(s2 / ((t - t.mean()) ** 2).sum())


def run(cmd, cwd, log):
    t0 = time.time()
    with open(os.path.join(cwd, log), "w") as f:
        subprocess.run(cmd, cwd=cwd, stdout=f, stderr=subprocess.STDOUT, check=True,
                       env=dict(os.environ, OMP_NUM_THREADS="1"))
    return time.time() - t0


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    tessera = os.path.abspath(argv[1])
    lmp = os.environ.get("LMP", "/usr/bin/lmp")
    full = 200000
    steps = int(os.environ.get("STEPS", full))
    equil = int(os.environ.get("EQUIL", 20000 if steps == full else steps // 10))
    cells = int(os.environ.get("CELLS", 8))
    every = 20
    total = equil + steps
    work = tempfile.mkdtemp(prefix="npt-statistics-")
    results = os.environ.get("RESULTS_DIR", os.path.join(REPO, "benchmarks", "results") if steps == full else work)
    os.makedirs(results, exist_ok=True)
    with open(os.path.join(work, "tessera.yaml"), "w") as f:
        f.write(tessera_deck(cells, total, every))
    with open(os.path.join(work, "in.npt"), "w") as f:
        f.write(lammps_input(cells, total, every))
    with open(os.path.join(work, "crescale.yaml"), "w") as f:
        f.write(crescale_deck(cells, total, every))
    reuse = os.environ.get("REUSE", "")
    secs = {}

    def outcome(name, output, cmd, log):
        if reuse and os.path.exists(os.path.join(reuse, output)):
            secs[name] = float("nan")
            return os.path.join(reuse, output)
        secs[name] = run(cmd, work, log)
        return os.path.join(work, output)

    engines = {
        "Tessera npt": read_tessera(outcome("Tessera npt", "tessera.csv",
                                            [tessera, "run", "tessera.yaml", "--threads", "1"], "tessera.out")),
        "LAMMPS fix npt": read_lammps(outcome("LAMMPS fix npt", "lammps.log",
                                              [lmp, "-nocite", "-in", "in.npt", "-log", "lammps.log", "-screen",
                                               "none"], "lmp.out")),
        "Tessera C-rescale": read_tessera(outcome("Tessera C-rescale", "crescale.csv",
                                                  [tessera, "run", "crescale.yaml", "--threads", "1"],
                                                  "crescale.out")),
    }
    rows, stats = [], {}
    natoms = 4 * cells ** 3
    for name, d in engines.items():
        keep = d["step"] > equil
        p, p_se = mean_se(d["press"][keep])
        v, v_se = mean_se(d["vol"][keep])
        t, t_se = mean_se(d["temp"][keep])
        kappa, kappa_se = compressibility(d["vol"][keep])
        slope, slope_se = drift(d["step"][keep], d["econserve"][keep])
        stats[name] = dict(p=p, p_se=p_se, kappa=kappa, kappa_se=kappa_se, slope=slope, slope_se=slope_se)
        wall = "reused" if np.isnan(secs[name]) else f"{secs[name]:.0f}"
        rows.append(f"| {name} | {t:.4f} ± {t_se:.4f} | {p:.4f} ± {p_se:.4f} | {natoms / v:.5f} | "
                    f"{kappa:.4f} ± {kappa_se:.4f} | {slope:+.2e} ± {slope_se:.1e} | {wall} |")
    o, l, c = stats["Tessera npt"], stats["LAMMPS fix npt"], stats["Tessera C-rescale"]
    verdicts = [
        ("Tessera npt's mean pressure within 2 standard errors of the target",
         abs(o["p"] - P) < 2 * o["p_se"]),
        ("Tessera C-rescale's mean pressure within 2 standard errors of the target",
         abs(c["p"] - P) < 2 * c["p_se"]),
        ("LAMMPS's mean pressure within 2 standard errors of the target (the method's own check)",
         abs(l["p"] - P) < 2 * l["p_se"]),
        ("compressibility: Tessera npt's within 2 combined errors of LAMMPS's",
         abs(o["kappa"] - l["kappa"]) < 2 * np.hypot(o["kappa_se"], l["kappa_se"])),
        ("compressibility: C-rescale's within 2 combined errors of Tessera npt's",
         abs(c["kappa"] - o["kappa"]) < 2 * np.hypot(c["kappa_se"], o["kappa_se"])),
        ("econserve drift: Tessera npt's |slope| no larger than LAMMPS's + 3 combined errors",
         abs(o["slope"]) <= abs(l["slope"]) + 3 * np.hypot(o["slope_se"], l["slope_se"])),
    ]
    commit = subprocess.run(["git", "-C", REPO, "rev-parse", "--short=12", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
               platform.processor())
    report = [
        f"# NPT statistics: Tessera npt against LAMMPS fix npt ({datetime.date.today()})",
        "",
        f"Machine: {cpu}, {os.cpu_count()} cores; one core per engine, run one after the other. "
        f"Commit {commit}. Command: `python3 benchmarks/npt-statistics/run.py {argv[1]}` "
        f"(STEPS={steps}, EQUIL={equil}, CELLS={cells}).",
        "",
        f"System: {natoms} LJ atoms (fcc 0.8442 melted from T = 1.44), lj/cut 2.5 shifted, skin 0.3, "
        f"T = {T}, P = {P}, dt = {DT}, Tdamp = {TDAMP}, Pdamp = {PDAMP}, iso, chains 3/3, MTK on; "
        f"{equil} steps discarded, then {steps} steps, thermo every {every} steps, {BLOCKS} blocks. "
        f"C-rescale: the same with a Nose-Hoover chain (Tdamp {TDAMP}) and `barostat: {{style: c-rescale, "
        f"damping: {PDAMP}, compressibility: 0.1}}`."
        + (f" Runs marked reused were read from {reuse}, an earlier run of this script with the same settings."
           if reuse else ""),
        "",
        "| engine | T | P | density | κ_T (σ³/ε) | d(econserve)/dt per atom (ε/τ) | wall s |",
        "|---|---|---|---|---|---|---|",
        *rows,
        "",
        *[f"- {'PASS' if ok else 'FAIL'}: {text}" for text, ok in verdicts],
        "",
    ]
    name = f"npt-statistics-{datetime.date.today()}.md"
    with open(os.path.join(results, name), "w") as f:
        f.write("\n".join(report))
    print("\n".join(report))
    print(f"report: {os.path.join(results, name)}; scratch: {work}")
    return 0 if all(ok for _, ok in verdicts) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
