#!/usr/bin/python3
"""Writes the LAMMPS data file of inputs/lj-slab.yaml: an fcc film in the
middle of a box that is longer along z, with vacuum above and below (and,
with --constant and --no-masses, the copper block of
inputs/cu-melt-recrystallise.sh).

A deck's `system.lattice` always fills the whole box, so a film with vacuum
around it has to come from a data file. The committed lj-slab.data is the
output of this script with its defaults:

    python3 inputs/make-slab.py > inputs/lj-slab.data

--cells NX NY NZ: fcc unit cells of the film; --density: its number
density (sets the lattice constant a = (4/density)^(1/3)), or --constant:
the lattice constant itself (3.615 for copper in A); --vacuum: the box is
this many times the film's thickness along z (the film in the middle);
--no-masses: no Masses section, for a potential whose file gives the masses
(EAM: docs/deck.md, system.masses).
"""

import argparse
import sys


def slab(cells, a, vacuum):
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
    p.add_argument("--constant", type=float, help="lattice constant (instead of --density)")
    p.add_argument("--vacuum", type=float, default=3.0)
    p.add_argument("--no-masses", action="store_true", help="leave out the Masses section")
    a = p.parse_args()
    if min(a.cells) < 1 or a.density <= 0 or a.vacuum < 1 or (a.constant is not None and a.constant <= 0):
        p.error("cells must be >= 1, density and constant > 0 and vacuum >= 1")
    lattice = a.constant if a.constant is not None else (4.0 / a.density) ** (1.0 / 3.0)
    box, atoms = slab(a.cells, lattice, a.vacuum)
    out = sys.stdout
    film = f"fcc film {a.cells[0]}x{a.cells[1]}x{a.cells[2]} cells"
    if a.constant is None:
        out.write(f"LJ slab: {film} at density {a.density:g}, ")
    else:
        out.write(f"Slab: {film}, lattice constant {a.constant:g}, ")
    out.write(f"box {a.vacuum:g} times the film along z (inputs/make-slab.py)\n\n")
    out.write(f"{len(atoms)} atoms\n1 atom types\n")
    for lo_hi, length in zip(("xlo xhi", "ylo yhi", "zlo zhi"), box):
        out.write(f"0 {length:.12g} {lo_hi}\n")
    if not a.no_masses:
        out.write("\nMasses\n\n1 1.0\n")
    out.write("\nAtoms # atomic\n\n")
    for n, (x, y, z) in enumerate(atoms, start=1):
        out.write(f"{n} 1 {x:.12g} {y:.12g} {z:.12g}\n")


if __name__ == "__main__":
    main()
