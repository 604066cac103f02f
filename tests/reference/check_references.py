#!/usr/bin/python3
"""Sanity checks for the Tessera LAMMPS reference files in this directory.

Besides format checks, this recomputes potential energy, forces and pressure
of every run-0 reference with an independent numpy implementation (minimum
image, all pairs within the cutoff) and compares against LAMMPS, and does the
same for g(r) of the binary melt at step 0. For the molecular references
(chain_*, mol_*) it recomputes, at step 0, the bond, angle and pair energies,
every atom's force and the pressure from the data file (bonds, angles and
special_bonds factors from the topology), with a numpy cell list.
Exits non-zero on any failure. Usage: check_references.py [DIR]
"""
import gzip
import math
import os
import sys

import numpy as np

N_ATOMS = 2048
RC = 2.5
# The atomic references take about 3 MB; the molecular ones about 6 MB more
# (the 32,000-atom chain melt and its forces are gzipped).
MAX_TOTAL_BYTES = 10 * 1024 * 1024
# NVE sanity bound: max |E(t) - E(0)| / |E(0)| over the 1000 steps (per-atom
# etotal). With an unshifted cutoff at 2.5 the energy jumps whenever a pair
# crosses r_c, so fluctuations of ~1e-3 absolute (~8e-4 relative) are normal
# for these systems at dt = 0.005; this only catches blow-ups / wrong setups.
NVE_REL_TOL = 2e-3

failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL:", msg)
    return cond


def read_data(path):
    """Parse a LAMMPS write_data file (plain or .gz). Returns dict."""
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        lines = [l.rstrip("\n") for l in f]
    d = {"sections": []}
    i = 1  # line 0 is the title
    # header
    while i < len(lines):
        s = lines[i].split("#")[0].strip()
        w = s.split()
        if not s:
            i += 1
            continue
        if w[-1] == "atoms":
            d["natoms"] = int(w[0])
        elif w[-2:] == ["atom", "types"]:
            d["ntypes"] = int(w[0])
        elif len(w) == 2 and w[1] in ("bonds", "angles", "dihedrals", "impropers"):
            d["n" + w[1]] = int(w[0])
        elif len(w) == 3 and w[2] == "types" and w[1] in ("bond", "angle", "dihedral", "improper"):
            d["n" + w[1] + "_types"] = int(w[0])
        elif w[-2:] == ["xlo", "xhi"]:
            d["box"] = [(float(w[0]), float(w[1]))]
        elif w[-2:] in (["ylo", "yhi"], ["zlo", "zhi"]):
            d["box"].append((float(w[0]), float(w[1])))
        elif w[-3:] == ["xy", "xz", "yz"]:
            d["tilt"] = True
        else:
            break
        i += 1
    # sections
    while i < len(lines):
        head = lines[i].strip()
        if not head:
            i += 1
            continue
        name = head.split("#")[0].strip()
        d["sections"].append(head)
        i += 1
        assert lines[i].strip() == "", f"{path}: no blank line after {head}"
        i += 1
        rows = []
        while i < len(lines) and lines[i].strip():
            rows.append(lines[i].split())
            i += 1
        d[name] = rows
    return d


