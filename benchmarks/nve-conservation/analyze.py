#!/usr/bin/python3
"""Compare NVE energy conservation of LAMMPS and Tessera on the same deck.

Reads LAMMPS's log (thermo_style custom step temp pe ke etotal press, norm yes)
and Tessera's thermo CSV (step,temp,pe,ke,etotal,press; per-atom energies),
prints drift figures for both, writes a markdown report and a PNG plot, and
exits 1 when Tessera's total energy per atom leaves E(0) +- TOLERANCE at any
sampled step (issue 2's criterion).

Normally called by run.sh; it can also be run by hand on kept scratch files.
"""
import argparse
import datetime
import os
import re
import subprocess
import sys

import numpy as np

TOLERANCE = 2e-4  # |E(t) - E(0)| per atom, for every sampled t (issue 2)



def portable_path(path, repo):
    """A path as it may be committed: relative to the repository, never this machine's layout."""
    path = os.path.abspath(path)
    repo = os.path.abspath(repo)
    if path.startswith(repo + os.sep):
        return os.path.relpath(path, repo)
    return "<outside the repository>/" + os.path.basename(path)


def portable_path_text(text, repo):
    return " ".join(portable_path(w, repo) if w.startswith("/") and not w.startswith("/usr/") else w
                    for w in text.split(" "))


def read_lammps_log(path):
    """Return (columns dict, loop info dict, version string) from a LAMMPS log."""
    with open(path) as f:
        lines = f.readlines()
    version = lines[0].strip() if lines else "?"
    header = None
    rows = []
    loop = {}
    for line in lines:
        words = line.split()
        if header is None:
            if words[:2] == ["Step", "Temp"]:
                header = words
            continue
        if line.startswith("Loop time"):
            m = re.match(r"Loop time of (\S+) on (\d+) procs for (\d+) steps with (\d+) atoms", line)
            if m:
                loop = {"loop_s": float(m.group(1)), "procs": int(m.group(2)),
                        "steps": int(m.group(3)), "natoms": int(m.group(4))}
            break
        if len(words) == len(header):
            try:
                rows.append([float(w) for w in words])
            except ValueError:
                pass  # a warning line between thermo rows
    if header is None or not rows:
        raise SystemExit(f"analyze.py: no thermo table found in {path}")
    data = np.array(rows)
    names = {"Step": "step", "Temp": "temp", "PotEng": "pe", "KinEng": "ke",
             "TotEng": "etotal", "Press": "press"}
    cols = {names.get(h, h): data[:, i] for i, h in enumerate(header)}
    if loop:
        loop["atom_steps_per_s"] = loop["natoms"] * loop["steps"] / loop["loop_s"]
    for line in lines:
        m = re.match(r"(Neighbor list builds|Dangerous builds) = (\d+)", line)
        if m:
            loop["builds" if m.group(1).startswith("Neighbor") else "dangerous"] = int(m.group(2))
    return cols, loop, version


def read_tessera_csv(path):
    data = np.genfromtxt(path, delimiter=",", names=True)
    if data.size == 0:
        raise SystemExit(f"analyze.py: empty thermo file {path}")
    data = np.atleast_1d(data)
    return {name: np.asarray(data[name], dtype=float) for name in data.dtype.names}


def read_tessera_summary(path):
    out = {}
    with open(path) as f:
        text = f.read()
    m = re.search(r"^Loop time of (\S+) s for (\d+) steps with (\d+) atoms", text, re.M)
    if m:
        out.update(loop_s=float(m.group(1)), steps=int(m.group(2)), natoms=int(m.group(3)))
    m = re.search(r"^Performance: (\S+) atom-steps/s", text, re.M)
    if m:
        out["atom_steps_per_s"] = float(m.group(1))
    m = re.search(r"^Neighbor list builds: (\d+)", text, re.M)
    if m:
        out["builds"] = int(m.group(1))
    m = re.search(r"^Tessera (.*)$", text, re.M)
    out["version"] = m.group(1).strip() if m else "?"
    return out, text


