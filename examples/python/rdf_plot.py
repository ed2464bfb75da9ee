#!/usr/bin/env python3
"""g(r) of a hot crystal: 864 points on a face-centred cubic lattice (6 x 6 x 6 cells) shaken by
Gaussian noise, in a periodic box, with itercl.radial_distribution; the shells of the lattice are its
peaks (first at a / sqrt(2)). For atoms from a simulation, pass their coordinates and the box.

    build/itercl-python examples/python/rdf_plot.py [out.png]
"""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import itercl  # noqa: E402

out = sys.argv[1] if len(sys.argv) > 1 else "rdf-fcc.png"
a, cells = 1.0, 6
basis = np.array([[0, 0, 0], [0.5, 0.5, 0], [0.5, 0, 0.5], [0, 0.5, 0.5]])
grid = np.stack(np.meshgrid(*[np.arange(cells)] * 3, indexing="ij"), -1).reshape(-1, 1, 3)
X = ((grid + basis) * a).reshape(-1, 3)
X += np.random.default_rng(0).normal(0, 0.05 * a, size=X.shape)
box = [cells * a] * 3

r, g = itercl.radial_distribution(X, bins=150, range=(0, cells * a / 2), box=box)

fig, ax = plt.subplots(figsize=(7, 4))
ax.plot(r, g)
for shell in np.sqrt([0.5, 1, 1.5, 2]) * a:
    ax.axvline(shell, color="grey", lw=0.5, ls="--")
ax.set_xlabel("r")
ax.set_ylabel("g(r)")
ax.set_title(f"{len(X)} points, FCC lattice with noise, periodic box")
fig.savefig(out, dpi=120, bbox_inches="tight")
print("wrote", out)
