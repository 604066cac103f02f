#!/usr/bin/env python3
"""benchmarks/race/race.py report on made-up timings: a LAMMPS variant that
failed in one case (run.sh's failures.tsv) is left out of that case's best,
listed with its error, and still counts in the cases where it ran; a case
where every variant failed gets no ratio instead of a crash; Tessera's other
layouts get their columns and ratios; LAMMPS INTEL in mixed mode is a mixed
peer only. And race.py check on made-up step-0 logs: a LAMMPS in mixed mode
gets the single-precision bound, a double one the round-off bound; the npt
case's last volumes are compared too."""
import importlib.util
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
RACE = os.path.join(HERE, "..", "..", "benchmarks", "race", "race.py")


def verdict(checks, text, what, sub="report"):
    """0 when every (ok, why) holds, else 1 after printing the failures and the report."""
    bad = [why for ok, why in checks if not ok]
    for why in bad:
        print("FAIL:", why)
    if bad:
        print(text)
        return 1
    print(f"race.py {sub}: {what}; ok")
    return 0


def main():
    with tempfile.TemporaryDirectory(prefix=f"race-report-{os.getpid()}-") as d:
        # 32k: intel (1.6 s) beats omp (2.0 s); 2M: intel failed, so omp is
        # best; 4M: every LAMMPS variant failed.
        rows = ["case\tengine\trep\tloop_s\tsteps\tatoms"]
        for case, atoms, engines in (("32k", 32000, {"tessera": 1.0, "omp": 2.0, "intel": 1.6}),
                                     ("2M", 2048000, {"tessera": 50.0, "omp": 100.0}),
                                     ("4M", 4000000, {"tessera": 100.0})):
            for rep in (1, 2):
                for e, t in engines.items():
                    rows.append(f"{case}\t{e}\t{rep}\t{t}\t100\t{atoms}")
        with open(os.path.join(d, "timings.tsv"), "w") as f:
            f.write("\n".join(rows) + "\n")
        with open(os.path.join(d, "failures.tsv"), "w") as f:
            f.write("case\tengine\terror\n"
                    "2M\tintel\tFailed to allocate -8168653184 bytes for array _list_alloc\n"
                    "4M\tomp\tERROR: made up | with a bar\n"
                    "4M\tintel\tERROR: made up too\n")
        for case in ("32k", "2M", "4M"):
            os.makedirs(os.path.join(d, case))
            with open(os.path.join(d, case, "physics"), "w") as f:
                f.write("style=lj/cut density=0.8442 temp=1.44 cutoff=2.5 coeffs=1,1\n")
        out = os.path.join(d, "race.md")
        args = [sys.executable, RACE, "report", "--timings", os.path.join(d, "timings.tsv"),
                "--failures", os.path.join(d, "failures.tsv"), "--out", out, "--command", "run.sh (test)",
                "--commit", "test", "--cores", "2", "--tessera-version", "t", "--lammps-version", "l",
                "--tessera-cmd", "t", "--tessera-layout", "1 process", "--lammps-cmd", "l", "--load", "0",
                "--scratch", d]
        r = subprocess.run(args, capture_output=True, text=True)
        if r.returncode != 0:
            print(r.stdout, r.stderr)
            return 1
        text = open(out).read()
        table = {line.split("|")[1].strip(): [c.strip() for c in line.split("|")[1:-1]]
                 for line in text.splitlines() if line.startswith("| ") and line.split("|")[1].strip()
                 in ("32k", "2M", "4M") and "lj/cut" in line}
        failures = [line for line in text.splitlines() if line.startswith("| 2M | intel |")
                    or line.startswith("| 4M | omp |") or line.startswith("| 4M | intel |")]
        checks = [
            # 32k: intel (1.6 s) beats omp (2.0 s); ratio 1.6 / 1.0
            (table["32k"][6] == "lj/cut/intel", f"32k best {table['32k'][6]}"),
            (table["32k"][7] == "1.60", f"32k ratio {table['32k'][7]}"),
            # 2M: intel failed, so omp is best; ratio 100 / 50
            (table["2M"][6] == "lj/cut/omp", f"2M best {table['2M'][6]}"),
            (table["2M"][7] == "2.00", f"2M ratio {table['2M'][7]}"),
            # 4M: nothing ran beside Tessera
            ("every variant failed" in table["4M"][5], f"4M best {table['4M'][5]}"),
            (table["4M"][7] == "—", f"4M ratio {table['4M'][7]}"),
            ("LAMMPS variants that failed" in text, "no failures section"),
            (len(failures) == 3, f"failure rows: {failures}"),
            (any("_list_alloc" in line for line in failures), "the error is not quoted"),
            (not any("made up | with" in line for line in failures), "a bar in an error broke the table"),
            (os.path.exists(os.path.join(d, "race.png")), "no plot"),
        ]
        return verdict(checks, text, "failed variants left out and listed")



