#!/usr/bin/python3
"""compare_checkpoints.py A.h5 B.h5: exit 0 when the two checkpoints hold the
same step and bitwise-identical positions, velocities, forces and images, and
the same integrator state (thermostat chain, barostat)."""
import sys

import h5py
import numpy as np

a, b = (h5py.File(p, "r") for p in sys.argv[1:3])
bad = []
if a["state"].attrs["step"] != b["state"].attrs["step"]:
    bad.append(f"steps differ: {a['state'].attrs['step']} vs {b['state'].attrs['step']}")
for name in ("id", "position", "velocity", "force", "image"):
    x, y = a["atoms"][name][()], b["atoms"][name][()]
    if x.shape != y.shape or x.tobytes() != y.tobytes():
        diff = np.max(np.abs(x.astype(float) - y.astype(float))) if x.shape == y.shape else "shape"
        bad.append(f"atoms/{name} differs (max abs difference {diff})")
# The thermostat's and barostat's state (chains, npt's or c-rescale's
# barostat_state with its ecouple, the build box), where the files have it.
ia, ib = a["integrator"], b["integrator"]
if ia.attrs["style"] != ib.attrs["style"]:
    bad.append(f"integrator styles differ: {ia.attrs['style']} vs {ib.attrs['style']}")
for name in sorted(set(ia) | set(ib)):
    if name not in ia or name not in ib:
        bad.append(f"integrator/{name} is in one checkpoint only")
    elif ia[name][()].tobytes() != ib[name][()].tobytes():
        bad.append(f"integrator/{name} differs")
for line in bad:
    print(f"compare_checkpoints: {line}", file=sys.stderr)
print(f"compare_checkpoints: {'DIFFERENT' if bad else 'identical'} at step {a['state'].attrs['step']}")
sys.exit(1 if bad else 0)
