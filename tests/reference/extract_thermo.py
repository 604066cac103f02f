#!/usr/bin/python3
"""Extract the thermo block of a LAMMPS log into CSV.

Usage: extract_thermo.py LOG OUT.csv

Expects exactly one run in LOG with
    thermo_style custom step temp pe ke etotal press
and copies the numbers verbatim (they are already printed with %.17g),
so the CSV holds exactly what LAMMPS printed.
"""
import sys

HEADER_LOG = ["Step", "Temp", "PotEng", "KinEng", "TotEng", "Press"]
HEADER_CSV = "step,temp,pe,ke,etotal,press"


def main(log_path, csv_path):
    rows = []
    blocks = 0
    in_block = False
    with open(log_path) as f:
        for line in f:
            words = line.split()
            if words == HEADER_LOG:
                blocks += 1
                in_block = True
                continue
            if not in_block:
                continue
            if line.startswith("Loop time"):
                in_block = False
                continue
            if line.startswith("WARNING"):
                sys.stderr.write(f"{log_path}: {line}")
                continue
            if len(words) != len(HEADER_LOG):
                sys.exit(f"{log_path}: unexpected line in thermo block: {line!r}")
            int(words[0])
            for w in words[1:]:
                float(w)
            rows.append(",".join(words))
    if blocks != 1:
        sys.exit(f"{log_path}: expected exactly one thermo block, found {blocks}")
    if in_block:
        sys.exit(f"{log_path}: thermo block not terminated (run did not finish?)")
    with open(csv_path, "w") as out:
        out.write(HEADER_CSV + "\n")
        for r in rows:
            out.write(r + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