LJ = "style=lj/cut density=0.8442 temp=1.44 cutoff=2.5 coeffs=1,1"
MORSE = "style=morse density=1.0 temp=1.0 cutoff=2.5 coeffs=1.0,5.0,1.122462048309373"


def report_cases(d, cases, spread, tessera_args):
    """Writes timings of cases (name -> (atoms, physics, engine -> loop
    seconds), rep r's time times spread(r)) into folder d, runs race.py
    report, and returns the report's text and each case's row of cells in
    the first table, or None when race.py failed."""
    rows = ["case\tengine\trep\tloop_s\tsteps\tatoms"]
    for rep in (1, 2, 3):
        for case, (atoms, _, times) in cases.items():
            for e, t in times.items():
                rows.append(f"{case}\t{e}\t{rep}\t{t * spread(rep)}\t100\t{atoms}")
    with open(os.path.join(d, "timings.tsv"), "w") as f:
        f.write("\n".join(rows) + "\n")
    for case, (_, physics, _) in cases.items():
        os.makedirs(os.path.join(d, case))
        with open(os.path.join(d, case, "physics"), "w") as f:
            f.write(physics + "\n")
    out = os.path.join(d, "race.md")
    r = subprocess.run([sys.executable, RACE, "report", "--timings", os.path.join(d, "timings.tsv"),
                        "--out", out, "--command", "run.sh (test)", "--commit", "test", "--cores", "2",
                        "--tessera-version", "t", "--lammps-version", "l", *tessera_args,
                        "--lammps-cmd", "l", "--load", "0", "--scratch", d],
                       capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stdout, r.stderr)
        return None
    text = open(out).read()
    # a row of the first table has the case's style where "All runs" has an engine
    style = {case: physics.split()[0].split("=")[1] for case, (_, physics, _) in cases.items()}
    return text, {case: [c.strip() for c in line.split("|")[1:-1]] for line in text.splitlines()
                  for case in cases if line.startswith(f"| {case} | {style[case]} |")}


def report_32k(d, times, spread, tessera_args):
    """report_cases of one 32k LJ case: the report's text and its 32k row's
    cells, or None when race.py failed."""
    got = report_cases(d, {"32k": (32000, LJ, times)}, spread, tessera_args)
    return None if got is None else (got[0], got[1].get("32k", []))

def layouts():
    """Tessera's other layouts (run.sh --tessera-also) beside GROMACS: their
    columns, the double ratio from Tessera's faster double layout (named),
    and the mixed ratio against GROMACS mixed."""
    with tempfile.TemporaryDirectory(prefix=f"race-layouts-{os.getpid()}-") as d:
        times = {"tessera": 1.0, "tessera_clusters": 0.8, "tessera_mixed": 0.7, "omp": 2.0,
                 "gmx_double_tmpi": 1.2, "gmx_double_omp": 1.3, "gmx_mixed_tmpi": 0.6, "gmx_mixed_omp": 0.5}
        got = report_32k(d, times, lambda rep: 1 + 0.01 * rep,
                         ["--tessera-cmd", "run tessera.yaml", "--tessera-layout", "1 process"])
        if got is None:
            return 1
        text, cells = got
        checks = [
            (len(cells) == 15, f"columns {cells}"),
            # 32000 * 100 / (1.02 s, 0.816 s, 0.714 s): the medians of the three reps
            (cells[4:7] == ["3.137e+06", "3.922e+06", "4.482e+06"], f"Tessera layouts {cells[4:7]}"),
            (cells[11] == "1.50 (clusters)", f"double ratio {cells[11]}"),  # 1.2 / 0.8
            (cells[12] == "6.275e+06" and cells[13] == "omp", f"GROMACS mixed {cells[12:14]}"),
            (cells[14] == "0.71", f"mixed ratio {cells[14]}"),  # 0.5 / 0.7
            ("run tessera_mixed.yaml" in text, "no command for the mixed deck"),
            ("| 32k | Tessera mixed |" in text, "no row of all runs for Tessera mixed"),
        ] if cells else [(False, "no 32k row")]
        return verdict(checks, text, "Tessera's layouts and the mixed ratio")


