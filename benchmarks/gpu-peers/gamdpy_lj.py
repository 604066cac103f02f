#!/usr/bin/env python3
"""Tessera's driver for gamdpy's Lennard-Jones benchmark (written for Tessera;
not part of gamdpy).

It sets up the system the way gamdpy's benchmarks/benchmark_LJ.py does (fcc
lattice at rho = 0.8442, T = 1.44, 12-6 LJ with sigma = epsilon = 1 cut at 2.5,
NVE with dt = 0.005, MomentumReset every 100 steps, storage in memory), but with
the shifted-force cutoff (apply_shifted_force_cutoff) and skin 0.3 in gamdpy's
default compute plan. Like benchmark_LJ.py it times a second pass of the blocks
after one untimed pass, with gamdpy's own CUDA-event timing of the blocks
(sim.timing_numba_blocks), so JIT compilation and start-up are left out.

Prints a last line that benchmarks/gpu-peers/run.sh reads:
  GAMDPY_RESULT atoms=N steps=S seconds=T atom_steps_per_s=R ...
Exit codes: 0 measured, 2 gamdpy/numba could not be imported or no CUDA GPU,
3 the run failed (nblist overflow, ...).
"""
import argparse
import os
import sys
import time
import traceback


try:
    import numpy as np
    # NumPy 2.4 removed row_stack (vstack under another name); the device
    # machine's numba-cuda still calls it when it compiles a kernel (first
    # GPU call, 2026-11-27: "module 'numpy' has no attribute 'row_stack'").
    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack
    import numba
    from numba import cuda
    _IMPORT_ERROR = None
except Exception as _e:  # noqa: BLE001  (reported by main)
    _IMPORT_ERROR = _e


