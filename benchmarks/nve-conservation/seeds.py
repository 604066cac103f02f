#!/usr/bin/python3
"""Compare NVE drift of LAMMPS and Tessera over many velocity seeds.

Reads, from the scratch directory of seeds.sh, LAMMPS's logs l<seed>.log and
Tessera's thermo files t<seed>.csv, and treats each engine's runs as a sample:
per run the slope of a straight-line fit of E(t) (total energy per atom), the
end-to-start change and the largest excursion |E(t) - E(0)|. Writes a markdown
report and exits 1 when either of two comparisons fails:
- the two engines' mean slopes differ by more than three combined standard
  errors: a systematic heating or cooling in one engine (a missed neighbour, a
  force/energy mismatch) that no single run could show;
- Tessera's largest excursions rank above LAMMPS's by more than three standard
  deviations of the rank-sum statistic: a noisier integration (a lost digit in
  a reduction, a force that disagrees with its energy at the cutoff) that
  widens every run's walk without moving its mean.
"""
import argparse
import datetime
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from analyze import machine_info, portable_path, read_lammps_log, read_tessera_csv  # noqa: E402

DT = 0.005  # the deck's timestep: slopes are per 100 tau
Z_LIMIT = 3.0
BAND = 2e-4  # issue 2's |E(t) - E(0)| band, reported per run
START_TEXT = {
    "own": "Each engine builds the lattice and draws the velocities of seed s its own way (LAMMPS's "
           "`loop geom`, uniform; Tessera's counter-based generator, Gaussian), so the two runs of a seed "
           "start apart; the comparison is between the two samples, not run by run.",
    "lammps": "LAMMPS writes the lattice and its velocities of seed s to a data file (`write_data`) and both "
              "engines start from it (`read_data`), so the two runs of a seed start from the same state; "
              "they part within a few tau (chaos), so the comparison is still between the two samples.",
}


def per_run(cols):
    tau = cols["step"] * DT
    e = cols["etotal"]
    return {
        "slope": float(np.polyfit(tau, e, 1)[0] * 100.0),
        "change": float(e[-1] - e[0]),
        "max_dev": float(np.max(np.abs(e - e[0]))),
        "last_step": int(cols["step"][-1]),
    }


def summary(runs):
    slopes = np.array([r["slope"] for r in runs])
    maxdev = np.array([r["max_dev"] for r in runs])
    n = len(runs)
    sem = float(slopes.std(ddof=1) / np.sqrt(n)) if n > 1 else float("nan")
    return {
        "n": n,
        "mean_slope": float(slopes.mean()),
        "sem_slope": sem,
        "sd_slope": float(slopes.std(ddof=1)) if n > 1 else float("nan"),
        "positive": int((slopes > 0).sum()),
        "mean_change": float(np.mean([r["change"] for r in runs])),
        "median_max": float(np.median(maxdev)),
        "min_max": float(maxdev.min()),
        "max_max": float(maxdev.max()),
        "within": int((maxdev <= BAND).sum()),
    }


def verdict(ok):
    return "PASS" if ok else "FAIL"