def ranks():
    """Every Tessera engine in both of run.sh's layouts (--tessera-layouts
    threads,ranks): a column each, and each ratio from the faster layout,
    named when it is the ranks one; the ranks engines' commands are the
    mpirun ones, on the decks that add the ranks' keys (run.sh's time
    balancing), and say so."""
    with tempfile.TemporaryDirectory(prefix=f"race-ranks-{os.getpid()}-") as d:
        times = {"tessera": 1.0, "tessera_ranks": 0.9, "tessera_mixed": 0.6, "tessera_mixed_ranks": 0.7,
                 "omp": 2.0, "gmx_double_tmpi": 1.2, "gmx_mixed_tmpi": 0.5}
        got = report_32k(d, times, lambda rep: 1.0,
                         ["--tessera-cmd", "tessera run tessera.yaml --threads 2",
                          "--tessera-ranks-cmd", "mpirun -np 2 tessera run tessera.yaml --threads 1",
                          "--tessera-ranks-keys", "load_balance: {every: max(20, steps / 10), by: time}",
                          "--tessera-layout", "both"])
        if got is None:
            return 1
        text, cells = got
        checks = [
            (len(cells) == 16, f"columns {cells}"),
            # 32000 * 100 / (1.0, 0.9, 0.6, 0.7 s): threads, ranks, mixed threads, mixed ranks
            (cells[4:8] == ["3.200e+06", "3.556e+06", "5.333e+06", "4.571e+06"], f"Tessera engines {cells[4:8]}"),
            (cells[12] == "1.33 (ranks)", f"double ratio {cells[12]}"),  # 1.2 / 0.9
            (cells[15] == "0.83", f"mixed ratio {cells[15]}"),  # 0.5 / 0.6, threads the faster
            ("mpirun -np 2 tessera run tessera_mixed_ranks.yaml --threads 1   # tessera_mixed_ranks.yaml: "
             "tessera.yaml with `precision: mixed` and `load_balance: {every: max(20, steps / 10), by: time}`" in text,
             "no ranks command for the mixed deck, or not what it adds"),
            ("mpirun -np 2 tessera run tessera_ranks.yaml --threads 1   # tessera_ranks.yaml: "
             "tessera.yaml with `load_balance: {every: max(20, steps / 10), by: time}`" in text,
             "no ranks command for the double deck, or not what it adds"),
            ("tessera run tessera_mixed.yaml --threads 2" in text, "no threads command for the mixed deck"),
            ("| 32k | Tessera mixed ranks |" in text, "no row of all runs for Tessera mixed ranks"),
        ] if cells else [(False, "no 32k row")]
        return verdict(checks, text, "Tessera's two layouts, each ratio from the faster")