def _twice_py(x):
    """A tiny kernel for --probe (compiled with numba.cuda.jit in main)."""
    i = cuda.grid(1)
    if i < x.size:
        x[i] *= 2.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gamdpy", required=True,
                    help="folder that holds the gamdpy package (the bundle's gamdpy/src)")
    ap.add_argument("--cells", default="",
                    help="fcc cells per axis, NX,NY,NZ (4 atoms per cell)")
    ap.add_argument("--steps-per-block", type=int, default=256)
    ap.add_argument("--blocks", type=int, default=4,
                    help="timed blocks; one more untimed pass of one block runs first")
    ap.add_argument("--skin", type=float, default=0.3)
    ap.add_argument("--plan", choices=["default", "rtx4090-1m"], default="default",
                    help="default: gamdpy's get_default_compute_plan (skin replaced by --skin); "
                         "rtx4090-1m: the autotuned plan gamdpy's benchmarks/README.md lists "
                         "for 1,048,576 atoms on an RTX 4090 (pb 512, tp 2, no NIII, linked lists)")
    ap.add_argument("--max-num-nbs", type=int, default=500,
                    help="gamdpy's per-atom neighbour list capacity (benchmark_LJ.py: 500)")
    ap.add_argument("--probe", action="store_true",
                    help="import gamdpy, find the GPU, compile and run one tiny kernel, then exit")
    a = ap.parse_args()

    t_start = time.time()
    sys.path.insert(0, os.path.abspath(a.gamdpy))
    if _IMPORT_ERROR is not None:
        e = _IMPORT_ERROR
        print(f"GAMDPY_FAIL import numba/numpy: {type(e).__name__}: {e}", flush=True)
        return 2
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, numba {numba.__version__}", flush=True)
    try:
        if not cuda.is_available():
            print("GAMDPY_FAIL no CUDA GPU visible to numba (cuda.is_available() is False)", flush=True)
            return 2
        if os.getenv("NUMBA_ENABLE_CUDASIM") == "1":  # numba's CUDA simulator (a CPU check of this script)
            print("GPU: none, numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1): timings mean nothing", flush=True)
        else:
            dev = cuda.get_current_device()
            name = dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)
            print(f"GPU: {name}, compute capability {dev.compute_capability}", flush=True)

        _twice = cuda.jit(_twice_py)
        d = cuda.to_device(np.ones(64, dtype=np.float32))
        _twice[1, 64](d)
        assert float(d.copy_to_host().sum()) == 128.0
        print(f"numba-cuda kernel compiled and ran ({time.time() - t_start:.1f} s so far)", flush=True)
    except Exception as e:  # noqa: BLE001
        print(f"GAMDPY_FAIL numba-cuda: {type(e).__name__}: {e}", flush=True)
        return 2
    try:
        import gamdpy as gp
    except Exception as e:  # noqa: BLE001
        print(f"GAMDPY_FAIL import gamdpy from {a.gamdpy}: {type(e).__name__}: {e}", flush=True)
        return 2
    print(f"gamdpy imported from {os.path.dirname(gp.__file__)}", flush=True)
    if a.probe:
        print("GAMDPY_PROBE ok", flush=True)
        return 0

    try:
        nx, ny, nz = (int(v) for v in a.cells.split(","))  # "" fails here too
    except ValueError:
        print(f"GAMDPY_FAIL --cells must be NX,NY,NZ, got {a.cells!r}", flush=True)
        return 2

    # The system: as benchmark_LJ.py's setup_lennard_jones_system, shifted force.
    t0 = time.time()
    conf = gp.Configuration(D=3)
    conf.make_lattice(gp.unit_cells.FCC, cells=[nx, ny, nz], rho=0.8442)
    conf["m"] = 1.0
    conf.randomize_velocities(temperature=1.44, seed=87287)
    pair_func = gp.apply_shifted_force_cutoff(gp.LJ_12_6_sigma_epsilon)
    pair_pot = gp.PairPotential(pair_func, params=[1.0, 1.0, 2.5], max_num_nbs=a.max_num_nbs)
    integrator = gp.integrators.NVE(dt=0.005)

    plan = gp.get_default_compute_plan(conf)
    if a.plan == "rtx4090-1m":
        plan.update({"pb": 512, "tp": 2, "UtilizeNIII": False, "gridsync": False,
                     "nblist": "linked lists"})
    plan["skin"] = np.float32(a.skin)
    print(f"atoms {conf.N}, cells {nx}x{ny}x{nz}, setup {time.time() - t0:.1f} s, plan {plan}", flush=True)

    try:
        t0 = time.time()
        sim = gp.Simulation(conf, pair_pot, integrator, [gp.MomentumReset(100)],
                            num_timeblocks=a.blocks, steps_per_timeblock=a.steps_per_block,
                            compute_plan=plan, storage="memory", timing=True)
        t_jit = time.time() - t0
        print(f"Simulation built, kernels compiled: {t_jit:.1f} s; plan after JIT test {sim.compute_plan}", flush=True)

        # Untimed pass (warm-up): one block.
        t0 = time.time()
        for _ in sim.run_timeblocks(num_timeblocks=1):
            pass
        print(f"warm-up block of {a.steps_per_block} steps: {time.time() - t0:.2f} s wall", flush=True)

        nbflag0 = pair_pot.nblist.d_nbflag.copy_to_host()
        t0 = time.time()
        for _ in sim.run_timeblocks():
            pass
        wall = time.time() - t0
        nbflag = pair_pot.nblist.d_nbflag.copy_to_host()
    except Exception as e:  # noqa: BLE001
        traceback.print_exc(limit=6)
        print(f"GAMDPY_FAIL run: {type(e).__name__}: {e}", flush=True)
        return 3

    steps = sim.last_num_blocks * sim.steps_per_block
    seconds = float(np.sum(sim.timing_numba_blocks)) / 1000.0  # CUDA events, blocks only
    if nbflag[0] != 0 or nbflag[1] != 0:
        print(f"GAMDPY_FAIL neighbour list overflow flags {nbflag[:2]} (max_num_nbs {a.max_num_nbs})", flush=True)
        return 3
    updates = int(nbflag[2] - nbflag0[2])
    rate = conf.N * steps / seconds
    print(f"timed: {steps} steps in {seconds:.4f} s (CUDA events over the blocks), "
          f"{wall:.4f} s wall with the host copies between blocks; {updates} neighbour list updates "
          f"({steps / max(updates, 1):.1f} steps each)", flush=True)
    print(f"GAMDPY_RESULT atoms={conf.N} steps={steps} seconds={seconds:.6f} "
          f"atom_steps_per_s={rate:.4e} wall_atom_steps_per_s={conf.N * steps / wall:.4e} "
          f"nblist_updates={updates} jit_s={t_jit:.1f} plan=pb{plan['pb']}-tp{plan['tp']}-"
          f"NIII{int(bool(plan['UtilizeNIII']))}-gridsync{int(bool(plan['gridsync']))}-"
          f"{str(plan['nblist']).replace(' ', '_')}-skin{float(plan['skin']):.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
