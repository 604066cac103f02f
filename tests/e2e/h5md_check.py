#!/usr/bin/python3
"""Checks an H5MD trajectory written by tessera the way an analyst reads it: with MDAnalysis.

usage: h5md_check.py TRAJ.h5 CHECKPOINT.h5 EXPECTED_FRAMES DT

Reads TRAJ with its topology beside it (TRAJ's name with .data), as docs/checkpoints.md shows.
Asserts that TRAJ has EXPECTED_FRAMES frames with strictly increasing steps and
time == step * DT, and that its last frame is the checkpoint's state: same
step, box (hi - lo) to 1e-6 relative, and positions to float32 precision.
The checkpoint is read with h5py: /state attribute `step`, /box/lo and /box/hi
(3 doubles each), /atoms/position (N x 3 doubles in global-id order, the
trajectory's order).

Run with Debian's /usr/bin/python3 (python3-mdanalysis, python3-h5py). Exits 0
when everything matches, 1 on a mismatch, 2 on bad usage or unreadable input.
"""
import os
import sys
import warnings


class Mismatch(Exception):
    pass


def fail_unless(ok, message):
    if not ok:
        raise Mismatch(message)


def read_checkpoint(path, h5py, np):
    with h5py.File(path, "r") as f:
        for name in ("state", "box/lo", "box/hi", "atoms/position"):
            if name not in f:
                raise ValueError(f"checkpoint {path} has no '{name}'")
        if "step" not in f["state"].attrs:
            raise ValueError(f"checkpoint {path}: group 'state' has no attribute 'step'")
        step = int(f["state"].attrs["step"])
        lo = np.asarray(f["box/lo"][()], dtype=np.float64)
        hi = np.asarray(f["box/hi"][()], dtype=np.float64)
        position = np.asarray(f["atoms/position"][()], dtype=np.float64)
    if lo.shape != (3,) or hi.shape != (3,):
        raise ValueError(f"checkpoint {path}: box/lo and box/hi must hold 3 values, not {lo.shape} and {hi.shape}")
    if position.ndim != 2 or position.shape[1] != 3:
        raise ValueError(f"checkpoint {path}: atoms/position has shape {position.shape}, expected (N, 3)")
    return step, hi - lo, position


def observables_too_short(path, h5py):
    """MDAnalysis 2.4 reads observables/<name>/value[frame] for every trajectory frame, and fails with a bare
    IndexError when there are fewer samples than frames; say so plainly instead."""
    with h5py.File(path, "r") as f:
        if "particles" not in f or "observables" not in f:
            return None
        groups = list(f["particles"])
        if not groups or "position" not in f["particles"][groups[0]]:
            return None
        frames = f["particles"][groups[0]]["position/value"].shape[0]
        for name, item in f["observables"].items():
            if isinstance(item, h5py.Group) and "value" in item and item["value"].shape[0] < frames:
                return (f"observables/{name} has {item['value'].shape[0]} samples but the trajectory has {frames} "
                        "frames: MDAnalysis indexes observables by frame and cannot read this file")
    return None


def check(traj, checkpoint, expected_frames, dt):
    warnings.simplefilter("ignore")  # MDAnalysis' import-time deprecation noise
    import h5py
    import numpy as np
    import MDAnalysis as mda

    problem = observables_too_short(traj, h5py)
    if problem:
        raise Mismatch(f"{traj}: {problem}")
    ck_step, ck_edges, ck_position = read_checkpoint(checkpoint, h5py, np)

    # The documented read (docs/checkpoints.md): the topology the run wrote
    # beside the trajectory; reduced LJ units carry no `unit` attributes, so
    # MDAnalysis must not try to convert.
    topology = os.path.splitext(traj)[0] + ".data"
    u = mda.Universe(topology, traj, convert_units=False)
    n_atoms = u.atoms.n_atoms
    n_frames = u.trajectory.n_frames
    fail_unless(n_frames == expected_frames, f"{traj}: {n_frames} frames, expected {expected_frames}")
    print(f"frames: {n_frames} of {n_atoms} atoms, as expected")

    steps = []
    for ts in u.trajectory:
        step = int(ts.data["step"])
        if steps:
            fail_unless(step > steps[-1], f"{traj}: frame {ts.frame} has step {step} after step {steps[-1]} "
                        "(steps must strictly increase: a duplicate or out-of-order frame)")
        want = step * dt
        fail_unless(abs(ts.time - want) <= 1e-9 * max(1.0, abs(want)),
                    f"{traj}: frame {ts.frame} (step {step}) has time {ts.time!r}, expected step * dt = {want!r}")
        steps.append(step)
    print(f"steps: {steps[0] if steps else '-'} .. {steps[-1] if steps else '-'}, strictly increasing; "
          f"time = step * {dt!r} in every frame")

    if n_frames == 0:
        raise Mismatch(f"{traj}: no frame to compare with the checkpoint")
    ts = u.trajectory[-1]
    fail_unless(steps[-1] == ck_step,
                f"{traj}: the last frame is at step {steps[-1]}, the checkpoint {checkpoint} at step {ck_step}")
    print(f"last frame: step {ck_step}, the checkpoint's step")

    fail_unless(ts.dimensions is not None, f"{traj}: MDAnalysis finds no box in the last frame")
    edges = np.asarray(ts.dimensions[:3], dtype=np.float64)
    fail_unless(np.allclose(ts.dimensions[3:], 90.0), f"{traj}: box angles {ts.dimensions[3:]}, expected 90")
    rel = np.abs(edges - ck_edges) / np.abs(ck_edges)
    fail_unless(np.all(rel <= 1e-6), f"{traj}: last frame's box {edges.tolist()}, checkpoint's {ck_edges.tolist()} "
                f"(relative difference {rel.max():.3g} > 1e-6)")
    print(f"box: {edges.tolist()} matches the checkpoint (max relative difference {rel.max():.3g})")

    fail_unless(ck_position.shape == (n_atoms, 3),
                f"checkpoint {checkpoint} holds {ck_position.shape[0]} atoms, the trajectory {n_atoms}")
    got = np.asarray(ts.positions, dtype=np.float64)  # float32 in MDAnalysis
    scale = np.maximum(np.abs(ck_edges)[np.newaxis, :], np.abs(ck_position))
    err = np.abs(got - ck_position) / scale
    worst = np.unravel_index(np.argmax(err), err.shape)
    fail_unless(err[worst] <= 1e-6, f"{traj}: atom {worst[0]} (row in id order) coordinate {worst[1]} is "
                f"{got[worst]!r} in the last frame, {ck_position[worst]!r} in the checkpoint "
                f"(difference {err[worst]:.3g} of the box length > 1e-6)")
    print(f"positions: {n_atoms} atoms match the checkpoint to {err[worst]:.3g} of the box length (<= 1e-6)")


def main(argv):
    if len(argv) != 5:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    traj, checkpoint = argv[1], argv[2]
    try:
        expected_frames, dt = int(argv[3]), float(argv[4])
    except ValueError:
        print(f"h5md_check: EXPECTED_FRAMES must be an integer and DT a number, got {argv[3]!r} {argv[4]!r}",
              file=sys.stderr)
        return 2
    try:
        check(traj, checkpoint, expected_frames, dt)
    except Mismatch as e:
        print(f"h5md_check: FAILED: {e}", file=sys.stderr)
        return 1
    except Exception as e:  # h5py's and MDAnalysis' own errors: unreadable or not H5MD as expected
        print(f"h5md_check: cannot read the input: {type(e).__name__}: {e}", file=sys.stderr)
        return 2
    print("h5md_check: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