def figures(cols):
    step = cols["step"]
    e = cols["etotal"]
    de = e - e[0]
    slope = np.polyfit(step, e, 1)[0] * 1e5 if len(step) > 1 else float("nan")
    return {
        "samples": len(e),
        "first_step": int(step[0]),
        "last_step": int(step[-1]),
        "e_start": e[0],
        "e_end": e[-1],
        "drift": abs(e[-1] - e[0]),
        "max_dev": float(np.max(np.abs(de))),
        "max_dev_step": int(step[int(np.argmax(np.abs(de)))]),
        "std": float(np.std(e)),
        "slope_per_1e5": slope,
        "t_start": cols["temp"][0],
        "t_end": cols["temp"][-1],
    }


def run_text(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, check=False).stdout
    except OSError:
        return ""


def machine_info():
    model, cpus, cores, sockets = "?", "?", None, None
    for line in run_text(["lscpu"]).splitlines():
        key, _, value = line.partition(":")
        value = value.strip()
        if key == "Model name":
            model = value
        elif key == "CPU(s)":
            cpus = value
        elif key == "Core(s) per socket":
            cores = value
        elif key == "Socket(s)":
            sockets = value
    desc = f"{model}, {cpus} logical CPUs"
    if cores and sockets:
        desc += f" ({sockets} socket(s) x {cores} core(s))"
    return desc


def repo_info(repo):
    commit = run_text(["git", "-C", repo, "rev-parse", "--short", "HEAD"]).strip() or "?"
    dirty = run_text(["git", "-C", repo, "status", "--porcelain", "--untracked-files=no"]).strip()
    return commit, ("dirty (uncommitted changes to tracked files)" if dirty else "clean")


def fmt_e(x):
    return f"{x:.10f}"


