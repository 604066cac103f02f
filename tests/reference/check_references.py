#!/usr/bin/python3
"""Sanity checks for the Tessera LAMMPS reference files in this directory.

Besides format checks, this recomputes potential energy, forces and pressure
of every run-0 reference with an independent numpy implementation (minimum
image, all pairs within the cutoff) and compares against LAMMPS, and does the
same for g(r) of the binary melt at step 0.
Exits non-zero on any failure. Usage: check_references.py [DIR]
"""
import math
import os
import sys

import numpy as np

N_ATOMS = 2048
RC = 2.5
MAX_TOTAL_BYTES = 3 * 1024 * 1024
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
    """Parse a LAMMPS write_data file (atom_style atomic). Returns dict."""
    with open(path) as f:
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
    with open(path) as f:
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
