#!/usr/bin/python3
"""The README's figures that the test suite or a run can regenerate (issue 26,
item 3): the validation table (Tessera against LAMMPS) and the quick start's
thermo table and performance line.

usage:
  figures.py check README DIR [BINARY ...]
      Fails (exit 1, naming the row) when the README's validation table
      disagrees with the figures the tests measured into DIR (one file per
      figure, `name=value`, written by tests/unit/lammps_validation_test.cpp
      and tests/e2e/analysis_check.py). A figure file older than any BINARY
      was measured by an older build and counts as missing.
  figures.py render README DIR RUN_LOG FIGURES_MD --commit C --machine M
                    --date D --build B --load L --run-command CMD
      Rewrites the README's blocks between <!-- figures:NAME:begin --> and
      <!-- figures:NAME:end --> in place and writes FIGURES_MD, each figure
      with the commit, machine and exact command that produced it.
      scripts/refresh-figures.sh calls this; it is not meant to be run alone.

The rule `check` applies, per figure: the README may not claim a smaller
error than measured (its number must be at least the measured one rounded to
the digits the README prints), and may not be stale by more than an order of
magnitude (at most ten times the measured one). The measured errors are
rounding noise, about 1e-14, which a compiler, a kernel rewrite or another
CPU's vector width can move by a few units; a factor of ten leaves room for
that while still catching a table that describes another engine.
"""
import argparse
import os
import re
import sys

# The validation table, row by row: the README's label, the tolerance the
# test asks, the figures the "measured" column shows (joined by " / "), and
# what measures them. Labels are how `check` finds a row, so a row renamed
# here must be regenerated in the README (scripts/refresh-figures.sh).
UNIT = "tests/unit/lammps_validation_test.cpp"
ANALYSIS = "tests/e2e/analysis.sh"
FORCES_CASE = "forces on LAMMPS melts agree to 1e-10 per atom"
NVE_CASE = "1000 NVE steps from a LAMMPS data file follow LAMMPS"
ROWS = [
    ("forces per atom, LJ melt (2048 atoms)", "1e-10 relative", ["forces.lj"], UNIT),
    ("forces per atom, Morse melt", "1e-10", ["forces.morse"], UNIT),
    ("forces per atom, LJ melt with `lj/smooth/linear` (force-shifted)", "1e-10", ["forces.lj_smooth"], UNIT),
    ("forces per atom, two-type LJ mixture (Lorentz–Berthelot)", "1e-10", ["forces.mix"], UNIT),
    ("total energy per atom, first 100 NVE steps, LJ / Morse", "1e-8", ["etotal_100.lj", "etotal_100.morse"], UNIT),
    ("the same, `lj/smooth/linear`", "1e-8", ["etotal_100.lj_smooth"], UNIT),
    ("in-engine g(r) (all atoms and 4 type pairs) and coordination numbers, mixture, steps 0/50/100",
     "1e-10 (same pair counts)", ["rdf.mix"], ANALYSIS),
    ("in-engine MSD (all atoms and per type, x/y/z/total), mixture, 100 NVE steps", "1e-9", ["msd.mix"], ANALYSIS),
]
# Which command measures a figure, by its name's prefix (for FIGURES_MD).
COMMANDS = {
    "forces.": f'{{build}}/tests/tessera_unit_tests "{FORCES_CASE}"',
    "etotal_100.": f'{{build}}/tests/tessera_unit_tests "{NVE_CASE}"',
    "rdf.": "bash tests/e2e/analysis.sh {build}/src/app/tessera .",
    "msd.": "bash tests/e2e/analysis.sh {build}/src/app/tessera .",
}
MEANING = {
    "forces.": "largest 2|F_ours − F_LAMMPS| / (|F_ours| + |F_LAMMPS|) over the atoms",
    "etotal_100.": "largest |E_ours − E_LAMMPS| per atom over steps 0–100",
    "rdf.": "largest relative difference of g(r) and coordination numbers",
    "msd.": "largest relative difference of the MSD columns",
}


def fail(message):
    print(f"figures.py: {message}", file=sys.stderr)
    sys.exit(1)