def lammps_mixed():
    """LAMMPS INTEL in mixed mode (engine intel_mixed) beside GROMACS: never
    best LAMMPS nor the double peer, though here the fastest LAMMPS engine and
    faster than GROMACS double; the mixed ratio takes the faster of it and
    GROMACS mixed, and names which; morse, where it does not run, gets —."""
    with tempfile.TemporaryDirectory(prefix=f"race-lmixed-{os.getpid()}-") as d:
        cases = {"32k": (32000, LJ, {"tessera": 1.0, "tessera_mixed": 0.7, "omp": 2.0, "intel": 1.6,
                                     "intel_mixed": 0.5, "gmx_double_tmpi": 1.2, "gmx_mixed_tmpi": 0.6}),
                 "256k": (256000, LJ, {"tessera": 8.0, "tessera_mixed": 6.0, "omp": 16.0, "intel_mixed": 9.0,
                                       "gmx_double_tmpi": 10.0, "gmx_mixed_tmpi": 5.0}),
                 "morse": (256000, MORSE, {"tessera": 20.0, "tessera_mixed": 15.0, "omp": 40.0})}
        got = report_cases(d, cases, lambda rep: 1.0, ["--tessera-cmd", "t", "--tessera-layout", "1 process"])
        if got is None:
            return 1
        text, rows = got
        a, b, m = rows.get("32k", []), rows.get("256k", []), rows.get("morse", [])
        header = [line for line in text.splitlines() if line.startswith("| case | style |")]
        checks = [
            (len(a) == len(b) == len(m) == 16, f"columns {a} {b} {m}"),
            (header and header[0].split("|")[14:17] == [" LAMMPS intel mixed ", " mixed ratio (best Tessera mixed "
             "/ fastest mixed peer) ", " mixed peer "], f"header {header}"),
        ]
        if not checks[0][0]:
            return verdict(checks, text, "LAMMPS intel mixed a mixed peer only")
        checks += [
            # 32k: intel (1.6 s) is best LAMMPS, not intel_mixed (0.5 s); the
            # double peer is GROMACS double (1.2 s): 1.2 / 1.0
            (a[6:8] == ["2.000e+06", "lj/cut/intel"], f"32k best LAMMPS {a[6:8]}"),
            (a[10] == "1.20", f"32k double ratio {a[10]}"),
            # its median in its own column; the mixed ratio 0.5 / 0.7, against it
            (a[13] == "6.400e+06", f"32k LAMMPS intel mixed {a[13]}"),
            (a[14:16] == ["0.71", "LAMMPS intel mixed"], f"32k mixed ratio {a[14:16]}"),
            # 256k: GROMACS mixed (5 s) beats intel_mixed (9 s): 5 / 6, named
            (b[6:8] == ["1.600e+06", "lj/cut/omp"], f"256k best LAMMPS {b[6:8]}"),
            (b[10] == "1.25", f"256k double ratio {b[10]}"),  # GROMACS double 10 / 8
            (b[13] == "2.844e+06", f"256k LAMMPS intel mixed {b[13]}"),
            (b[14:16] == ["0.83", "GROMACS mixed tmpi"], f"256k mixed ratio {b[14:16]}"),
            # morse: neither GROMACS nor intel_mixed ran; omp 40 / 20
            (m[7] == "morse/omp" and m[10] == "2.00", f"morse {m[7]} {m[10]}"),
            (m[13:16] == ["—", "—", "—"], f"morse mixed cells {m[13:16]}"),
            ("| 32k | LAMMPS intel mixed | 6.400e+06 |" in text, "no row of all runs for LAMMPS intel mixed"),
            ("| morse | LAMMPS intel mixed |" not in text, "a row of all runs for intel mixed where it did not run"),
            ("`-sf intel`, mode mixed" in text, "the intro does not name intel mixed's switches"),
            ("LAMMPS intel mixed: to the statistical single-precision bound" in text, "its check's bound not said"),
            (os.path.exists(os.path.join(d, "race.png")), "no plot"),
        ]
        if verdict(checks, text, "LAMMPS intel mixed a mixed peer only, beside GROMACS"):
            return 1

    with tempfile.TemporaryDirectory(prefix=f"race-lmixed-nogmx-{os.getpid()}-") as d:
        # no GROMACS: intel_mixed (0.9 s) is faster than the plain style (2 s)
        # yet not best LAMMPS; 256k timed no double LAMMPS at all
        cases = {"32k": (32000, LJ, {"tessera": 1.0, "tessera_mixed": 0.7, "lj_cut": 2.0, "intel_mixed": 0.9}),
                 "256k": (256000, LJ, {"tessera": 8.0, "tessera_mixed": 6.0, "intel_mixed": 9.0})}
        got = report_cases(d, cases, lambda rep: 1.0, ["--tessera-cmd", "t", "--tessera-layout", "1 process"])
        if got is None:
            return 1
        text, rows = got
        a, b = rows.get("32k", []), rows.get("256k", [])
        checks = [(len(a) == len(b) == 12, f"columns {a} {b}")]
        if checks[0][0]:
            checks += [
                (a[6:9] == ["1.600e+06", "lj/cut", "2.00"], f"32k best LAMMPS and ratio {a[6:9]}"),
                (a[9:12] == ["3.556e+06", "1.29", "LAMMPS intel mixed"], f"32k mixed {a[9:12]}"),  # 0.9 / 0.7
                (b[6] == "— (no double variant timed)" and b[8] == "—", f"256k double {b[6:9]}"),
                (b[10:12] == ["1.50", "LAMMPS intel mixed"], f"256k mixed {b[10:12]}"),  # 9 / 6
                (text.startswith("# Speed race: Tessera vs LAMMPS,"), "the title names GROMACS"),
                (os.path.exists(os.path.join(d, "race.png")), "no plot"),
            ]
        return verdict(checks, text, "LAMMPS intel mixed without GROMACS")


