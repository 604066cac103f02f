#!/usr/bin/python3
"""The judge of benchmarks/nve-conservation/seeds.py on samples whose answer is
known: both engines' energies are synthetic random walks drawn here, so a
heating engine, a noisier one and a quieter one can be made on purpose and
the script's verdict checked against each. Run: /usr/bin/python3 this_file."""

import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
SEEDS_PY = os.path.join(REPO, "benchmarks", "nve-conservation", "seeds.py")

STEPS = 20000
EVERY = 200
DT = 0.005
WALK = 1.5e-5  # step of the walk per sample: a median excursion of 1.6e-4, near the measured 1.3e-4
E0 = -4.17


def walk(rng, slope_per_100tau, width):
    step = np.arange(0, STEPS + 1, EVERY)
    tau = step * DT
    noise = np.concatenate([[0.0], np.cumsum(rng.normal(0.0, WALK * width, len(step) - 1))])
    return step, E0 + slope_per_100tau * tau / 100.0 + noise


def write_lammps(path, step, e):
    with open(path, "w") as f:
        f.write("LAMMPS (synthetic)\n")
        f.write("   Step          Temp          PotEng         KinEng         TotEng         Press     \n")
        for s, x in zip(step, e):
            f.write(f"{int(s)} 0.7 {x - 1.0!r} 1.0 {x!r} 5.0\n")
        f.write(f"Loop time of 1.0 on 1 procs for {STEPS} steps with 4000 atoms\n")


def write_tessera(path, step, e):
    with open(path, "w") as f:
        f.write("step,temp,pe,ke,etotal,press\n")
        for s, x in zip(step, e):
            f.write(f"{int(s)},0.7,{x - 1.0!r},1.0,{x!r},5.0\n")


def judge(n, tessera_slope=0.0, tessera_width=1.0, truncate=False, rng_seed=7):
    """Writes n seeds of each engine, runs seeds.py, returns (exit code, report text, stdout+stderr)."""
    rng = np.random.default_rng(rng_seed)
    with tempfile.TemporaryDirectory() as d:
        for s in range(1, n + 1):
            step, e = walk(rng, 0.0, 1.0)
            write_lammps(os.path.join(d, f"l{s}.log"), step, e)
            step, e = walk(rng, tessera_slope, tessera_width)
            if truncate and s == n:
                step, e = step[:-3], e[:-3]
            write_tessera(os.path.join(d, f"t{s}.csv"), step, e)
        out = os.path.join(d, "results")
        p = subprocess.run([sys.executable, SEEDS_PY, "--repo", REPO, "--dir", d,
                            "--seeds", " ".join(str(s) for s in range(1, n + 1)), "--steps", str(STEPS),
                            "--results-dir", out, "--date", "2000-01-01"],
                           capture_output=True, text=True)
        reports = os.listdir(out) if os.path.isdir(out) else []
        text = ""
        if reports:
            with open(os.path.join(out, reports[0])) as f:
                text = f.read()
        return p.returncode, text, p.stdout + p.stderr


def verdicts(text):
    """The PASS/FAIL of the slope line and of the excursion line of a report."""
    slope = next(l for l in text.splitlines() if l.startswith("- Tessera's mean slope minus"))
    excursion = next(l for l in text.splitlines() if l.startswith("- Largest excursions"))
    return ("PASS" if "**PASS**" in slope else "FAIL"), ("PASS" if "**PASS**" in excursion else "FAIL")


class SeedsJudge(unittest.TestCase):
    def test_same_walks_pass(self):
        for rng_seed in (1, 2, 3):
            rc, text, log = judge(24, rng_seed=rng_seed)
            self.assertEqual(rc, 0, log)
            self.assertEqual(verdicts(text), ("PASS", "PASS"))
            self.assertIn("- Overall: **PASS**", text)

    def test_heating_fails_on_slope(self):
        # One walk's slope scatters by about 1.7e-4 per 100 tau, so the combined
        # standard error at 24 seeds is about 4.8e-5: a heating of 3e-4 is 6 of them.
        rc, text, log = judge(24, tessera_slope=3e-4)
        self.assertEqual(rc, 1, log)
        self.assertEqual(verdicts(text)[0], "FAIL")
        self.assertIn("- Overall: **FAIL**", text)

    def test_cooling_fails_on_slope(self):
        rc, text, log = judge(24, tessera_slope=-3e-4)
        self.assertEqual(rc, 1, log)
        self.assertEqual(verdicts(text)[0], "FAIL")

    def test_wider_walk_fails_on_excursions(self):
        rc, text, log = judge(24, tessera_width=2.0)
        self.assertEqual(rc, 1, log)
        self.assertEqual(verdicts(text)[1], "FAIL")

    def test_wider_walk_fails_with_eight_seeds(self):
        # long.nve_seeds runs 8 seeds: a walk three times as wide must still fail there.
        rc, text, log = judge(8, tessera_width=3.0)
        self.assertEqual(rc, 1, log)
        self.assertEqual(verdicts(text)[1], "FAIL")

    def test_narrower_walk_passes(self):
        rc, text, log = judge(24, tessera_width=0.5)
        self.assertEqual(rc, 0, log)
        self.assertEqual(verdicts(text), ("PASS", "PASS"))

    def test_short_run_is_an_error(self):
        rc, text, log = judge(8, truncate=True)
        self.assertNotEqual(rc, 0)
        self.assertIn("did not reach step", log)
        self.assertEqual(text, "")


if __name__ == "__main__":
    unittest.main(verbosity=2)