def block(text, name):
    """(start, end) of the text between the markers of block NAME."""
    begin, end = f"<!-- figures:{name}:begin -->", f"<!-- figures:{name}:end -->"
    b, e = text.find(begin), text.find(end)
    if b < 0 or e < b:
        fail(f"README has no {begin} … {end} block")
    return b + len(begin), e


def read_measured(folder, binaries):
    newest = max((os.path.getmtime(b) for b in binaries), default=0.0)
    measured = {}
    for _, _, names, producer in ROWS:
        for name in names:
            path = os.path.join(folder, name)
            if not os.path.exists(path):
                fail(f"{path} missing: {producer} writes it (ctest -R e2e.readme_figures runs it first)")
            if os.path.getmtime(path) < newest:
                fail(f"{path} is older than the binaries {binaries}: rerun {producer}")
            with open(path) as f:
                key, _, value = f.read().strip().partition("=")
            if key != name:
                fail(f"{path}: expected '{name}=VALUE'")
            measured[name] = float(value)
    return measured


def table_rows(text):
    """{label: [cells]} of the markdown table in the validation block."""
    b, e = block(text, "validation")
    rows = {}
    for line in text[b:e].splitlines():
        if line.startswith("|") and not line.startswith("| ---"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            rows[cells[0]] = cells
    return rows


def digits(s):
    """Significant digits printed in a number like 3.6e-14 (2) or 1e-13 (1)."""
    mantissa = s.lower().split("e")[0].replace(".", "").lstrip("0")
    return max(len(mantissa), 1)


def check(readme, folder, binaries):
    with open(readme) as f:
        text = f.read()
    measured = read_measured(folder, binaries)
    rows = table_rows(text)
    problems = []
    for label, _, names, producer in ROWS:
        if label not in rows:
            problems.append(f"no row '{label}' in the validation table (scripts/refresh-figures.sh writes it)")
            continue
        quoted = [q.strip() for q in rows[label][2].split("/")]
        if len(quoted) != len(names):
            problems.append(f"'{label}': {len(quoted)} figures quoted, {len(names)} measured ({', '.join(names)})")
            continue
        for q, name in zip(quoted, names):
            try:
                r = float(q)
            except ValueError:
                problems.append(f"'{label}': '{q}' is not a number")
                continue
            x = measured[name]
            shown = float(f"{x:.{digits(q) - 1}e}")  # the measured figure at the README's precision
            if r < shown:
                problems.append(f"'{label}': README claims {q}, {producer} measured {name} = {x:.3e} (larger)")
            elif r > 10 * x and not (r == 0 and x == 0):
                problems.append(f"'{label}': README says {q}, {producer} measured {name} = {x:.3e} "
                                f"(more than ten times smaller: the table is stale)")
            else:
                print(f"  {name}: README {q}, measured {x:.3e}: ok")
    if problems:
        for p in problems:
            print(f"figures.py: {p}", file=sys.stderr)
        fail("the README's validation table disagrees with the tests; run scripts/refresh-figures.sh")
    print("README validation table agrees with the measured figures")


def fmt2(x):
    """Two significant digits, as the table has always printed them."""
    return f"{x:.1e}".replace("e-0", "e-").replace("e+0", "e+")


def command_of(name, build):
    return next(c for p, c in COMMANDS.items() if name.startswith(p)).format(build=build)


def meaning_of(name):
    return next(m for p, m in MEANING.items() if name.startswith(p))


def replace_block(text, name, body):
    b, e = block(text, name)
    return text[:b] + "\n" + body.rstrip("\n") + "\n" + text[e:]


def quickstart_excerpt(log):
    """Thermo rows 0, 10 and the last one, then the loop and performance lines."""
    lines = log.splitlines()
    try:
        head = next(i for i, l in enumerate(lines) if l.split()[:2] == ["Step", "Temp"])
        loop = next(i for i, l in enumerate(lines) if l.startswith("Loop time of"))
    except StopIteration:
        fail("the run's output has no thermo header or no 'Loop time of' line")
    rows = [l for l in lines[head + 1:loop] if l.strip() and l.split()[0].isdigit()]
    perf = next((l for l in lines[loop:] if l.startswith("Performance:")), None)
    if len(rows) < 3 or perf is None:
        fail("the run's output has fewer than 3 thermo rows or no 'Performance:' line")
    shown = [lines[head], rows[0], rows[1], "       ...", rows[-1], "", lines[loop], perf]
    return "\n".join(shown), perf


def render(a):
    with open(a.readme) as f:
        text = f.read()
    measured = read_measured(a.dir, [])
    with open(a.run_log) as f:
        excerpt, perf = quickstart_excerpt(f.read())
    where = f"commit {a.commit}; {a.machine}; {a.date}"
    run_cmd = a.run_command
    backend = next((l.split(None, 1)[1] for l in open(a.run_log).read().splitlines()
                    if l.startswith("Backend ")), "not printed")

    table = ["| check | tolerance asked | measured | measured by |", "| --- | --- | --- | --- |"]
    for label, tol, names, producer in ROWS:
        table.append(f"| {label} | {tol} | {' / '.join(fmt2(measured[n]) for n in names)} | `{producer}` |")
    validation = (
        f"<!-- Generated by scripts/refresh-figures.sh; ctest's e2e.readme_figures fails when it disagrees "
        f"with what the tests measure. -->\n"
        f"Measured at {where}, by `scripts/refresh-figures.sh` (commands per figure in "
        f"[docs/figures.md](docs/figures.md)):\n\n" + "\n".join(table) + "\n")
    quickstart = (
        f"<!-- Generated by scripts/refresh-figures.sh: a timing of one machine, never asserted by a test. -->\n"
        f"At {where}; `{run_cmd}` ({backend}; load average {a.load}):\n\n```\n{excerpt}\n```\n")
    text = replace_block(text, "validation", validation)
    text = replace_block(text, "quickstart", quickstart)
    with open(a.readme, "w") as f:
        f.write(text)

    md = [
        "# Figures",
        "",
        "Generated by `scripts/refresh-figures.sh`; do not edit by hand. The README's",
        "validation table and quick-start output are copied from here. Rerun the script",
        "after a change that moves them; ctest's `e2e.readme_figures` fails when the",
        "validation table no longer matches what the tests measure (timings are never",
        "asserted: they depend on the machine and its load).",
        "",
        f"- commit: `{a.commit}`",
        f"- machine: {a.machine}",
        f"- date: {a.date}",
        f"- build folder: `{a.build}`",
        "",
        "## Validation against LAMMPS",
        "",
        "Reference files: `tests/reference/` (LAMMPS, Debian package, 29 Sep 2021).",
        "",
        "| figure | value | what | command |",
        "| --- | --- | --- | --- |",
    ]
    for _, _, names, _ in ROWS:
        for n in names:
            what = meaning_of(n).replace("|", "\\|")  # a bare | would split the table's cell
            md.append(f"| `{n}` | {measured[n]:.3e} | {what} | `{command_of(n, a.build)}` |")
    md += [
        "",
        "Each command prints `FIGURE name=value` and, with `TESSERA_FIGURES_DIR` set, writes",
        "the figure to that folder (ctest: `figures-measured/` in the build folder). The script",
        "runs them with `OMP_WAIT_POLICY=PASSIVE`, as ctest does; the figures do not depend on it.",
        "",
        "## Quick start: the LJ melt deck",
        "",
        f"Command: `{run_cmd}` (`inputs/lj-melt.yaml`, 32,000 atoms, 100 steps; {backend}).",
        "",
        "```",
        excerpt,
        "```",
        "",
        f"Load average when it ran: {a.load} (the machine may be shared; a timing, not a goal).",
        "",
    ]
    with open(a.figures_md, "w") as f:
        f.write("\n".join(md))


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("check", "render"):
        fail(__doc__)
    if sys.argv[1] == "check":
        if len(sys.argv) < 4:
            fail(__doc__)
        check(sys.argv[2], sys.argv[3], sys.argv[4:])
        return
    p = argparse.ArgumentParser(prog="figures.py render")
    p.add_argument("readme")
    p.add_argument("dir")
    p.add_argument("run_log")
    p.add_argument("figures_md")
    for k in ("commit", "machine", "date", "build", "load", "run-command"):
        p.add_argument(f"--{k}", required=True)
    render(p.parse_args(sys.argv[2:]))


if __name__ == "__main__":
    main()