def lattice_start(physics, natoms):
    """Step 0 of the fcc lattice at T0 = 1.44 as race.py computes it: PE per
    atom and pressure (its exact lattice sums) and KE per atom."""
    spec = importlib.util.spec_from_file_location("race", RACE)
    race = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(race)
    pe, press, _, _ = race.lattice_step0(dict(kv.split("=", 1) for kv in physics.split()), natoms)
    return pe, press, 1.5 * 1.44 * (natoms - 1) / natoms


def lammps_mixed_check():
    """race.py check with a LAMMPS step 0 whose PE is 1e-7 off the lattice
    sum, as INTEL's mode mixed gives: --lammps-precision mixed passes it,
    double fails it; a PE 1e-3 off fails either; Tessera stays at the double
    bound when only LAMMPS is mixed; chain and EAM refuse a mixed LAMMPS."""
    physics = LJ + " skin=0.3 dt=0.005 every=20"
    natoms = 32000
    pe, press, ke = lattice_start(physics, natoms)

    def run(d, tessera_pe, lammps_pe, precision, style_physics=physics):
        """race.py check's exit status and output on made-up 20-step logs."""
        with open(os.path.join(d, "physics"), "w") as f:
            f.write(style_physics + "\n")
        with open(os.path.join(d, "t.csv"), "w") as f:
            f.write("step,temp,pe,ke,etotal,press\n"
                    f"0,1.44,{tessera_pe!r},{ke!r},{tessera_pe + ke!r},{press!r}\n20,0.7,-5.6,1.0,-4.6,0.9\n")
        with open(os.path.join(d, "t.log"), "w") as f:
            f.write(f"Loop time of 0.25 s for 20 steps with {natoms} atoms\n"
                    "Neighbor list builds: 2; neighbors per atom: 37.5; ghost atoms: 0\n")
        with open(os.path.join(d, "lammps.log"), "w") as f:
            f.write("LAMMPS (29 Sep 2021 - Update 2)\npackage intel 0 mode mixed omp 1\n"
                    "Step Temp PotEng KinEng TotEng Press \n"
                    f"       0 1.44 {lammps_pe!r} {ke!r} {lammps_pe + ke!r} {press!r} \n"
                    "      20 0.7 -5.6 1.0 -4.6 0.9 \n"
                    f"Loop time of 0.3 on 2 procs for 20 steps with {natoms} atoms\n\n"
                    "Neighbor list builds = 1\n")
        r = subprocess.run([sys.executable, RACE, "check", "--tessera", os.path.join(d, "t"),
                            "--lammps", os.path.join(d, "lammps.log"), "--physics", os.path.join(d, "physics"),
                            "--lammps-precision", precision], capture_output=True, text=True)
        return r.returncode, r.stdout + r.stderr

    with tempfile.TemporaryDirectory(prefix=f"race-lcheck-{os.getpid()}-") as d:
        off = pe * (1 + 1e-7)
        got = {"exact, double": run(d, pe, pe, "double"),
               "1e-7, mixed": run(d, pe, off, "mixed"),
               "1e-7, double": run(d, pe, off, "double"),
               "1e-3, mixed": run(d, pe, pe * (1 + 1e-3), "mixed"),
               "Tessera 1e-7, LAMMPS mixed": run(d, off, pe, "mixed"),
               "eam, mixed": run(d, pe, pe, "mixed", "style=eam file=Cu_u3.eam")}
        mismatch = lambda text, who: any(line.strip().startswith(who) and line.endswith("MISMATCH")
                                         for line in text.splitlines())
        checks = [
            (got["exact, double"][0] == 0, "the exact lattice sum fails the double check"),
            (got["1e-7, mixed"][0] == 0 and "LAMMPS mixed pe/atom" in got["1e-7, mixed"][1],
             "a mixed LAMMPS 1e-7 off fails the mixed check, or is not labelled LAMMPS mixed"),
            (got["1e-7, double"][0] == 1 and mismatch(got["1e-7, double"][1], "LAMMPS pe/atom"),
             "a LAMMPS 1e-7 off passes the double check"),
            (got["1e-3, mixed"][0] == 1 and mismatch(got["1e-3, mixed"][1], "LAMMPS mixed pe/atom"),
             "a LAMMPS 1e-3 off passes the mixed check"),
            (got["Tessera 1e-7, LAMMPS mixed"][0] == 1
             and mismatch(got["Tessera 1e-7, LAMMPS mixed"][1], "Tessera pe/atom"),
             "--lammps-precision mixed loosened Tessera's bound too"),
            (got["eam, mixed"][0] != 0 and "mixed-precision LAMMPS" in got["eam, mixed"][1],
             "a mixed LAMMPS was checked on EAM"),
        ]
        return verdict(checks, "\n\n".join(f"{k}: rc {rc}\n{out}" for k, (rc, out) in got.items()),
                       "--lammps-precision mixed: the single-precision bound for LAMMPS only", "check")


