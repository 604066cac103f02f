#!/usr/bin/python3
"""Reads back the text trajectories of a tessera run and compares them with its H5MD trajectory.

usage: exports_check.py TRAJ.h5md DUMP XYZ DT [NAME ...]

TRAJ.h5md, DUMP (output.dump) and XYZ (output.xyz) come from one run that wrote all three at the same
steps; the H5MD file must hold every per-atom field the text files hold (position, velocity, force,
image). NAME... are output.xyz.species (one per type), if the deck gave them.

Each file is read by readers other than tessera's:
  - the dump with a plain float64 parse and with MDAnalysis (format LAMMPSDUMP);
  - the extended XYZ with a plain float64 parse, ASE's extxyz reader (when NAMEs are given: ASE
    takes species for element symbols) and MDAnalysis (format XYZ).
The float64 readers must give back the H5MD values bit for bit (positions, unwrapped positions up to
one rounding, image flags, velocities, forces), and the same steps, times, box, ids and types.
MDAnalysis keeps float32, so there the values must agree to 1e-6 relative.

Run with Debian's /usr/bin/python3 (python3-h5py, python3-mdanalysis, python3-ase). Exits 0 when
everything matches, 1 on a mismatch, 2 on bad usage or unreadable input.
"""
import re
import sys
import warnings


from h5md_check import Mismatch, fail_unless  # next to this script


def text_lines(path):
    """The lines of a text trajectory; a whole one ends with a newline."""
    with open(path) as f:
        lines = f.read().split("\n")
    fail_unless(lines[-1] == "", f"{path}: does not end with a newline")
    return lines[:-1]


def worst_relative(got, want, np):
    """Largest |got - want| over the largest |want| of the same frame (0 when equal)."""
    scale = max(float(np.max(np.abs(want))), 1e-300)
    return float(np.max(np.abs(np.asarray(got, dtype=np.float64) - want))) / scale


def read_h5md(path, h5py, np):
    out = {}
    with h5py.File(path, "r") as f:
        p = f["particles/trajectory"]
        out["step"] = p["position/step"][()].tolist()
        out["time"] = p["position/time"][()]
        edges = p["box/edges/value"][()]
        out["edges"] = np.array([np.diag(e) for e in edges])
        out["id"] = p["id"][()]
        out["type"] = p["species"][()]
        for name in ("position", "velocity", "force", "image"):
            if name in p:
                fail_unless(p[name + "/step"][()].tolist() == out["step"], f"{path}: {name} has other steps")
                out[name] = p[name + "/value"][()]
    return out


def read_dump_plain(path, np):
    """A LAMMPS text dump, frame by frame, every number as float64 (ids, types, image flags as ints)."""
    frames, lines, k = [], text_lines(path), 0
    while k < len(lines):
        fail_unless(lines[k] == "ITEM: TIMESTEP", f"{path}:{k + 1}: expected ITEM: TIMESTEP, got {lines[k]!r}")
        step = int(lines[k + 1])
        fail_unless(lines[k + 2] == "ITEM: NUMBER OF ATOMS", f"{path}:{k + 3}: expected ITEM: NUMBER OF ATOMS")
        n = int(lines[k + 3])
        fail_unless(lines[k + 4] == "ITEM: BOX BOUNDS pp pp pp", f"{path}:{k + 5}: expected periodic box bounds")
        bounds = np.array([[float(v) for v in lines[k + 5 + d].split()] for d in range(3)])
        header = lines[k + 8].split()
        fail_unless(header[:2] == ["ITEM:", "ATOMS"], f"{path}:{k + 9}: expected ITEM: ATOMS")
        columns = header[2:]
        rows = [line.split() for line in lines[k + 9:k + 9 + n]]
        fail_unless(len(rows) == n and all(len(r) == len(columns) for r in rows),
                    f"{path}: frame at step {step}: expected {n} rows of {len(columns)} columns")
        table = {c: [r[i] for r in rows] for i, c in enumerate(columns)}
        frame = {"step": step, "n": n, "bounds": bounds, "columns": columns}
        for c, values in table.items():
            whole = c in ("id", "type", "ix", "iy", "iz")
            frame[c] = np.array([int(v) for v in values] if whole else [float(v) for v in values])
        frames.append(frame)
        k += 9 + n
    return frames


