#!/usr/bin/python3
"""Extract the thermo block of a LAMMPS log into CSV.

Usage: extract_thermo.py LOG OUT.csv

Expects exactly one run in LOG with a `thermo_style custom step ...` of
the keywords in COLUMNS (step temp pe ke etotal press, or the pressure
tensor's pxx ... pyz, vol lx ly lz ecouple econserve, and ebond eangle evdwl), and copies the numbers verbatim (they are already
printed with %.17g), so the CSV holds exactly what LAMMPS printed.
"""
import sys

# LAMMPS's thermo header word -> the CSV column (the thermo_style keyword).
COLUMNS = {"Step": "step", "Temp": "temp", "PotEng": "pe", "KinEng": "ke", "TotEng": "etotal", "Press": "press",
           "Pxx": "pxx", "Pyy": "pyy", "Pzz": "pzz", "Pxy": "pxy", "Pxz": "pxz", "Pyz": "pyz", "Volume": "vol",
           "Lx": "lx", "Ly": "ly", "Lz": "lz", "Ecouple": "ecouple", "Econserve": "econserve", "Density": "density",
           "E_bond": "ebond", "E_angle": "eangle", "E_vdwl": "evdwl"}


def main(log_path, csv_path):
    rows = []
    blocks = 0
    in_block = False
    header = None
    with open(log_path) as f:
        for line in f:
            words = line.split()
            if words and words[0] == "Step" and all(w in COLUMNS for w in words):
                blocks += 1
                in_block = True
                header = words
                continue
            if not in_block:
                continue
            if line.startswith("Loop time"):
                in_block = False
                continue
            if line.startswith("WARNING"):
                sys.stderr.write(f"{log_path}: {line}")
                continue
            if len(words) != len(header):
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
        out.write(",".join(COLUMNS[w] for w in header) + "\n")
        for r in rows:
            out.write(r + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