def barostat_check():
    """race.py check on the npt case's made-up logs: the last step's volumes
    1e-3 apart pass, 1 % apart fail; on a run of 100 steps or more an
    engine whose volume stayed at the lattice's fails (no barostat), while
    a 20-step check run, where the box barely moves, is not held to it."""
    physics = LJ + " skin=0.3 dt=0.005 every=20 ensemble=npt,iso,T=1.44,Tdamp=0.5,P=5.0,Pdamp=5.0"
    natoms = 32000
    pe, press, ke = lattice_start(physics, natoms)
    v0 = natoms / 0.8442

    def run(d, steps, tessera_vol, lammps_vol):
        with open(os.path.join(d, "physics"), "w") as f:
            f.write(physics + "\n")
        with open(os.path.join(d, "t.csv"), "w") as f:
            f.write("step,temp,pe,ke,etotal,press,vol\n"
                    f"0,1.44,{pe!r},{ke!r},{pe + ke!r},{press!r},{v0!r}\n"
                    f"{steps},1.4,-5.0,2.1,-2.9,5.2,{tessera_vol!r}\n")
        with open(os.path.join(d, "t.log"), "w") as f:
            f.write(f"Loop time of 0.25 s for {steps} steps with {natoms} atoms\n"
                    f"Neighbor list builds: {steps // 20 + 1}; neighbors per atom: 75; ghost atoms: 0\n")
        with open(os.path.join(d, "lammps.log"), "w") as f:
            f.write("LAMMPS (29 Sep 2021 - Update 2)\n"
                    "Step Temp PotEng KinEng TotEng Press Volume \n"
                    f"       0 1.44 {pe!r} {ke!r} {pe + ke!r} {press!r} {v0!r} \n"
                    f"    {steps} 1.4 -5.0 2.1 -2.9 5.2 {lammps_vol!r} \n"
                    f"Loop time of 0.3 on 2 procs for {steps} steps with {natoms} atoms\n\n"
                    f"Neighbor list builds = {steps // 20}\n")
        r = subprocess.run([sys.executable, RACE, "check", "--tessera", os.path.join(d, "t"),
                            "--lammps", os.path.join(d, "lammps.log"), "--physics", os.path.join(d, "physics")],
                           capture_output=True, text=True)
        return r.returncode, r.stdout + r.stderr

    with tempfile.TemporaryDirectory(prefix=f"race-npt-{os.getpid()}-") as d:
        moved = 0.966 * v0
        got = {"1e-3 apart": run(d, 1000, moved, moved * (1 + 1e-3)),
               "1 % apart": run(d, 1000, moved, moved * 1.01),
               "Tessera unmoved": run(d, 1000, v0, v0 * (1 + 1e-4)),
               "20 steps": run(d, 20, v0 * (1 - 4e-4), v0 * (1 - 4e-4))}
        checks = [
            (got["1e-3 apart"][0] == 0 and "last step 1000 volume" in got["1e-3 apart"][1],
             "volumes 1e-3 apart fail the npt check, or it did not run"),
            (got["1 % apart"][0] == 1 and "MISMATCH" in got["1 % apart"][1], "volumes 1 % apart pass"),
            (got["Tessera unmoved"][0] == 1 and "NO BAROSTAT?" in got["Tessera unmoved"][1],
             "a box that stayed at the lattice's volume for 1000 steps passes"),
            (got["20 steps"][0] == 0, "a 20-step check run is held to the 1 % move"),
        ]
        return verdict(checks, "\n\n".join(f"{k}: rc {rc}\n{out}" for k, (rc, out) in got.items()),
                       "npt: the last step's volume against LAMMPS's, and a barostat that moved it", "check")