def rank_sum_z(a, b):
    """Mann-Whitney U of a against b as a normal z (ties get mean ranks)."""
    both = np.concatenate([a, b])
    order = both.argsort()
    ranks = np.empty(len(both))
    ranks[order] = np.arange(1, len(both) + 1)
    for v in np.unique(both):
        tie = both == v
        ranks[tie] = ranks[tie].mean()
    n1, n2 = len(a), len(b)
    u = ranks[:n1].sum() - n1 * (n1 + 1) / 2
    return (u - n1 * n2 / 2) / np.sqrt(n1 * n2 * (n1 + n2 + 1) / 12)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repo", required=True)
    ap.add_argument("--dir", required=True, help="seeds.sh's scratch directory")
    ap.add_argument("--seeds", required=True, help="the seeds, space-separated")
    ap.add_argument("--steps", type=int, required=True)
    ap.add_argument("--results-dir", required=True)
    ap.add_argument("--commit", default="?")
    ap.add_argument("--tree-state", default="?")
    ap.add_argument("--potential", default="lj/cut")
    ap.add_argument("--start", default="own", choices=["own", "lammps"])
    ap.add_argument("--tessera-binary", default="?")
    ap.add_argument("--cmd", default="")
    ap.add_argument("--date", default=datetime.date.today().isoformat())
    args = ap.parse_args()

    seeds = [int(s) for s in args.seeds.split()]
    runs = {"LAMMPS": [], "Tessera": []}
    version = {"LAMMPS": "?", "Tessera": "?"}
    for s in seeds:
        cols, _, version["LAMMPS"] = read_lammps_log(os.path.join(args.dir, f"l{s}.log"))
        runs["LAMMPS"].append(dict(per_run(cols), seed=s))
        runs["Tessera"].append(dict(per_run(read_tessera_csv(os.path.join(args.dir, f"t{s}.csv"))), seed=s))
        out = os.path.join(args.dir, f"t{s}.out")
        if os.path.exists(out):
            for line in open(out):
                if line.startswith("Tessera "):
                    version["Tessera"] = line.split(" ", 1)[1].strip()
                    break
    for engine, rs in runs.items():
        short = [r["seed"] for r in rs if r["last_step"] != args.steps]
        if short:
            raise SystemExit(f"seeds.py: {engine} runs of seeds {short} did not reach step {args.steps}")

    s = {e: summary(rs) for e, rs in runs.items()}
    se = np.hypot(s["Tessera"]["sem_slope"], s["LAMMPS"]["sem_slope"])
    z = (s["Tessera"]["mean_slope"] - s["LAMMPS"]["mean_slope"]) / se
    z_zero = s["Tessera"]["mean_slope"] / s["Tessera"]["sem_slope"]
    z_max = rank_sum_z(np.array([r["max_dev"] for r in runs["Tessera"]]),
                       np.array([r["max_dev"] for r in runs["LAMMPS"]]))
    slopes_pass = abs(z) <= Z_LIMIT
    # One-sided: Tessera's walks being narrower than LAMMPS's is no fault.
    max_pass = z_max <= Z_LIMIT
    passed = slopes_pass and max_pass
    tau = args.steps * DT

    tag = ("smooth-" if args.potential == "lj/smooth/linear" else "") + ("same-start-" if args.start == "lammps" else "")
    name = f"nve-seeds-{tag}{args.date}-{len(seeds)}x{int(tau)}tau.md"
    os.makedirs(args.results_dir, exist_ok=True)
    path = os.path.join(args.results_dir, name)
    L = []
    L.append(f"# NVE drift over {len(seeds)} velocity seeds: Tessera and LAMMPS ({args.date})\n")
    L.append(f"Issue 2's NVE deck (`benchmarks/nve-conservation/`: 4,000-atom melt, fcc 0.8442, T0 = 1.44, "
             f"`{args.potential}`{' energy-shifted' if args.potential == 'lj/cut' else ''}, rc = 2.5, skin 0.3 "
             f"checked every step, dt = {DT}), {args.steps} steps ({tau:g} tau) per run, once per velocity seed "
             f"in each engine. " + START_TEXT[args.start] + "\n")
    L.append(f"- Machine: {machine_info()}; one core per engine, the two side by side")
    L.append(f"- Tessera: {version['Tessera']} (`{portable_path(args.tessera_binary, args.repo)}`), "
             f"commit {args.commit} ({args.tree_state} tree)")
    L.append(f"- LAMMPS: {version['LAMMPS']}, plain styles")
    L.append(f"- Command: `{args.cmd}`")
    L.append(f"- Seeds: {' '.join(map(str, seeds))}\n")
    L.append("Slope: least-squares line through E(t), per 100 tau. Change: E(end) - E(0). "
             "Max: max |E(t) - E(0)| over the samples. Energies per atom.\n")
    table = ["| engine | runs | mean slope | s.e. | sd | slopes > 0 | mean change | median max | "
             f"max range | max <= {BAND:g} |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |"]
    for e in ("LAMMPS", "Tessera"):
        x = s[e]
        table.append(f"| {e} | {x['n']} | {x['mean_slope']:+.2e} | {x['sem_slope']:.1e} | {x['sd_slope']:.1e} | "
                     f"{x['positive']}/{x['n']} | {x['mean_change']:+.2e} | {x['median_max']:.2e} | "
                     f"{x['min_max']:.2e} to {x['max_max']:.2e} | {x['within']}/{x['n']} |")
    L += table
    L.append("")
    L.append(f"- Tessera's mean slope minus LAMMPS's: {s['Tessera']['mean_slope'] - s['LAMMPS']['mean_slope']:+.2e} "
             f"per 100 tau, z = {z:+.2f} (combined s.e. {se:.1e}). **{verdict(slopes_pass)}** "
             f"(|z| <= {Z_LIMIT:g}): with these runs a difference in mean drift larger than about "
             f"{Z_LIMIT * se:.1e} per 100 tau would have failed.")
    L.append(f"- Tessera's mean slope against zero: z = {z_zero:+.2f}.")
    L.append(f"- Largest excursions, Tessera against LAMMPS (rank-sum, normal approximation): z = {z_max:+.2f} "
             f"(positive: Tessera's are larger). **{verdict(max_pass)}** (z <= {Z_LIMIT:g}).")
    L.append(f"- Overall: **{verdict(passed)}**.\n")
    L.append("| seed | LAMMPS slope | LAMMPS change | LAMMPS max | Tessera slope | Tessera change | Tessera max |")
    L.append("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for a, b in zip(runs["LAMMPS"], runs["Tessera"]):
        L.append(f"| {a['seed']} | {a['slope']:+.2e} | {a['change']:+.2e} | {a['max_dev']:.2e} | "
                 f"{b['slope']:+.2e} | {b['change']:+.2e} | {b['max_dev']:.2e} |")
    with open(path, "w") as f:
        f.write("\n".join(L) + "\n")
    print("\n".join(table))
    print(f"seeds.py: mean slopes z = {z:+.2f}, largest excursions z = {z_max:+.2f}: {verdict(passed)}")
    print(f"seeds.py: report {portable_path(path, args.repo)}")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
