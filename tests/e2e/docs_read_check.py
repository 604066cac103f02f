#!/usr/bin/python3
"""Runs the MDAnalysis reads the docs show, as written, on a run's output, and checks what they read.

usage: docs_read_check.py SOURCE_DIR RUN_DIR CHECKPOINT.h5

Every line of README.md and docs/*.md that opens an MDAnalysis Universe on an H5MD trajectory is run exactly
as the docs print it:
a ```python block holding one is executed whole (its print output hidden), and a `mda.Universe(...)` quoted
in the text is evaluated alone, both in RUN_DIR, where the run wrote run.h5md and its topology run.data (other names a line uses, such as
melt.h5md, are linked to those two).
Each Universe must hold what the engine wrote: the trajectory's atom count, frames, steps, times, box edges
and positions (to MDAnalysis's float32), and the ids and types of particles/trajectory; its last frame must
be the checkpoint's state (step, box, positions). At least one read must be in docs/checkpoints.md.

Run with Debian's /usr/bin/python3 (MDAnalysis 2.4.2, h5py). Exit 0: all match; 1: a mismatch; 2: bad usage.
"""
import contextlib
import glob
import io
import os
import re
import sys
import warnings

INLINE = re.compile(r"`(mda\.Universe\([^`]*\.h5md[^`]*\))`")
BLOCK = re.compile(r"mda\.Universe\([^)]*\.h5md")


class Mismatch(Exception):
    pass


def fail_unless(ok, message):
    if not ok:
        raise Mismatch(message)


def documented_reads(src):
    """(where, kind, code): every python block that opens a Universe, and every Universe quoted in the text."""
    reads = []
    for path in [os.path.join(src, "README.md")] + sorted(glob.glob(os.path.join(src, "docs", "*.md"))):
        rel = os.path.relpath(path, src)
        lines = open(path, encoding="utf-8").read().split("\n")
        block, start = None, 0
        for n, line in enumerate(lines, 1):
            if block is None and line.strip() == "```python":
                block, start = [], n
            elif block is not None and line.strip() == "```":
                code = "\n".join(block)
                if BLOCK.search(code):
                    reads.append((f"{rel}:{start}", "block", code))
                block = None
            elif block is not None:
                block.append(line)
            else:
                reads += [(f"{rel}:{n}", "inline", m) for m in INLINE.findall(line)]
    return reads


def link_names(code):
    """The docs may name a run's files after their example ("melt.h5md"): link those names to this run's
    run.h5md and run.data, so the line runs unchanged."""
    for name in re.findall(r"[\"']([^\"']+\.(h5md|data))[\"']", code):
        path, ext = name
        if not os.path.exists(path):
            os.symlink("run." + ext, path)


def engine_wrote(h5py, np, traj, checkpoint):
    with h5py.File(traj, "r") as f:
        p = f["particles/trajectory"]
        wrote = {"position": p["position/value"][()], "step": p["position/step"][()],
                 "time": p["position/time"][()], "edges": p["box/edges/value"][()],
                 "id": p["id"][()], "species": p["species"][()]}
    with h5py.File(checkpoint, "r") as f:
        wrote["ck_step"] = int(f["state"].attrs["step"])
        wrote["ck_edges"] = f["box/hi"][()] - f["box/lo"][()]
        wrote["ck_position"] = f["atoms/position"][()]
    return wrote


def check_universe(where, u, wrote, np):
    position = wrote["position"]
    frames, n_atoms = position.shape[0], position.shape[1]
    fail_unless(u.atoms.n_atoms == n_atoms, f"{where}: {u.atoms.n_atoms} atoms, the trajectory has {n_atoms}")
    fail_unless(u.trajectory.n_frames == frames, f"{where}: {u.trajectory.n_frames} frames, the file has {frames}")
    fail_unless(np.array_equal(u.atoms.ids, wrote["id"]), f"{where}: atom ids differ from particles/trajectory/id")
    fail_unless(list(u.atoms.types) == [str(t) for t in wrote["species"]],
                f"{where}: atom types differ from particles/trajectory/species")
    for ts in u.trajectory:
        k = ts.frame
        edges = np.diag(wrote["edges"][k])
        fail_unless(int(ts.data["step"]) == wrote["step"][k] and abs(ts.time - wrote["time"][k]) <= 1e-12,
                    f"{where}: frame {k} at step {ts.data['step']}, time {ts.time}; the file says "
                    f"{wrote['step'][k]}, {wrote['time'][k]}")
        fail_unless(np.allclose(ts.dimensions[:3], edges, rtol=1e-6, atol=0) and np.allclose(ts.dimensions[3:], 90),
                    f"{where}: frame {k} box {ts.dimensions}, the file's edges {edges}")
        err = np.abs(np.asarray(ts.positions, dtype=np.float64) - position[k]).max() / edges.max()
        fail_unless(err <= 1e-6, f"{where}: frame {k} positions differ from the file's by {err:.3g} of the box")
    ts = u.trajectory[-1]
    fail_unless(int(ts.data["step"]) == wrote["ck_step"],
                f"{where}: the last frame is at step {ts.data['step']}, the checkpoint at {wrote['ck_step']}")
    fail_unless(np.allclose(ts.dimensions[:3], wrote["ck_edges"], rtol=1e-6, atol=0),
                f"{where}: last box {ts.dimensions[:3]}, the checkpoint's {wrote['ck_edges']}")
    err = np.abs(np.asarray(ts.positions, dtype=np.float64) - wrote["ck_position"]).max() / wrote["ck_edges"].max()
    fail_unless(err <= 1e-6, f"{where}: last positions differ from the checkpoint's by {err:.3g} of the box")
    return frames, n_atoms, err


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    src, run_dir, checkpoint = (os.path.abspath(a) for a in argv[1:4])
    warnings.simplefilter("ignore")  # MDAnalysis' import-time deprecation noise
    import h5py
    import numpy as np
    import MDAnalysis as mda

    reads = documented_reads(src)
    try:
        fail_unless(any(w.startswith("docs/checkpoints.md:") for w, _, _ in reads),
                    "docs/checkpoints.md shows no MDAnalysis read")
        os.chdir(run_dir)
        wrote = engine_wrote(h5py, np, "run.h5md", checkpoint)
        for where, kind, code in reads:
            try:
                link_names(code)
                if kind == "block":
                    namespace = {}
                    with contextlib.redirect_stdout(io.StringIO()):
                        exec(compile(code, where, "exec"), namespace)
                    fail_unless(isinstance(namespace.get("u"), mda.Universe), f"{where}: the block makes no `u`")
                    u = namespace["u"]
                else:
                    u = eval(code, {"mda": mda})
            except Mismatch:
                raise
            except Exception as e:
                raise Mismatch(f"{where}: {code!r} fails: {type(e).__name__}: {e}") from None
            frames, n_atoms, err = check_universe(where, u, wrote, np)
            print(f"ok   {where} ({kind}): {n_atoms} atoms, {frames} frames as written; last frame is the "
                  f"checkpoint's to {err:.2g} of the box")
    except Mismatch as e:
        print(f"docs_read_check: FAILED: {e}", file=sys.stderr)
        return 1
    print(f"docs_read_check: OK, {len(reads)} documented reads")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
