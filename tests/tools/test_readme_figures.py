#!/usr/bin/python3
"""The judge of e2e.readme_figures (scripts/figures.py check) on made-up
tables, so that a judge that passes everything cannot hide in the default
suite: a README figure below the measured one fails, one more than ten times
above fails (stale), equal at the printed precision passes, a missing row or
figure fails, a figure file older than the binary fails."""
import os
import subprocess
import sys
import tempfile
import time

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
script = os.path.join(root, "scripts", "figures.py")
sys.path.insert(0, os.path.join(root, "scripts"))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import figures  # noqa: E402  (the row list the README is checked against)

failures = 0


def run(work, cells, measured, binaries=(), drop_row=None):
    """check's exit code on a README whose rows quote `cells` (by figure name)."""
    folder = os.path.join(work, "measured")
    os.makedirs(folder, exist_ok=True)
    for name, value in measured.items():
        with open(os.path.join(folder, name), "w") as f:
            f.write(f"{name}={value}\n")
    rows = ["| check | tolerance asked | measured | measured by |", "| --- | --- | --- | --- |"]
    for label, tol, names, producer in figures.ROWS:
        if label != drop_row:
            rows.append(f"| {label} | {tol} | {' / '.join(cells[n] for n in names)} | `{producer}` |")
    readme = os.path.join(work, "README.md")
    with open(readme, "w") as f:
        f.write("# x\n<!-- figures:validation:begin -->\n" + "\n".join(rows) + "\n<!-- figures:validation:end -->\n")
    return subprocess.run(["/usr/bin/python3", script, "check", readme, folder, *binaries],
                          capture_output=True, text=True).returncode


def expect(what, rc, want):
    global failures
    ok = (rc == 0) == want
    failures += not ok
    print(f"{'ok  ' if ok else 'FAIL'} {what}: exit {rc}")


names = [n for _, _, ns, _ in figures.ROWS for n in ns]
measured = {n: 3.449e-14 for n in names}
good = {n: "3.4e-14" for n in names}
with tempfile.TemporaryDirectory() as work:
    expect("equal at the printed precision passes", run(work, good, measured), True)
    expect("one digit printed, above the measured one, passes", run(work, {**good, names[0]: "4e-14"}, measured), True)
    expect("a figure below the measured one fails", run(work, {**good, names[0]: "3.3e-14"}, measured), False)
    expect("a figure up to ten times the measured one passes", run(work, {**good, names[-1]: "3.4e-13"}, measured), True)
    expect("a figure over ten times the measured one fails (stale)",
           run(work, {**good, names[-1]: "3.5e-13"}, measured), False)
    expect("a cell that is not a number fails", run(work, {**good, names[0]: "tiny"}, measured), False)
    expect("a missing row fails", run(work, good, measured, drop_row=figures.ROWS[0][0]), False)
    os.remove(os.path.join(work, "measured", names[0]))
    expect("a figure nobody measured fails", run(work, good, {n: v for n, v in measured.items() if n != names[0]}),
           False)
    binary = os.path.join(work, "binary")
    run(work, good, measured)
    time.sleep(0.05)
    with open(binary, "w"):
        pass  # a build newer than the measurement
    expect("a figure older than the binary fails", subprocess.run(
        ["/usr/bin/python3", script, "check", os.path.join(work, "README.md"), os.path.join(work, "measured"),
         binary], capture_output=True).returncode, False)
sys.exit(1 if failures else 0)
