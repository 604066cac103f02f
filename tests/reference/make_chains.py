#!/usr/bin/python3
"""Write the random-walk starting configurations of the molecular references.

Usage: make_chains.py chain|mol OUT.data

  chain  320 chains of 100 beads (32,000 atoms), one atom type, bond length
         0.97, number density 0.85, atom_style bond: the system of LAMMPS's
         in.chain benchmark. Bond type 1 (FENE in chain_melt.lmp).
  mol    300 linear molecules of 8, 9, 10, 11, 12, 8, ... beads (3,000
         atoms), types alternating 1, 2, 1, ... along each molecule, number
         density 0.8, atom_style angle. A bond from a type-1 bead to the next
         (type-2) bead is bond type 1 (length 1.0), from a type-2 bead to
         the next is bond type 2 (length 1.1); an angle has the type of its
         middle bead.

The walks overlap freely (only immediate back-folding is avoided: bead i+1
is at least RMIN from bead i-1); *_melt.lmp pushes the overlaps apart with a
ramped soft potential before the real potential is switched on. Python's
random.Random (Mersenne Twister) with a fixed seed and plain float arithmetic,
so the output is the same on every platform. Positions are wrapped into
[0, L) with image flags; numbers are printed as shortest round-trip decimals.
"""
import math
import random
import sys

SYSTEMS = {
    # name: seed, molecule lengths (cycled), molecules, density, bond lengths by bond type, RMIN
    "chain": dict(seed=20211, lengths=[100], nmol=320, density=0.85, ntypes=1,
                  bond_len={1: 0.97}, rmin=1.02, style="bond"),
    "mol": dict(seed=29291, lengths=[8, 9, 10, 11, 12], nmol=300, density=0.8, ntypes=2,
                bond_len={1: 1.0, 2: 1.1}, rmin=1.5, style="angle"),
}


def random_unit(rng):
    z = 2.0 * rng.random() - 1.0
    phi = 2.0 * math.pi * rng.random()
    s = math.sqrt(max(0.0, 1.0 - z * z))
    return (s * math.cos(phi), s * math.sin(phi), z)


def wrap(x, L):
    n = math.floor(x / L)
    w = x - n * L
    if w >= L:  # rounding
        w -= L
        n += 1
    if w < 0.0:
        w += L
        n -= 1
    return w, n


def build(name):
    s = SYSTEMS[name]
    rng = random.Random(s["seed"])
    lengths = [s["lengths"][m % len(s["lengths"])] for m in range(s["nmol"])]
    natoms = sum(lengths)
    L = (natoms / s["density"]) ** (1.0 / 3.0)
    atoms, bonds, angles = [], [], []
    aid = 0
    for mol, n in enumerate(lengths, start=1):
        pos = [(L * rng.random(), L * rng.random(), L * rng.random())]
        types = [1]
        for k in range(1, n):
            types.append(1 if s["ntypes"] == 1 else (1 if k % 2 == 0 else 2))
            btype = 1 if s["ntypes"] == 1 else types[k - 1]
            b = s["bond_len"][btype]
            while True:
                u = random_unit(rng)
                p = tuple(pos[-1][d] + b * u[d] for d in range(3))
                if k < 2 or math.dist(p, pos[-2]) >= s["rmin"]:
                    break
            pos.append(p)
        first = aid + 1
        for k in range(n):
            aid += 1
            w = [wrap(pos[k][d], L) for d in range(3)]
            atoms.append((aid, mol, types[k], w))
        for k in range(n - 1):
            btype = 1 if s["ntypes"] == 1 else types[k]
            bonds.append((btype, first + k, first + k + 1))
        if s["style"] == "angle":
            for k in range(1, n - 1):
                angles.append((types[k], first + k - 1, first + k, first + k + 1))
    return s, L, atoms, bonds, angles


def write(name, path):
    s, L, atoms, bonds, angles = build(name)
    out = [f"Tessera reference start: {name} random walks (make_chains.py, seed {s['seed']})", ""]
    out.append(f"{len(atoms)} atoms")
    out.append(f"{len(bonds)} bonds")
    if s["style"] == "angle":
        out.append(f"{len(angles)} angles")
    out.append(f"{s['ntypes']} atom types")
    out.append(f"{len(s['bond_len'])} bond types")
    if s["style"] == "angle":
        out.append(f"{s['ntypes']} angle types")
    out.append("")
    for ax in "xyz":
        out.append(f"0 {L!r} {ax}lo {ax}hi")
    out += ["", "Masses", ""]
    out += [f"{t} {float(t)!r}" for t in range(1, s["ntypes"] + 1)]  # masses 1.0 (and 2.0)
    out += ["", f"Atoms # {s['style']}", ""]
    for aid, mol, t, w in atoms:
        out.append(f"{aid} {mol} {t} {w[0][0]!r} {w[1][0]!r} {w[2][0]!r} {w[0][1]} {w[1][1]} {w[2][1]}")
    out += ["", "Bonds", ""]
    out += [f"{k} {t} {i} {j}" for k, (t, i, j) in enumerate(bonds, start=1)]
    if s["style"] == "angle":
        out += ["", "Angles", ""]
        out += [f"{k} {t} {i} {j} {m}" for k, (t, i, j, m) in enumerate(angles, start=1)]
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in SYSTEMS:
        sys.exit(__doc__)
    write(sys.argv[1], sys.argv[2])