def host_probe():
    """run.sh's host probe readings (timings' host_ns): the runs read at most
    1.1 x the race's lowest reading are quiet, counted and given their own
    spread beside every run's; timings without readings say so."""
    with tempfile.TemporaryDirectory(prefix=f"race-host-{os.getpid()}-") as d:
        # Tessera's fourth run came in a slow minute (host reading 7.0 ns,
        # over 1.1 x 4.9): three quiet runs at 0.98, 1.0 and 1.02 s.
        times = {"tessera": [(1.0, 5.0), (1.02, 5.1), (0.98, 4.9), (1.5, 7.0)],
                 "omp": [(2.0, 5.0), (2.0, 5.2), (2.1, 5.3), (1.9, 5.0)]}
        rows = ["case\tengine\trep\tloop_s\tsteps\tatoms\thost_ns"]
        for e, runs in times.items():
            for rep, (t, h) in enumerate(runs, 1):
                rows.append(f"32k\t{e}\t{rep}\t{t}\t100\t32000\t{h}")
        got = {}
        for name, body in (("probed", rows), ("unprobed", [r.rsplit("\t", 1)[0] for r in rows])):
            sub = os.path.join(d, name)
            os.makedirs(os.path.join(sub, "32k"))
            with open(os.path.join(sub, "32k", "physics"), "w") as f:
                f.write(LJ + "\n")
            with open(os.path.join(sub, "timings.tsv"), "w") as f:
                f.write("\n".join(body) + "\n")
            out = os.path.join(sub, "race.md")
            r = subprocess.run([sys.executable, RACE, "report", "--timings", os.path.join(sub, "timings.tsv"),
                                "--out", out, "--command", "run.sh (test)", "--commit", "test", "--cores", "2",
                                "--tessera-version", "t", "--lammps-version", "l", "--tessera-cmd", "t",
                                "--tessera-layout", "1 process", "--lammps-cmd", "l", "--load", "0",
                                "--scratch", sub], capture_output=True, text=True)
            if r.returncode != 0:
                print(r.stdout, r.stderr)
                return 1
            got[name] = open(out).read()
        row = lambda text, e: next((line for line in text.splitlines() if line.startswith(f"| 32k | {e} |")), "")
        t, o = row(got["probed"], "Tessera"), row(got["probed"], "LAMMPS omp")
        checks = [
            ("| 3 of 4 | -2.0 / +2.0 % |" in t, f"Tessera's quiet runs: {t}"),
            ("-32.7 / +3.1 %" in t, f"Tessera's spread over every run: {t}"),
            ("| 4 of 4 |" in o, f"LAMMPS's quiet runs: {o}"),
            ("4.90 to 7.00 ns" in got["probed"] and "(7 of 8 runs)" in got["probed"], "the setup's probe line"),
            ("quiet runs" not in row(got["unprobed"], "Tessera") and "Host probe: none" in got["unprobed"],
             "timings without readings"),
        ]
        return verdict(checks, got["probed"] + "\n\n" + got["unprobed"], "host probe: quiet runs and their spread")


if __name__ == "__main__":
    sys.exit(main() or layouts() or ranks() or lammps_mixed() or lammps_mixed_check() or barostat_check()
             or host_probe())
