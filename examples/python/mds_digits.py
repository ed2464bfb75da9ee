#!/usr/bin/env python3
"""Embed a distance matrix with itercl.MDS and plot the map, coloured by class: 500 of scikit-learn's
handwritten digits (bundled with it), their euclidean distances computed on the device.

    build/itercl-python examples/python/mds_digits.py [out.png]
"""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from sklearn.datasets import load_digits  # noqa: E402

import itercl  # noqa: E402

out = sys.argv[1] if len(sys.argv) > 1 else "mds-digits.png"
digits = load_digits()
X, y = digits.data[:500], digits.target[:500]

D = itercl.pairwise_distances(X, precision="double")  # any N x N dissimilarities will do
mds = itercl.MDS(n_components=2, dissimilarity="precomputed", init="classical", random_state=0)
E = mds.fit_transform(D)
print(f"stress {mds.stress_:.4g} after {mds.n_iter_} iterations")

fig, ax = plt.subplots(figsize=(7, 6))
points = ax.scatter(E[:, 0], E[:, 1], c=y, cmap="tab10", s=12)
fig.colorbar(points, ax=ax, label="digit")
ax.set_title("500 digits, SMACOF map of their distances")
ax.set_aspect("equal")
fig.savefig(out, dpi=120, bbox_inches="tight")
print("wrote", out)