def read_dump(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        lines = f.read().splitlines()
    assert lines[0] == "ITEM: TIMESTEP", lines[0]
    assert lines[2] == "ITEM: NUMBER OF ATOMS", lines[2]
    n = int(lines[3])
    assert lines[4].startswith("ITEM: BOX BOUNDS"), lines[4]
    box = [tuple(map(float, lines[5 + k].split())) for k in range(3)]
    cols = lines[8].split()[2:]
    assert cols == ["id", "type", "x", "y", "z", "fx", "fy", "fz"], cols
    body = lines[9:]
    assert len(body) == n, (len(body), n)
    arr = np.array([l.split() for l in body], dtype=float)
    return int(lines[1]), n, box, arr


def read_csv(path):
    with open(path) as f:
        header = f.readline().strip()
        rows = [l.strip().split(",") for l in f if l.strip()]
    return header, np.array(rows, dtype=float)


def pair_eval(pos, types, box_len, kind, params, shift=False):
    """Return (pe_total, forces[N,3], virial_scalar W = sum_pairs r.f)."""
    n = len(pos)
    f = np.zeros_like(pos)
    pe = 0.0
    w = 0.0
    for i in range(n - 1):
        d = pos[i] - pos[i + 1:]
        d -= box_len * np.round(d / box_len)
        r2 = np.einsum("ij,ij->i", d, d)
        m = r2 < RC * RC
        if not m.any():
            continue
        d = d[m]
        r2 = r2[m]
        tj = types[i + 1:][m]
        ti = types[i]
        if kind == "lj":
            eps = params["eps"][ti, tj]
            sig = params["sig"][ti, tj]
            sr6 = (sig * sig / r2) ** 3
            e = 4.0 * eps * (sr6 * sr6 - sr6)
            if shift:
                src6 = (sig / RC) ** 6
                e -= 4.0 * eps * (src6 * src6 - src6)
            fpair = 24.0 * eps * (2.0 * sr6 * sr6 - sr6) / r2
        elif kind == "lj_smooth":
            # Force-shifted: E - E(rc) - (r - rc) E'(rc), force F - F(rc).
            eps = params["eps"][ti, tj]
            sig = params["sig"][ti, tj]
            r = np.sqrt(r2)
            sr6 = (sig * sig / r2) ** 3
            src6 = (sig / RC) ** 6
            f_rc = 24.0 * eps * (2.0 * src6 * src6 - src6) / RC
            e = (4.0 * eps * (sr6 * sr6 - sr6) - 4.0 * eps * (src6 * src6 - src6)
                 + (r - RC) * f_rc)
            fpair = (24.0 * eps * (2.0 * sr6 * sr6 - sr6) / r - f_rc) / r
        elif kind == "morse":
            d0, a, r0 = params["d0"], params["alpha"], params["r0"]
            r = np.sqrt(r2)
            e1 = np.exp(-a * (r - r0))
            e = d0 * (e1 * e1 - 2.0 * e1)
            if shift:
                ec = math.exp(-a * (RC - r0))
                e -= d0 * (ec * ec - 2.0 * ec)
            fpair = 2.0 * a * d0 * (e1 * e1 - e1) / r
        else:
            raise ValueError(kind)
        fv = d * fpair[:, None]
        f[i] += fv.sum(axis=0)
        np.subtract.at(f, np.nonzero(m)[0] + i + 1, fv)
        pe += e.sum()
        w += (fpair * r2).sum()
    return pe, f, w


SYSTEMS = {
    "lj": dict(kind="lj", masses={1: 1.0},
               params=dict(eps=np.array([[0, 0], [0, 1.0]]),
                           sig=np.array([[0, 0], [0, 1.0]]))),
    "lj_smooth": dict(kind="lj_smooth", data="lj", masses={1: 1.0},
                      params=dict(eps=np.array([[0, 0], [0, 1.0]]),
                                  sig=np.array([[0, 0], [0, 1.0]]))),
    "morse": dict(kind="morse", masses={1: 1.0},
                  params=dict(d0=1.0, alpha=3.0, r0=1.2)),
    "mix": dict(kind="lj", masses={1: 1.0, 2: 2.0},
                params=dict(
                    # Lorentz-Berthelot: eps_ij = sqrt(eps_i eps_j),
                    # sig_ij = (sig_i + sig_j)/2; cutoff 2.5 for all pairs
                    eps=np.array([[0, 0, 0],
                                  [0, 1.0, math.sqrt(1.0 * 0.5)],
                                  [0, math.sqrt(1.0 * 0.5), 0.5]]),
                    sig=np.array([[0, 0, 0],
                                  [0, 1.0, 0.5 * (1.0 + 1.2)],
                                  [0, 0.5 * (1.0 + 1.2), 1.2]]))),
}


def rel(a, b):
    return abs(a - b) / max(1.0, abs(b))


def read_rdf_blocks(path):
    """fix ave/time vector output: per sample 'step rows', then the rows."""
    with open(path) as f:
        lines = [l.split() for l in f if not l.startswith("#")]
    blocks, k = {}, 0
    while k < len(lines):
        step, rows = int(lines[k][0]), int(lines[k][1])
        blocks[step] = np.array(lines[k + 1:k + 1 + rows], dtype=float)
        k += 1 + rows
    return blocks


def check_analysis():
    """mix_rdf.txt at step 0 against a numpy minimum-image pair count on
    mix_melt.data (ordered pairs, ideal-gas normalisation with N_b - [a == b]
    neighbours); mix_msd.txt for its internal consistency."""
    print("== mix_rdf.txt, mix_msd.txt")
    d = read_data("mix_melt.data")
    a = np.array(d["Atoms"], dtype=float)
    a = a[np.argsort(a[:, 0])]
    pos, types = a[:, 2:5], a[:, 1].astype(int)
    L = d["box"][0][1]
    blocks = read_rdf_blocks("mix_rdf.txt")
    check(sorted(blocks) == [0, 50, 100], f"mix_rdf.txt: steps {sorted(blocks)}")
    table = blocks[0]
    nbins = len(table)
    check(table.shape == (50, 13), f"mix_rdf.txt: rows of shape {table.shape}")
    edges = np.linspace(0.0, RC, nbins + 1)
    check(np.allclose(table[:, 1], 0.5 * (edges[1:] + edges[:-1]), rtol=1e-14), "mix_rdf.txt: bin centres")
    shell = 4.0 / 3.0 * np.pi * (edges[1:] ** 3 - edges[:-1] ** 3)
    count = {0: N_ATOMS, 1: int(np.sum(types == 1)), 2: int(np.sum(types == 2))}
    hist = {key: np.zeros(nbins) for key in [(0, 0), (1, 1), (1, 2), (2, 1), (2, 2)]}
    for i in range(N_ATOMS):
        dx = pos - pos[i]
        dx -= L * np.round(dx / L)
        r = np.sqrt(np.sum(dx * dx, axis=1))
        near = (r < RC) & (np.arange(N_ATOMS) != i)
        b = np.minimum((r[near] * (nbins / RC)).astype(int), nbins - 1)
        hist[(0, 0)] += np.bincount(b, minlength=nbins)
        for t in (1, 2):
            hist[(types[i], t)] += np.bincount(b[types[near] == t], minlength=nbins)
    worst = 0.0
    for col, key in zip((2, 5, 7, 9, 11), [(0, 0), (1, 1), (1, 2), (2, 1), (2, 2)]):
        c, n = key
        g = hist[key] / (count[c] * (count[n] - (c == n)) * shell / L ** 3)
        worst = max(worst, float(np.max(np.abs(g - table[:, col]) / np.maximum(g, 1.0))))
        coord = np.cumsum(hist[key]) / count[c]
        worst = max(worst, float(np.max(np.abs(coord - table[:, col + 1]) / np.maximum(coord, 1.0))))
    print(f"  step 0: numpy pair count vs LAMMPS g(r) and coordination, max rel diff {worst:.2e}")
    check(worst < 1e-10, f"mix_rdf.txt: numpy g(r) differs by {worst}")
    m = np.loadtxt("mix_msd.txt", comments="#")
    check(m.shape == (11, 13) and np.array_equal(m[:, 0], np.arange(0, 101, 10)), f"mix_msd.txt: shape {m.shape}")
    check(np.all(m[0, 1:] == 0), "mix_msd.txt: MSD at step 0 is not 0")
    for k in (1, 5, 9):
        check(np.allclose(m[:, k + 3], m[:, k:k + 3].sum(axis=1), rtol=1e-12), "mix_msd.txt: total != x + y + z")
    mixed = (count[1] * m[:, 8] + count[2] * m[:, 12]) / N_ATOMS
    check(np.allclose(m[:, 4], mixed, rtol=1e-12), "mix_msd.txt: all-atom MSD is not the mean of the types'")
    print(f"  MSD total at step 100: {m[-1, 4]:.6g} (type 1 {m[-1, 8]:.6g}, type 2 {m[-1, 12]:.6g})")


# ---------------------------------------------------------------- molecules

WCA_RC = 2.0 ** (1.0 / 6.0)  # the chain's LJ cutoff, 1.122462048309373
# Per-step bound on max |E(t) - E(0)| (per-atom etotal) over the 100 NVE
# steps of the molecular references; only catches blow-ups / wrong setups.
MOL_NVE_ABS_TOL = 5e-3

MOLECULAR = {
    # name: data file, thermo csv, forces dump, bond/angle styles and coefficients (as the .lmp), pair, special
    "chain": dict(data="chain_melt.data.gz", csv="chain_nve_100.csv", dump="chain_forces.dump.gz",
                  natoms=32000, nmol=320, lengths=[100], ntypes=1, masses={1: 1.0},
                  bond_style="fene", bond_coeffs={1: (30.0, 1.5, 1.0, 1.0)}, angle_style=None,
                  eps=np.array([[0, 0], [0, 1.0]]), sig=np.array([[0, 0], [0, 1.0]]), rc=WCA_RC, shift=True,
                  special=(0.0, 1.0, 1.0),
                  sections=["Masses", "Pair Coeffs # lj/cut", "Bond Coeffs # fene", "Atoms # bond", "Velocities",
                            "Bonds"]),
}
_MOL_COMMON = dict(data="mol_melt.data", natoms=3000, nmol=300, lengths=[8, 9, 10, 11, 12], ntypes=2,
                   masses={1: 1.0, 2: 2.0}, bond_style="harmonic", bond_coeffs={1: (200.0, 1.0), 2: (150.0, 1.1)},
                   eps=np.array([[0, 0, 0], [0, 1.0, 0.9], [0, 0.9, 0.8]]),
                   sig=np.array([[0, 0, 0], [0, 1.0, 1.05], [0, 1.05, 1.1]]), rc=2.5, shift=False,
                   special=(0.0, 0.5, 0.8),
                   sections=["Masses", "PairIJ Coeffs # lj/cut", "Bond Coeffs # harmonic", "Angle Coeffs # harmonic",
                             "Atoms # angle", "Velocities", "Bonds", "Angles"])
for _name, _style, _coeffs in (("mol_harmonic", "harmonic", {1: (50.0, 110.0), 2: (40.0, 120.0)}),
                               ("mol_cosine", "cosine", {1: (20.0,), 2: (15.0,)}),
                               ("mol_cosine_squared", "cosine/squared", {1: (30.0, 110.0), 2: (25.0, 120.0)})):
    MOLECULAR[_name] = dict(_MOL_COMMON, csv=f"{_name}_nve_100.csv", dump=f"{_name}_forces.dump",
                            angle_style=_style, angle_coeffs=_coeffs)
MOLECULAR["mol_harmonic_excl"] = dict(MOLECULAR["mol_harmonic"], csv="mol_harmonic_excl_run0.csv",
                                      dump="mol_harmonic_excl_forces.dump", special=(0.0, 0.0, 0.0))


def cell_pairs(pos, L, rc):
    """All pairs i < j with minimum-image distance below rc in a cubic box
    [0, L)^3, by a cell list: (i, j, d = x_i - x_j, r2)."""
    nc = int(L // rc)
    assert nc >= 3 and rc < 0.5 * L
    cell = np.floor(pos * (nc / L)).astype(np.int64) % nc
    cid = (cell[:, 0] * nc + cell[:, 1]) * nc + cell[:, 2]
    order = np.argsort(cid, kind="stable")
    counts = np.bincount(cid, minlength=nc ** 3)
    start = np.concatenate(([0], np.cumsum(counts)[:-1]))
    ii, jj = [], []
    for off in np.array(np.meshgrid([-1, 0, 1], [-1, 0, 1], [-1, 0, 1])).T.reshape(-1, 3):
        nb = (cell + off) % nc
        nid = (nb[:, 0] * nc + nb[:, 1]) * nc + nb[:, 2]
        cnt = counts[nid]
        for k in range(int(cnt.max())):
            i = np.nonzero(cnt > k)[0]
            j = order[start[nid[i]] + k]
            keep = i < j
            ii.append(i[keep])
            jj.append(j[keep])
    i, j = np.concatenate(ii), np.concatenate(jj)
    d = pos[i] - pos[j]
    d -= L * np.round(d / L)
    r2 = np.einsum("ij,ij->i", d, d)
    m = r2 < rc * rc
    return i[m], j[m], d[m], r2[m]


def special_levels(n, bonds):
    """1-2, 1-3, 1-4 partners from the bond graph (each atom at its lowest
    level, as LAMMPS's special list): dict (i, j) with i < j -> 1, 2 or 3."""
    nbr = [set() for _ in range(n)]
    for i, j in bonds:
        nbr[i].add(j)
        nbr[j].add(i)
    level = {}
    for i in range(n):
        s12 = nbr[i]
        s13 = set().union(*(nbr[j] for j in s12)) - s12 - {i}
        s14 = set().union(*(nbr[j] for j in s13)) - s13 - s12 - {i}
        for lev, group in ((1, s12), (2, s13), (3, s14)):
            for j in group:
                if i < j:
                    level[(i, j)] = lev
    return level


def molecular_eval(spec, pos, types, L, bonds, btypes, angles, atypes):
    """Independent pe parts, forces and virial W (sum over terms of r.f)."""
    n = len(pos)
    f = np.zeros_like(pos)
    # ---- pair: LJ with the special factors (factor 0 = pair removed)
    i, j, d, r2 = cell_pairs(pos, L, spec["rc"])
    level = special_levels(n, bonds)
    factor = np.ones(len(i))
    if level:
        keys = np.array([a * n + b for a, b in level], dtype=np.int64)
        levs = np.array(list(level.values()))
        srt = np.argsort(keys)
        keys, levs = keys[srt], levs[srt]
        pk = i.astype(np.int64) * n + j
        pos_k = np.minimum(np.searchsorted(keys, pk), len(keys) - 1)
        hit = keys[pos_k] == pk
        fac = np.array([1.0] + list(spec["special"]))
        factor[hit] = fac[levs[pos_k[hit]]]
    eps = spec["eps"][types[i], types[j]]
    sig = spec["sig"][types[i], types[j]]
    sr6 = (sig * sig / r2) ** 3
    e = 4.0 * eps * (sr6 * sr6 - sr6)
    if spec["shift"]:
        src6 = (sig / spec["rc"]) ** 6
        e -= 4.0 * eps * (src6 * src6 - src6)
    fpair = factor * 24.0 * eps * (2.0 * sr6 * sr6 - sr6) / r2
    evdwl = float(np.sum(factor * e))
    w = float(np.sum(fpair * r2))
    np.add.at(f, i, d * fpair[:, None])
    np.subtract.at(f, j, d * fpair[:, None])
    # ---- bonds
    bi, bj = bonds[:, 0], bonds[:, 1]
    d = pos[bi] - pos[bj]
    d -= L * np.round(d / L)
    r2 = np.einsum("ij,ij->i", d, d)
    r = np.sqrt(r2)
    c = np.array([spec["bond_coeffs"][t] for t in btypes])
    if spec["bond_style"] == "fene":
        k, r0, beps, bsig = c.T
        arg = 1.0 - r2 / (r0 * r0)
        assert np.all(arg > 0.1), "a FENE bond in the clamped range"
        eb = -0.5 * k * r0 * r0 * np.log(arg)
        fb = -k / arg
        wca = r2 < 2.0 ** (1.0 / 3.0) * bsig * bsig
        sr6 = (bsig * bsig / r2) ** 3
        eb += np.where(wca, 4.0 * beps * (sr6 * sr6 - sr6) + beps, 0.0)
        fb += np.where(wca, 48.0 * beps * sr6 * (sr6 - 0.5) / r2, 0.0)
    else:  # harmonic: K (r - r0)^2
        k, r0 = c.T
        eb = k * (r - r0) ** 2
        fb = -2.0 * k * (r - r0) / r
    ebond = float(eb.sum())
    w += float(np.sum(fb * r2))
    np.add.at(f, bi, d * fb[:, None])
    np.subtract.at(f, bj, d * fb[:, None])
    # ---- angles: E(c), c = cos theta; forces from dE/dc
    eangle = 0.0
    if spec["angle_style"]:
        a1, a2, a3 = angles[:, 0], angles[:, 1], angles[:, 2]
        r1 = pos[a1] - pos[a2]
        r1 -= L * np.round(r1 / L)
        r2v = pos[a3] - pos[a2]
        r2v -= L * np.round(r2v / L)
        l1 = np.sqrt(np.einsum("ij,ij->i", r1, r1))
        l2 = np.sqrt(np.einsum("ij,ij->i", r2v, r2v))
        cs = np.clip(np.einsum("ij,ij->i", r1, r2v) / (l1 * l2), -1.0, 1.0)
        c = np.array([spec["angle_coeffs"][t] for t in atypes])
        style = spec["angle_style"]
        if style == "harmonic":  # K (theta - theta0)^2, theta0 in degrees
            th = np.arccos(cs)
            dth = th - c[:, 1] * (math.pi / 180.0)
            ea = c[:, 0] * dth * dth
            dedc = -2.0 * c[:, 0] * dth / np.maximum(np.sqrt(1.0 - cs * cs), 0.001)
        elif style == "cosine":  # K (1 + cos theta)
            ea = c[:, 0] * (1.0 + cs)
            dedc = c[:, 0]
        elif style == "cosine/squared":  # K (cos theta - cos theta0)^2
            dc = cs - np.cos(c[:, 1] * (math.pi / 180.0))
            ea = c[:, 0] * dc * dc
            dedc = 2.0 * c[:, 0] * dc
        else:
            raise ValueError(style)
        f1 = -dedc[:, None] * (r2v / (l1 * l2)[:, None] - cs[:, None] * r1 / (l1 * l1)[:, None])
        f3 = -dedc[:, None] * (r1 / (l1 * l2)[:, None] - cs[:, None] * r2v / (l2 * l2)[:, None])
        np.add.at(f, a1, f1)
        np.add.at(f, a3, f3)
        np.subtract.at(f, a2, f1 + f3)
        eangle = float(ea.sum())
        w += float(np.sum(r1 * f1) + np.sum(r2v * f3))
    return ebond, eangle, evdwl, f, w


def check_molecular():
    """The chain_* and mol_* references: data file layout and topology,
    thermo CSVs (pe = ebond + eangle + evdwl, energy conservation), and the
    step-0 energies, forces and pressure against molecular_eval."""
    loaded = {}
    rows0 = {}
    for name, spec in MOLECULAR.items():
        print(f"== {name}")
        n = spec["natoms"]
        if spec["data"] not in loaded:
            d = read_data(spec["data"])
            check(d.get("natoms") == n and d.get("ntypes") == spec["ntypes"],
                  f"{spec['data']}: {d.get('natoms')} atoms, {d.get('ntypes')} types")
            check(d["sections"] == spec["sections"], f"{spec['data']}: sections {d['sections']}")
            masses = {int(r[0]): float(r[1]) for r in d["Masses"]}
            check(masses == spec["masses"], f"{spec['data']}: masses {masses}")
            bc = {int(r[0]): tuple(map(float, r[1:])) for r in d["Bond Coeffs"]}
            check(bc == spec["bond_coeffs"], f"{spec['data']}: Bond Coeffs {bc}")
            if "Angle Coeffs" in d:
                ac = {int(r[0]): tuple(map(float, r[1:])) for r in d["Angle Coeffs"]}
                check(ac == MOLECULAR["mol_harmonic"]["angle_coeffs"], f"{spec['data']}: Angle Coeffs {ac}")
            if "PairIJ Coeffs" in d:
                for r in d["PairIJ Coeffs"]:
                    a, b = int(r[0]), int(r[1])
                    check([float(x) for x in r[2:]] == [spec["eps"][a, b], spec["sig"][a, b], spec["rc"]],
                          f"{spec['data']}: PairIJ Coeffs row {r}")
            atoms = np.array(d["Atoms"], dtype=float)
            check(atoms.shape == (n, 9), f"{spec['data']}: Atoms rows must be 'id mol type x y z ix iy iz'")
            atoms = atoms[np.argsort(atoms[:, 0])]
            check(np.array_equal(atoms[:, 0], np.arange(1, n + 1)), f"{spec['data']}: atom ids")
            L = d["box"][0][1]
            check(all(b == (0.0, L) for b in d["box"]), f"{spec['data']}: box {d['box']}")
            pos = atoms[:, 3:6]
            check(np.all(pos >= 0) and np.all(pos < L), f"{spec['data']}: positions outside [0, L)")
            # molecules: consecutive ids, lengths cycling through spec["lengths"]
            lengths = [spec["lengths"][m % len(spec["lengths"])] for m in range(spec["nmol"])]
            mol = np.repeat(np.arange(1, spec["nmol"] + 1), lengths)
            check(np.array_equal(atoms[:, 1], mol), f"{spec['data']}: molecule ids")
            types = atoms[:, 2].astype(int)
            v = np.array(d["Velocities"], dtype=float)
            v = v[np.argsort(v[:, 0])]
            check(v.shape == (n, 4) and np.array_equal(v[:, 0], atoms[:, 0]), f"{spec['data']}: Velocities")
            mass = np.array([masses[t] for t in types])
            ke = 0.5 * np.sum(mass[:, None] * v[:, 1:4] ** 2)
            p_tot = np.linalg.norm(np.sum(mass[:, None] * v[:, 1:4], axis=0))
            b = np.array(d["Bonds"], dtype=np.int64)
            check(d.get("nbonds") == len(b) == n - spec["nmol"], f"{spec['data']}: {len(b)} bonds")
            bonds = b[:, 2:4] - 1
            check(np.all(np.abs(bonds[:, 1] - bonds[:, 0]) == 1) and np.all(mol[bonds[:, 0]] == mol[bonds[:, 1]]),
                  f"{spec['data']}: bonds are not along the chains")
            check(len({tuple(sorted(x)) for x in bonds.tolist()}) == len(bonds), f"{spec['data']}: duplicate bonds")
            btypes = b[:, 1]
            if spec["ntypes"] == 2:  # bond type = type of the lower-id atom, atom types alternate 1, 2, 1, ...
                first = np.concatenate(([0], np.cumsum(lengths)[:-1]))
                check(np.array_equal(types, 1 + (np.arange(n) - np.repeat(first, lengths)) % 2),
                      f"{spec['data']}: types do not alternate 1, 2 along molecules")
                check(np.array_equal(btypes, types[np.minimum(bonds[:, 0], bonds[:, 1])]),
                      f"{spec['data']}: bond types")
            angles, atypes = np.zeros((0, 3), dtype=np.int64), np.zeros(0, dtype=np.int64)
            if "Angles" in d:
                an = np.array(d["Angles"], dtype=np.int64)
                angles, atypes = an[:, 2:5] - 1, an[:, 1]
                check(d.get("nangles") == len(an) == n - 2 * spec["nmol"], f"{spec['data']}: {len(an)} angles")
                check(np.all(np.abs(angles[:, 1] - angles[:, 0]) == 1) and
                      np.all(angles[:, 2] - angles[:, 1] == angles[:, 1] - angles[:, 0]) and
                      np.all(mol[angles[:, 0]] == mol[angles[:, 2]]), f"{spec['data']}: angles not along chains")
                check(np.array_equal(atypes, types[angles[:, 1]]), f"{spec['data']}: angle type = middle atom's type")
            dd = pos[bonds[:, 0]] - pos[bonds[:, 1]]
            dd -= L * np.round(dd / L)
            blen = np.sqrt(np.einsum("ij,ij->i", dd, dd))
            print(f"  data: L={L!r}, type counts {np.bincount(types)[1:].tolist()}, {len(b)} bonds "
                  f"(length {blen.min():.4f}..{blen.max():.4f}), {len(angles)} angles, "
                  f"|P_total| {p_tot:.2e}")
            check(p_tot < 1e-9, f"{spec['data']}: net momentum {p_tot}")
            loaded[spec["data"]] = (L, atoms, pos, types, ke, bonds, btypes, angles, atypes)
        L, atoms, pos, types, ke, bonds, btypes, angles, atypes = loaded[spec["data"]]
        t_data = 2.0 * ke / (3 * n - 3)

        # ---- thermo
        h, r = read_csv(spec["csv"])
        cols = ["step", "temp", "pe", "ke", "etotal", "press", "ebond"] + \
               (["eangle"] if spec["angle_style"] else []) + ["evdwl"]
        check(h == ",".join(cols), f"{spec['csv']} header {h!r}")
        nrows = 1 if spec["csv"].endswith("_run0.csv") else 101
        check(r.shape == (nrows, len(cols)), f"{spec['csv']} shape {r.shape}")
        check(np.array_equal(r[:, 0], np.arange(nrows)) and np.isfinite(r).all(), f"{spec['csv']}: steps/finite")
        c = {k: r[:, m] for m, k in enumerate(cols)}
        parts = c["ebond"] + c["evdwl"] + (c["eangle"] if "eangle" in c else 0.0)
        check(np.all(np.abs(parts - c["pe"]) <= 1e-12 * np.maximum(1.0, np.abs(c["pe"]))),
              f"{spec['csv']}: pe != ebond + eangle + evdwl")
        check(np.all(np.abs(c["etotal"] - c["pe"] - c["ke"]) <= 1e-12 * np.maximum(1.0, np.abs(c["etotal"]))),
              f"{spec['csv']}: etotal != pe + ke")
        check(rel(c["temp"][0], t_data) < 1e-12 and rel(c["ke"][0], ke / n) < 1e-12,
              f"{spec['csv']}: step-0 temp/ke {c['temp'][0]} vs data {t_data}")
        rows0[name] = r[0]
        if nrows > 1:
            drift = np.abs(c["etotal"] - c["etotal"][0]).max()
            print(f"  {spec['csv']}: etotal {c['etotal'][0]!r} -> {c['etotal'][-1]!r}, max|E-E0| {drift:.2e}, "
                  f"T {c['temp'][0]:.4f} -> {c['temp'][-1]:.4f}")
            check(drift < MOL_NVE_ABS_TOL, f"{spec['csv']}: energy drift {drift}")

        # ---- step-0 forces
        ts, nd, _, fd = read_dump(spec["dump"])
        check(ts == 0 and nd == n and np.array_equal(fd[:, 0], np.arange(1, n + 1)),
              f"{spec['dump']}: step {ts}, {nd} atoms, sorted by id")
        check(np.array_equal(fd[:, 1], atoms[:, 2]) and np.array_equal(fd[:, 2:5], pos),
              f"{spec['dump']}: types/positions differ from the data file")
        fmag = np.abs(fd[:, 5:8]).max()
        fsum = np.abs(fd[:, 5:8].sum(axis=0)).max()
        check(fsum < 1e-12 * n * fmag, f"{spec['dump']}: net force {fsum}")

        # ---- independent recomputation
        eb, ea, ev, f_np, w = molecular_eval(spec, pos, types, L, bonds, btypes, angles, atypes)
        p_np = ((3 * n - 3) * c["temp"][0] + w) / (3.0 * L ** 3)
        fmax = np.abs(f_np - fd[:, 5:8]).max()
        print(f"  step 0: pe={c['pe'][0]:.12f} ebond={c['ebond'][0]:.12f} "
              + (f"eangle={c['eangle'][0]:.12f} " if "eangle" in c else "")
              + f"evdwl={c['evdwl'][0]:.12f} press={c['press'][0]:.10f}")
        print(f"  numpy vs LAMMPS: |debond|={abs(eb / n - c['ebond'][0]):.1e} "
              f"|deangle|={abs(ea / n - c['eangle'][0]) if 'eangle' in c else 0:.1e} "
              f"|devdwl|={abs(ev / n - c['evdwl'][0]):.1e} |dpress|={abs(p_np - c['press'][0]):.1e} "
              f"max|dF|={fmax:.1e} (max|F|={fmag:.1f}), |sum F|={fsum:.1e}")
        check(rel(eb / n, c["ebond"][0]) < 1e-10, f"{name}: numpy ebond {eb / n}")
        if "eangle" in c:
            check(rel(ea / n, c["eangle"][0]) < 1e-10, f"{name}: numpy eangle {ea / n}")
        check(rel(ev / n, c["evdwl"][0]) < 1e-10, f"{name}: numpy evdwl {ev / n}")
        check(rel(p_np, c["press"][0]) < 1e-10, f"{name}: numpy press {p_np}")
        check(fmax < 1e-10 * max(1.0, fmag), f"{name}: numpy forces differ by {fmax}")

    # the exclusion variant changes only the pair part
    a, b = rows0["mol_harmonic"], rows0["mol_harmonic_excl"]
    check(np.array_equal(a[[0, 1, 3, 6, 7]], b[[0, 1, 3, 6, 7]]) and a[8] != b[8],
          "mol_harmonic_excl_run0.csv: step/temp/ke/ebond/eangle must equal mol_harmonic's step 0, evdwl differ")
    for other in ("mol_cosine", "mol_cosine_squared"):
        check(np.array_equal(rows0[other][[0, 1, 3, 6, 8]], a[[0, 1, 3, 6, 8]]),
              f"{other}: step-0 temp/ke/ebond/evdwl must equal mol_harmonic's")


def check_fene_clamp():
    """fene_clamp.txt: LAMMPS's FENE energy and force against the formula
    with the log's argument a = 1 - (r/R0)^2 replaced by SMALL = 0.1 when
    a < 0.1 (the clamp of LAMMPS 29 Sep 2021; newer versions may differ)."""
    print("== fene_clamp.txt")
    k, r0, small = 30.0, 1.5, 0.1
    t = np.loadtxt("fene_clamp.txt", comments="#")
    check(t.shape == (9, 4), f"fene_clamp.txt: shape {t.shape}")
    for a, r, e, fx in t:
        arg = max(1.0 - (r / r0) ** 2, small)  # the WCA part is zero at these r
        check(rel(e, -0.5 * k * r0 * r0 * math.log(arg)) < 1e-12, f"fene_clamp.txt: a={a} ebond {e}")
        check(rel(fx, -k / arg * r) < 1e-12, f"fene_clamp.txt: a={a} fx {fx}")
    clamped = t[t[:, 0] < small]
    check(np.all(clamped[:, 2] == clamped[0, 2]), "fene_clamp.txt: clamped energies differ")
    print(f"  clamped for a < 0.1 ({len(clamped)} of {len(t)} rows): ebond {clamped[0, 2]!r} = "
          f"-0.5 K R0^2 ln(0.1); a = 0.105 and 0.1001 are not clamped")


def main(ref):
    os.chdir(ref)
    csv_header = "step,temp,pe,ke,etotal,press"
    run0 = {}
    for name, spec in SYSTEMS.items():
        print(f"== {name}")
        # ---- data file
        d = read_data(f"{spec.get('data', name)}_melt.data")
        ntypes = len(spec["masses"])
        check(d.get("natoms") == N_ATOMS, f"{name}: natoms {d.get('natoms')}")
        check(d.get("ntypes") == ntypes, f"{name}: ntypes {d.get('ntypes')}")
        check(d["sections"] == ["Masses", "Atoms # atomic", "Velocities"],
              f"{name}: sections {d['sections']}")
        masses = {int(r[0]): float(r[1]) for r in d["Masses"]}
        check(masses == spec["masses"], f"{name}: masses {masses}")
        atoms = d["Atoms"]
        check(len(atoms) == N_ATOMS and all(len(r) == 8 for r in atoms),
              f"{name}: Atoms rows must be 'id type x y z ix iy iz'")
        a = np.array(atoms, dtype=float)
        ids = a[:, 0].astype(int)
        check(sorted(ids) == list(range(1, N_ATOMS + 1)), f"{name}: atom ids")
        check(np.all(a[:, 5:8] == np.round(a[:, 5:8])), f"{name}: image flags")
        check(np.isfinite(a).all(), f"{name}: non-finite in Atoms")
        box = np.array(d["box"])
        check(np.all(box[:, 0] == 0.0) and np.all(box[:, 1] == box[0, 1]),
              f"{name}: box not cubic from origin: {box}")
        L = box[0, 1]
        check(np.all(a[:, 2:5] >= 0.0) and np.all(a[:, 2:5] < L),
              f"{name}: positions outside box")
        order = np.argsort(ids)
        a = a[order]
        v = np.array(d["Velocities"], dtype=float)
        check(v.shape == (N_ATOMS, 4), f"{name}: Velocities shape {v.shape}")
        v = v[np.argsort(v[:, 0])]
        check(np.all(v[:, 0] == a[:, 0]), f"{name}: velocity ids")
        types = a[:, 1].astype(int)
        mass = np.array([masses[t] for t in types])
        ke_tot = 0.5 * np.sum(mass[:, None] * v[:, 1:4] ** 2)
        t_data = 2.0 * ke_tot / (3 * N_ATOMS - 3)
        p_tot = np.sum(mass[:, None] * v[:, 1:4], axis=0)
        print(f"  data: L={L!r}, type counts {np.bincount(types)[1:].tolist()}, "
              f"T from velocities {t_data:.6f}, |P_total| {np.linalg.norm(p_tot):.2e}, "
              f"ids in file order: {bool(np.all(ids == np.arange(1, N_ATOMS + 1)))}, "
              f"nonzero image flags: {int(np.count_nonzero(a[:, 5:8]))}")

        # ---- run 0 csv
        h, r = read_csv(f"{name}_run0.csv")
        check(h == csv_header, f"{name}_run0.csv header {h!r}")
        check(r.shape == (1, 6), f"{name}_run0.csv shape {r.shape}")
        step, temp, pe, ke, et, press = r[0]
        run0[name] = r[0]
        check(step == 0 and np.isfinite(r).all(), f"{name}_run0.csv step/finite")
        check(rel(temp, t_data) < 1e-12, f"{name}: run0 temp {temp} vs data {t_data}")
        check(rel(ke, ke_tot / N_ATOMS) < 1e-12, f"{name}: run0 ke {ke}")
        check(rel(et, pe + ke) < 1e-12, f"{name}: etotal != pe + ke")

        # ---- dump
        ts, n, dbox, fd = read_dump(f"{name}_forces.dump")
        check(ts == 0 and n == N_ATOMS, f"{name}_forces.dump ts={ts} n={n}")
        check(np.all(fd[:, 0] == np.arange(1, N_ATOMS + 1)), f"{name}: dump not sorted by id")
        check(np.isfinite(fd).all(), f"{name}: non-finite in dump")
        check(np.all(fd[:, 1] == a[:, 1]), f"{name}: dump types differ from data")
        check(np.array_equal(fd[:, 2:5], a[:, 2:5]),
              f"{name}: dump positions not bit-identical to data file")
        fsum = np.abs(fd[:, 5:8].sum(axis=0)).max()
        check(fsum < 1e-9, f"{name}: net force {fsum}")

        # ---- independent recomputation
        pos = a[:, 2:5]
        pe_np, f_np, w_np = pair_eval(pos, types, L, spec["kind"], spec["params"])
        vol = L ** 3
        p_np = ((3 * N_ATOMS - 3) * temp + w_np) / (3.0 * vol)
        fmax = np.abs(f_np - fd[:, 5:8]).max()
        print(f"  run0: T={temp:.10f} pe={pe:.12f} etotal={et:.12f} press={press:.10f}")
        print(f"  numpy vs LAMMPS: |dpe|={abs(pe_np / N_ATOMS - pe):.2e} "
              f"|dpress|={abs(p_np - press):.2e} max|dF|={fmax:.2e} "
              f"(max|F|={np.abs(fd[:, 5:8]).max():.3f}), |sum F|={fsum:.2e}")
        check(rel(pe_np / N_ATOMS, pe) < 1e-10, f"{name}: numpy pe {pe_np / N_ATOMS} vs {pe}")
        check(rel(p_np, press) < 1e-10, f"{name}: numpy press {p_np} vs {press}")
        check(fmax < 1e-9, f"{name}: numpy forces differ by {fmax}")

        # ---- pressure tensor (mix and morse): the same run 0, its trace
        # over 3 is the scalar pressure
        if name in ("mix", "morse"):
            h, rt = read_csv(f"{name}_tensor_run0.csv")
            check(h == "step,press,pxx,pyy,pzz,pxy,pxz,pyz" and rt.shape == (1, 8), f"{name}_tensor_run0.csv format")
            t = rt[0]
            check(t[1] == press, f"{name}: tensor run press {t[1]} vs run0 {press}")
            check(rel((t[2] + t[3] + t[4]) / 3, press) < 1e-12, f"{name}: trace/3 of the tensor vs press")

        if name == "lj":
            h, rs = read_csv("lj_shift_run0.csv")
            check(h == csv_header and rs.shape == (1, 6), "lj_shift_run0.csv format")
            s = rs[0]
            pe_s, _, _ = pair_eval(pos, types, L, "lj", spec["params"], shift=True)
            print(f"  shift run0: pe={s[2]:.12f} (unshifted {pe:.12f}), "
                  f"numpy |dpe|={abs(pe_s / N_ATOMS - s[2]):.2e}")
            check(rel(pe_s / N_ATOMS, s[2]) < 1e-10, f"lj_shift: numpy pe {pe_s / N_ATOMS} vs {s[2]}")
            check(s[2] > pe, "lj_shift: shifted pe should be above unshifted")
            check(s[0] == 0 and s[1] == temp and s[3] == ke and s[5] == press,
                  "lj_shift: step/temp/ke/press should equal unshifted run0")
            check(rel(s[4], s[2] + s[3]) < 1e-12, "lj_shift: etotal != pe + ke")

    # ---- NVE trajectories
    for name in ("lj", "lj_smooth", "morse"):
        path = f"{name}_nve_1000.csv"
        h, r = read_csv(path)
        check(h == csv_header, f"{path} header {h!r}")
        check(r.shape == (1001, 6), f"{path} shape {r.shape}")
        check(np.array_equal(r[:, 0], np.arange(1001)), f"{path}: steps not 0..1000")
        check(np.isfinite(r).all(), f"{path}: non-finite")
        check(np.array_equal(r[0], run0[name]), f"{path}: row 0 differs from {name}_run0.csv")
        e = r[:, 4]
        drift = np.abs(e - e[0]).max()
        print(f"== {path}: etotal first {e[0]!r} last {e[-1]!r} "
              f"max|E-E0| {drift:.2e} (rel {drift / abs(e[0]):.2e}), "
              f"T range [{r[:, 1].min():.4f}, {r[:, 1].max():.4f}]")
        check(drift / abs(e[0]) < NVE_REL_TOL, f"{path}: energy drift {drift}")

    check_analysis()
    check_molecular()
    check_fene_clamp()

    total = sum(os.path.getsize(p) for p in os.listdir(".") if os.path.isfile(p))
    print(f"== total size of {os.getcwd()}: {total} bytes")
    check(total < MAX_TOTAL_BYTES, f"directory too large: {total}")

    if failures:
        print(f"{len(failures)} check(s) FAILED")
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))))
