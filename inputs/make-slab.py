#!/usr/bin/python3
"""Writes the LAMMPS data file of inputs/lj-slab.yaml: an fcc film in the
middle of a box that is longer along z, with vacuum above and below.

A deck's `system.lattice` always fills the whole box, so a film with vacuum
around it has to come from a data file. The committed lj-slab.data is the
output of this script with its defaults:

    python3 inputs/make-slab.py > inputs/lj-slab.data

--cells NX NY NZ: fcc unit cells of the film; --density: its number
density (sets the lattice constant a = (4/density)^(1/3)); --vacuum: the box
is this many times the film's thickness along z (the film in the middle).
"""

import argparse
import sys


def slab(cells, density, vacuum):
    a = (4.0 / density) ** (1.0 / 3.0)
    nx, ny, nz = cells
    lz = vacuum * nz * a
    z0 = 0.5 * (lz - nz * a)  # film centred along z
    basis = ((0.0, 0.0, 0.0), (0.5, 0.5, 0.0), (0.5, 0.0, 0.5), (0.0, 0.5, 0.5))
    atoms = []
    # Same order as a deck lattice (basis fastest, then x, y, z), so ids
    # match what `lattice:` would number.
    for k in range(nz):
        for j in range(ny):
            for i in range(nx):
                for bx, by, bz in basis:
                    atoms.append(((i + bx) * a, (j + by) * a, z0 + (k + bz) * a))
    return (nx * a, ny * a, lz), atoms


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cells", type=int, nargs=3, default=[8, 8, 8], metavar=("NX", "NY", "NZ"))
    p.add_argument("--density", type=float, default=0.8442)
    p.add_argument("--vacuum", type=float, default=3.0)
    a = p.parse_args()
    if min(a.cells) < 1 or a.density <= 0 or a.vacuum < 1:
        p.error("cells must be >= 1, density > 0 and vacuum >= 1")
    box, atoms = slab(a.cells, a.density, a.vacuum)
    out = sys.stdout
    out.write(f"LJ slab: fcc film {a.cells[0]}x{a.cells[1]}x{a.cells[2]} cells at density {a.density:g}, "
              f"box {a.vacuum:g} times the film along z (inputs/make-slab.py)\n\n")
    out.write(f"{len(atoms)} atoms\n1 atom types\n")
    for lo_hi, length in zip(("xlo xhi", "ylo yhi", "zlo zhi"), box):
        out.write(f"0 {length:.12g} {lo_hi}\n")
    out.write("\nMasses\n\n1 1.0\n\nAtoms # atomic\n\n")
    for n, (x, y, z) in enumerate(atoms, start=1):
        out.write(f"{n} 1 {x:.12g} {y:.12g} {z:.12g}\n")


if __name__ == "__main__":
    main()
