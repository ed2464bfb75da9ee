#!/usr/bin/env python3
"""Cluster UEF's S1 set (5,000 points, 15 Gaussian clusters) with itercl.KMeans and plot the clusters.

    build/itercl-python examples/python/kmeans_plot.py [out.png]
"""
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import itercl  # noqa: E402

here = os.path.dirname(os.path.abspath(__file__))
X = np.loadtxt(os.path.join(here, "..", "..", "datasets", "uef", "s1.data.gz"))
out = sys.argv[1] if len(sys.argv) > 1 else "kmeans-s1.png"

km = itercl.KMeans(n_clusters=15, n_init=10, random_state=0).fit(X)  # device="gpu", precision="double", ...
print(f"inertia {km.inertia_:.4g} after {km.n_iter_} iterations, kernel {km.kernel_['variant']}")

fig, ax = plt.subplots(figsize=(6, 6))
ax.scatter(X[:, 0], X[:, 1], c=km.labels_, s=2, cmap="tab20")
ax.scatter(*km.cluster_centers_.T, c="black", marker="x", s=60, label="centroids")
ax.set_title("UEF S1, itercl.KMeans(15)")
ax.legend(loc="upper right")
fig.savefig(out, dpi=120, bbox_inches="tight")
print("wrote", out)