def stack(frame, names, np):
    return np.stack([frame[c] for c in names], axis=1)


def check_dump(path, ref, np, mda):
    frames = read_dump_plain(path, np)
    steps = [fr["step"] for fr in frames]
    fail_unless(steps == ref["step"], f"{path}: steps {steps}, the H5MD trajectory has {ref['step']}")
    n = len(ref["id"])
    columns = frames[0]["columns"]
    fail_unless(columns[:2] == ["id", "type"], f"{path}: columns {columns} do not start with id type")
    groups = ((("x", "y", "z"), "position"), (("vx", "vy", "vz"), "velocity"), (("fx", "fy", "fz"), "force"),
              (("ix", "iy", "iz"), "image"))
    compared = [field for cols, field in groups if cols[0] in columns]
    for f, fr in enumerate(frames):
        fail_unless(fr["n"] == n, f"{path}: step {fr['step']}: {fr['n']} atoms, expected {n}")
        fail_unless(fr["columns"] == columns, f"{path}: step {fr['step']}: columns changed")
        lengths = fr["bounds"][:, 1] - fr["bounds"][:, 0]
        fail_unless(np.array_equal(lengths, ref["edges"][f]),
                    f"{path}: step {fr['step']}: box lengths {lengths}, H5MD {ref['edges'][f]}")
        fail_unless(np.array_equal(fr["id"], ref["id"]), f"{path}: step {fr['step']}: ids differ from H5MD's")
        fail_unless(np.array_equal(fr["type"], ref["type"]), f"{path}: step {fr['step']}: types differ")
        for cols, field in groups:
            if cols[0] not in columns:
                continue
            got = stack(fr, cols, np)
            fail_unless(got.tobytes() == np.asarray(ref[field][f], dtype=got.dtype).tobytes(),
                        f"{path}: step {fr['step']}: {' '.join(cols)} differ from the H5MD {field} "
                        f"(max relative {worst_relative(got, ref[field][f], np):.3g})")
        if "xu" in columns:
            want = ref["position"][f] + ref["image"][f] * ref["edges"][f][np.newaxis, :]
            rel = worst_relative(stack(fr, ("xu", "yu", "zu"), np), want, np)
            fail_unless(rel <= 1e-15, f"{path}: step {fr['step']}: xu yu zu differ from position + image * box "
                        f"by {rel:.3g} relative")
    print(f"dump (float64): {len(frames)} frames of {n} atoms, steps {steps}; ids, types, box and "
          f"{', '.join(compared)} equal to the H5MD values bit for bit"
          f"{'; xu yu zu = position + image * box' if 'xu' in columns else ''}")

    u = mda.Universe(path, format="LAMMPSDUMP", topology_format="LAMMPSDUMP")
    fail_unless(u.atoms.n_atoms == n, f"MDAnalysis: {u.atoms.n_atoms} atoms in {path}, expected {n}")
    fail_unless(u.trajectory.n_frames == len(ref["step"]), f"MDAnalysis: {u.trajectory.n_frames} frames")
    fail_unless(np.array_equal(u.atoms.ids, ref["id"]), "MDAnalysis: ids differ")
    fail_unless([int(t) for t in u.atoms.types] == ref["type"].tolist(), "MDAnalysis: types differ")
    worst = 0.0
    for f, ts in enumerate(u.trajectory):
        fail_unless(int(ts.data["step"]) == ref["step"][f], f"MDAnalysis: frame {f} has step {ts.data['step']}")
        # MDAnalysis moves each frame's box to the origin, the atoms with it
        # (a barostat's box keeps its centre, so its lower corner moves).
        lo = frames[f]["bounds"][:, 0]
        box = np.asarray(ts.dimensions, dtype=np.float64)
        fail_unless(np.allclose(box[3:], 90.0) and np.all(np.abs(box[:3] / ref["edges"][f] - 1) <= 1e-6),
                    f"MDAnalysis: frame {f}: box {box}, expected {ref['edges'][f]}")
        for field, got, present in (("position", ts.positions + lo, True),
                                    ("velocity", ts.velocities if ts.has_velocities else None, "vx" in columns),
                                    ("force", ts.forces if ts.has_forces else None, "fx" in columns)):
            if not present:
                continue
            fail_unless(got is not None, f"MDAnalysis: frame {f} has no {field}")
            rel = worst_relative(got, ref[field][f], np)
            fail_unless(rel <= 1e-6, f"MDAnalysis: frame {f}: {field} off by {rel:.3g} relative (> 1e-6)")
            worst = max(worst, rel)
    print(f"dump (MDAnalysis LAMMPSDUMP): {u.trajectory.n_frames} frames, steps, ids, types and box as in H5MD; "
          f"positions{', velocities' if 'vx' in columns else ''}{', forces' if 'fx' in columns else ''} "
          f"within {worst:.2g} relative (float32)")


