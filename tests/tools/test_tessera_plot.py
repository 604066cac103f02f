#!/usr/bin/python3
"""g(r) of tools/tessera-plot against cases whose answer is known exactly:
a perfect fcc lattice (12 nearest neighbours at a/sqrt(2), 6 more at a) and
uniform random points (g = 1 within noise). Run: /usr/bin/python3 this_file."""

import importlib.machinery
import importlib.util
import os
import sys
import tempfile
import unittest

import numpy as np

TOOL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "tessera-plot")


def load_tool():
    # The tool is a script without a .py suffix; load it as a module.
    loader = importlib.machinery.SourceFileLoader("tessera_plot", TOOL)
    spec = importlib.util.spec_from_loader("tessera_plot", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


tp = load_tool()


def fcc(cells, a, shift=(0.0, 0.0, 0.0)):
    """Perfect fcc crystal of cells^3 unit cells, translated by `shift` (in
    units of a) and wrapped, so that neighbours straddle the box faces."""
    basis = np.array([[0, 0, 0], [0.5, 0.5, 0], [0.5, 0, 0.5], [0, 0.5, 0.5]])
    grid = np.array(np.meshgrid(*[np.arange(cells)] * 3, indexing="ij")).reshape(3, -1).T
    x = (grid[:, None, :] + basis[None, :, :] + np.array(shift)).reshape(-1, 3) * a
    box = np.full(3, cells * a)
    return x - box * np.floor(x / box), box


class FccLattice(unittest.TestCase):
    a = (4 / 0.8442) ** (1 / 3)  # fcc at the LJ melt's density

    def check_shells(self, cells, method, shift):
        x, box = fcc(cells, self.a, shift)
        rmax, nbins = 2.2, 220
        r, g, edges = tp.rdf([(x, box)], rmax, nbins, method=method)
        density = len(x) / np.prod(box)
        peak, low = tp.first_peak_and_minimum(g)
        width = edges[1] - edges[0]
        self.assertLess(abs(r[peak] - self.a / np.sqrt(2)), width,
                        f"first peak at {r[peak]}, expected a/sqrt(2) = {self.a / np.sqrt(2)}")
        n1 = tp.coordination(edges, g, density, edges[low + 1])
        # 12 neighbours; the density N/V instead of (N-1)/V adds a factor N/(N-1).
        self.assertAlmostEqual(n1, 12 * len(x) / (len(x) - 1), delta=1e-9, msg="first-shell coordination")
        # The second shell, 6 atoms at a, and nothing in between.
        n2 = tp.coordination(edges, g, density, 1.1 * self.a)
        self.assertAlmostEqual(n2, 18 * len(x) / (len(x) - 1), delta=1e-9, msg="coordination up to 1.1 a")
        self.assertEqual(tp.coordination(edges, g, density, 0.65 * self.a), 0.0)

    def test_brute_force_small_box(self):
        # 6 cells: the box is too short for a 3x3x3 cell list at rmax 2.2.
        self.check_shells(6, "all", (0.0, 0.0, 0.0))

    def test_brute_force_across_faces(self):
        self.check_shells(6, "all", (0.31, 0.77, 0.13))

    def test_cell_list_across_faces(self):
        self.check_shells(6, "cells", (0.31, 0.77, 0.13))

    def test_cell_list_larger_box(self):
        self.check_shells(10, "auto", (0.5, 0.25, 0.9))


class IdealGas(unittest.TestCase):
    def check_uniform(self, box, rmax, nbins, method):
        rng = np.random.default_rng(20261122)
        box = np.array(box, dtype=float)
        frames = [(rng.random((4000, 3)) * box, box) for _ in range(3)]
        r, g, _ = tp.rdf(frames, rmax, nbins, method=method)
        far = r > 0.5
        self.assertLess(np.max(np.abs(g[far] - 1)), 0.1, f"g(r) of random points: {g[far]}")
        self.assertLess(abs(np.mean(g[far]) - 1), 0.01)

    def test_orthorhombic_brute_force(self):
        self.check_uniform([11.0, 13.0, 17.0], 5.0, 50, "all")

    def test_orthorhombic_cell_list(self):
        self.check_uniform([15.0, 16.5, 21.0], 5.0, 50, "cells")


class Consistency(unittest.TestCase):
    def test_methods_and_chunks_agree(self):
        rng = np.random.default_rng(7)
        box = np.array([9.0, 10.0, 12.0])
        x = rng.random((1500, 3)) * box - 3.0  # partly outside the box: wrapped first
        ref = tp.pair_counts(x, box, 3.0, 60, method="all", chunk_pairs=10 ** 9)
        for method, chunk in (("all", 1000), ("cells", 10 ** 9), ("cells", 500)):
            np.testing.assert_array_equal(tp.pair_counts(x, box, 3.0, 60, chunk_pairs=chunk, method=method), ref,
                                          err_msg=f"{method}, chunk {chunk}")
        # Every pair closer than rmax, counted by hand.
        d = x[:, None, :] - x[None, :, :]
        d -= box * np.round(d / box)
        r = np.sqrt((d ** 2).sum(-1))[np.triu_indices(len(x), 1)]
        self.assertEqual(ref.sum(), np.count_nonzero(r < 3.0))

    def test_rmax_beyond_half_box_is_refused(self):
        x, box = fcc(3, 1.5)
        with self.assertRaises(tp.PlotError):
            tp.rdf([(x, box)], 0.6 * box[0], 10)


class ThermoCsv(unittest.TestCase):
    def test_header_checked_and_torn_last_line_dropped(self):
        with tempfile.TemporaryDirectory() as d:
            good = os.path.join(d, "t.csv")
            with open(good, "w") as f:
                f.write("step,temp,pe,ke,etotal,press\n0,1.5,-6,2,-4,1\n10,1.4,-5.9,1.9,-4,1.1\n20,1.3")
            th = tp.read_thermo_csv(good)
            np.testing.assert_array_equal(th["step"], [0, 10])
            np.testing.assert_array_equal(th["etotal"], [-4, -4])
            bad = os.path.join(d, "b.csv")
            with open(bad, "w") as f:
                f.write("step,temp\n0,1\n")
            with self.assertRaises(tp.PlotError):
                tp.read_thermo_csv(bad)


if __name__ == "__main__":
    sys.exit(0 if unittest.main(exit=False, verbosity=2).result.wasSuccessful() else 1)