def fmt_s(x):
    return f"{x:.3e}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repo", required=True)
    ap.add_argument("--commit", help="Tessera commit when the run started (default: HEAD now)")
    ap.add_argument("--tree-state", help="'clean' or 'dirty' (or a note) when the run started")
    ap.add_argument("--results-dir", required=True)
    ap.add_argument("--lammps-log", required=True)
    ap.add_argument("--tessera-csv", required=True)
    ap.add_argument("--tessera-out", required=True)
    ap.add_argument("--tessera-binary", default="?")
    ap.add_argument("--steps", type=int, default=100000)
    ap.add_argument("--full-steps", type=int, default=100000)
    ap.add_argument("--lammps-wall", default="?")
    ap.add_argument("--tessera-wall", default="?")
    ap.add_argument("--lammps-load", default="?", help="/proc/loadavg (1, 5, 15 min) before the LAMMPS run")
    ap.add_argument("--tessera-load", default="?", help="/proc/loadavg (1, 5, 15 min) before the Tessera run")
    ap.add_argument("--cmd-run", default="")
    ap.add_argument("--cmd-lammps", default="")
    ap.add_argument("--cmd-tessera", default="")
    ap.add_argument("--date", default=datetime.date.today().isoformat())
    ap.add_argument("--potential", default="lj/cut", choices=["lj/cut", "lj/smooth/linear"],
                    help="the pair style both decks ran with (run.sh's POTENTIAL)")
    args = ap.parse_args()

    lmp_cols, lmp_loop, lmp_version = read_lammps_log(args.lammps_log)
    tes_cols = read_tessera_csv(args.tessera_csv)
    tes_loop, tes_text = read_tessera_summary(args.tessera_out)
    lmp = figures(lmp_cols)
    tes = figures(tes_cols)
    passed = tes["max_dev"] <= TOLERANCE
    verdict = "PASS" if passed else "FAIL"

    rows = [
        ("E/atom at start", fmt_e, "e_start"),
        ("E/atom at end", fmt_e, "e_end"),
        ("drift abs(E(end) - E(0))", fmt_s, "drift"),
        ("max abs(E(t) - E(0))", fmt_s, "max_dev"),
        ("... at step", str, "max_dev_step"),
        ("std of E(t)", fmt_s, "std"),
        ("linear-fit slope per 1e5 steps", fmt_s, "slope_per_1e5"),
        ("T at start / end", None, None),
        ("thermo samples", str, "samples"),
    ]

    # --- console -------------------------------------------------------------
    print()
    print(f"NVE energy conservation, {args.steps} steps (total energy per atom, LJ units)")
    print(f"{'':34s} {'LAMMPS':>18s} {'Tessera':>18s}")
    cells = []
    for label, f, key in rows:
        if key is None:
            a = f"{lmp['t_start']:.4f} / {lmp['t_end']:.4f}"
            b = f"{tes['t_start']:.4f} / {tes['t_end']:.4f}"
        else:
            a, b = f(lmp[key]), f(tes[key])
        cells.append((label, a, b))
    for label, a, b in cells:
        print(f"{label:34s} {a:>18s} {b:>18s}")
    lmp_perf = lmp_loop.get("atom_steps_per_s")
    tes_perf = tes_loop.get("atom_steps_per_s")
    print(f"{'atom-steps/s (1 core)':34s} {lmp_perf if lmp_perf is None else f'{lmp_perf:.4g}':>18} "
          f"{tes_perf if tes_perf is None else f'{tes_perf:.4g}':>18}")
    print()
    print(f"Tessera criterion: max abs(E(t) - E(0)) <= {TOLERANCE:g} at every sampled step: "
          f"{tes['max_dev']:.3e} -> {verdict}")
    print(f"(LAMMPS reference on the same band: {lmp['max_dev']:.3e} -> "
          f"{'within' if lmp['max_dev'] <= TOLERANCE else 'outside'})")

    # --- plot ----------------------------------------------------------------
    os.makedirs(args.results_dir, exist_ok=True)
    smooth = args.potential == "lj/smooth/linear"
    stem = f"nve-conservation-{'smooth-' if smooth else ''}{args.date}"
    pot_short = "force-shifted LJ (lj/smooth/linear)" if smooth else "shifted LJ"
    pot_long = ("force-shifted LJ (`lj/smooth/linear`: force and energy zero at the cutoff) "
                "instead of the deck's energy-shifted `lj/cut`" if smooth else "energy-shifted LJ")
    png = os.path.join(args.results_dir, stem + ".png")
    plot_note = ""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(8, 4.5), dpi=120)
        ax.plot(lmp_cols["step"], lmp_cols["etotal"] - lmp["e_start"], label="LAMMPS", lw=1.2)
        ax.plot(tes_cols["step"], tes_cols["etotal"] - tes["e_start"], label="Tessera", lw=1.2)
        for y in (TOLERANCE, -TOLERANCE):
            ax.axhline(y, color="grey", ls="--", lw=0.8)
        ax.axhline(0.0, color="black", lw=0.5)
        ax.set_xlabel("step (dt = 0.005)")
        ax.set_ylabel("E(t) - E(0) per atom (LJ units)")
        ax.set_title(f"NVE, 4000-atom LJ melt, {pot_short} rc=2.5: Tessera {verdict} (band = +-{TOLERANCE:g})",
                     fontsize=9 if smooth else None)
        ax.ticklabel_format(axis="y", style="sci", scilimits=(-3, 3))
        ax.legend()
        fig.tight_layout()
        fig.savefig(png)
        plt.close(fig)
        print(f"plot:    {png}")
    except ImportError:
        png = None
        plot_note = "(no plot: matplotlib is not installed for this Python; on Debian: apt-get install python3-matplotlib)"
        print(f"analyze.py: {plot_note}", file=sys.stderr)

    # --- markdown report -----------------------------------------------------
    commit, dirty = repo_info(args.repo)
    if args.commit:
        commit = args.commit
    if args.tree_state:
        dirty = {"clean": "clean", "dirty": "dirty (uncommitted changes to tracked files)"}.get(
            args.tree_state, args.tree_state)
    md = []
    md.append(f"# NVE energy conservation: Tessera vs LAMMPS ({args.date})")
    md.append("")
    if args.steps != args.full_steps:
        md.append(f"**Shortened run: {args.steps} steps instead of {args.full_steps} (STEPS set); "
                  "not a benchmark result.**")
        md.append("")
    md.append("Issue 2's benchmark: 4,000-atom LJ melt (fcc, density 0.8442, T0 = 1.44, seed 87287), "
              f"{pot_long} with cutoff 2.5, skin 0.3 with neighbour checks every step, "
              f"velocity Verlet NVE with dt = 0.005, {args.steps} steps, thermo every "
              f"{lmp['last_step'] // max(1, lmp['samples'] - 1)} steps. "
              "Energies are per atom in LJ units. Decks: `benchmarks/nve-conservation/tessera.yaml` "
              "and `benchmarks/nve-conservation/lammps.lmp`"
              + (", with run.sh's `POTENTIAL=lj/smooth/linear` edits." if smooth else "."))
    md.append("")
    md.append(f"**Criterion** (Tessera): max |E(t) - E(0)| <= {TOLERANCE:g} at every sampled step. "
              f"**Result: {verdict}** (max |E(t) - E(0)| = {tes['max_dev']:.3e} at step {tes['max_dev_step']}).")
    md.append("")
    ref = "within" if lmp["max_dev"] <= TOLERANCE else "outside"
    md.append(f"For reference, LAMMPS on the same deck stayed {ref} the same band in this run "
              f"(max |E(t) - E(0)| = {lmp['max_dev']:.3e}, drift {lmp['drift']:.3e}, "
              f"slope {lmp['slope_per_1e5']:.3e} per 1e5 steps).")
    md.append("")
    md.append("## Setup")
    md.append("")
    md.append(f"- Machine: {machine_info()}")
    md.append(f"- Tessera commit: `{commit}` when the run started, work tree {dirty}; "
              f"binary `{portable_path(args.tessera_binary, args.repo)}` reports `{tes_loop.get('version', '?')}`")
    md.append(f"- LAMMPS: {lmp_version}, {lmp_loop.get('procs', '?')} MPI rank")
    md.append("- Both runs on one core (1 MPI rank / 1 thread), one after the other.")
    md.append("")
    md.append("Commands (`$SCRATCH` is the temporary directory run.sh copies the decks into):")
    md.append("")
    md.append("```")
    md.append(portable_path_text(args.cmd_run, args.repo))
    md.append(portable_path_text(args.cmd_lammps, args.repo))
    md.append(portable_path_text(args.cmd_tessera, args.repo))
    md.append("```")
    md.append("")
    md.append("## Energy conservation")
    md.append("")
    md.append("| total energy per atom | LAMMPS | Tessera |")
    md.append("| --- | ---: | ---: |")
    for label, a, b in cells:
        md.append(f"| {label} | {a} | {b} |")
    md.append("")
    if png:
        md.append(f"![E(t) - E(0) for both engines]({os.path.basename(png)})")
    else:
        md.append(plot_note)
    md.append("")
    md.append("## Speed (one core)")
    md.append("")
    md.append("| | LAMMPS | Tessera |")
    md.append("| --- | ---: | ---: |")

    def g(d, k, fmtstr):
        return fmtstr.format(d[k]) if k in d else "?"

    md.append(f"| loop time (s) | {g(lmp_loop, 'loop_s', '{:.2f}')} | {g(tes_loop, 'loop_s', '{:.2f}')} |")
    md.append(f"| wall time incl. setup (s) | {args.lammps_wall} | {args.tessera_wall} |")
    md.append(f"| neighbour-list builds | {g(lmp_loop, 'builds', '{}')} "
              f"({g(lmp_loop, 'dangerous', '{}')} dangerous) | {g(tes_loop, 'builds', '{}')} |")
    md.append(f"| load average before the run (1/5/15 min) | {args.lammps_load} | {args.tessera_load} |")
    md.append(f"| atom-steps/s | {g(lmp_loop, 'atom_steps_per_s', '{:.4g}')} | "
              f"{g(tes_loop, 'atom_steps_per_s', '{:.4g}')} |")
    md.append("")
    md.append("LAMMPS's atom-steps/s is natoms x steps / loop time from its log; Tessera's is its own "
              "`Performance:` line (same definition). The machine has 2 cores: a load average above "
              "about 1 before a run means something else was competing for the CPU.")
    md.append("")
    md.append("Tessera's summary:")
    md.append("")
    md.append("```")
    summary_start = tes_text.find("Loop time")
    md.append(tes_text[summary_start:].rstrip() if summary_start >= 0 else tes_text.rstrip())
    md.append("```")
    md.append("")
    md_path = os.path.join(args.results_dir, stem + ".md")
    with open(md_path, "w") as f:
        f.write("\n".join(md))
    print(f"report:  {md_path}")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