def read_xyz_plain(path, np):
    """An extended XYZ file, frame by frame: the comment line's key=value pairs and the columns its
    Properties name (R as float64, I as int, S as str)."""
    frames, lines, k = [], text_lines(path), 0
    while k < len(lines):
        n = int(lines[k])
        info = dict(re.findall(r'(\w+)=("[^"]*"|\S+)', lines[k + 1]))
        info = {key: value.strip('"') for key, value in info.items()}
        spec = info["Properties"].split(":")
        rows = [line.split() for line in lines[k + 2:k + 2 + n]]
        frame, col = {"n": n, "info": info}, 0
        for name, kind, width in zip(spec[0::3], spec[1::3], (int(w) for w in spec[2::3])):
            convert = {"R": float, "I": int, "S": str}[kind]
            values = [[convert(r[col + c]) for c in range(width)] for r in rows]
            frame[name] = np.array(values) if kind != "S" else [v[0] for v in values]
            col += width
        fail_unless(all(len(r) == col for r in rows), f"{path}: a row of the frame at line {k + 1} is not {col} wide")
        frames.append(frame)
        k += 2 + n
    return frames


def check_xyz(path, ref, dt, names, np, mda, ase_read):
    n = len(ref["id"])
    species = [names[t - 1] if names else str(t) for t in ref["type"]]
    columns = {"pos": "position", "velo": "velocity", "forces": "force", "map_shift": "image"}
    frames = read_xyz_plain(path, np)
    fail_unless(len(frames) == len(ref["step"]), f"{path}: {len(frames)} frames, expected {len(ref['step'])}")
    for f, fr in enumerate(frames):
        info, step = fr["info"], ref["step"][f]
        fail_unless(fr["n"] == n, f"{path}: frame {f} has {fr['n']} atoms, expected {n}")
        fail_unless(int(info["Step"]) == step, f"{path}: frame {f} has Step={info['Step']}, expected {step}")
        fail_unless(float(info["Time"]) == step * dt == ref["time"][f],
                    f"{path}: frame {f} has Time={info['Time']}, expected step * dt = {step * dt!r}")
        lattice = np.array([float(v) for v in info["Lattice"].split()]).reshape(3, 3)
        fail_unless(np.array_equal(lattice, np.diag(ref["edges"][f])), f"{path}: frame {f}: Lattice {lattice}")
        fail_unless(info["pbc"] == "T T T", f"{path}: frame {f}: pbc={info['pbc']}")
        fail_unless(fr["species"] == species, f"{path}: frame {f}: species differ from the deck's types")
        for name, field in columns.items():
            if name in fr:
                fail_unless(np.array_equal(fr[name], ref[field][f]),
                            f"{path}: frame {f}: {name} differs from the H5MD {field} "
                            f"(max relative {worst_relative(fr[name], ref[field][f], np):.3g})")
    present = [field for name, field in columns.items() if name in frames[0]]
    print(f"xyz (float64): {len(frames)} frames of {n} atoms; Step, Time = step * dt, Lattice, pbc, species and "
          f"{', '.join(present)} equal to the H5MD values bit for bit")

    if names:
        frames = ase_read(path, index=":", format="extxyz")
        fail_unless(len(frames) == len(ref["step"]), f"ASE: {len(frames)} frames in {path}")
        compared = set()
        for f, a in enumerate(frames):
            step = ref["step"][f]
            fail_unless(a.info.get("Step") == step and a.info.get("Time") == ref["time"][f],
                        f"ASE: frame {f} has Step={a.info.get('Step')} Time={a.info.get('Time')!r}")
            fail_unless(len(a) == n and a.pbc.all() and np.array_equal(a.cell.array, np.diag(ref["edges"][f])),
                        f"ASE: frame {f}: {len(a)} atoms, pbc {a.pbc}, cell {a.cell}")
            fail_unless(a.get_chemical_symbols() == species, f"ASE: frame {f}: species differ from the deck's types")
            fields = [("position", a.positions)]
            if "velo" in a.arrays:
                fields.append(("velocity", a.arrays["velo"]))
            if a.calc is not None and "forces" in a.calc.results:
                fields.append(("force", a.calc.results["forces"]))
            if "map_shift" in a.arrays:
                fields.append(("image", a.arrays["map_shift"]))
            for field, got in fields:
                fail_unless(np.array_equal(got, ref[field][f]),
                            f"ASE: frame {f}: {field} differs from the H5MD values "
                            f"(max relative {worst_relative(got, ref[field][f], np):.3g})")
                compared.add(field)
        print(f"xyz (ASE extxyz): {len(frames)} frames; Step, Time, cell, pbc, species and "
              f"{', '.join(sorted(compared))} equal to the H5MD values bit for bit")
    else:
        print("xyz (ASE extxyz): not read: ASE takes species for element symbols, and these are type numbers")

    u = mda.Universe(path, format="XYZ", topology_format="XYZ")
    fail_unless(u.atoms.n_atoms == n and u.trajectory.n_frames == len(ref["step"]),
                f"MDAnalysis: {u.atoms.n_atoms} atoms, {u.trajectory.n_frames} frames in {path}")
    fail_unless(list(u.atoms.names) == species, "MDAnalysis: atom names differ from the species")
    worst = 0.0
    for f, ts in enumerate(u.trajectory):
        worst = max(worst, worst_relative(ts.positions, ref["position"][f], np))
    fail_unless(worst <= 1e-6, f"MDAnalysis: xyz positions off by {worst:.3g} relative (> 1e-6)")
    print(f"xyz (MDAnalysis XYZ): {u.trajectory.n_frames} frames, names and positions within {worst:.2g} (float32)")


def main(argv):
    if len(argv) < 5:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    h5md, dump, xyz, dt, names = argv[1], argv[2], argv[3], float(argv[4]), argv[5:]
    warnings.simplefilter("ignore")  # MDAnalysis' import-time deprecation noise
    try:
        import h5py
        import numpy as np
        import MDAnalysis as mda
        from ase.io import read as ase_read
        ref = read_h5md(h5md, h5py, np)
        check_dump(dump, ref, np, mda)
        check_xyz(xyz, ref, dt, names, np, mda, ase_read)
    except Mismatch as e:
        print(f"exports_check: FAILED: {e}", file=sys.stderr)
        return 1
    except Exception as e:  # the readers' own errors: the file is not what they expect
        print(f"exports_check: cannot read the input: {type(e).__name__}: {e}", file=sys.stderr)
        return 2
    print("exports_check: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
