#!/usr/bin/env python3
"""Plots the clustering an `itercl run` of K-Means wrote: the data's first two features coloured by
label, and the centroids. Needs numpy and matplotlib.

    build/itercl run examples/kmeans-s1.json && build/itercl-python examples/kmeans_plot.py
    build/itercl-python examples/kmeans_plot.py RESULTS.json [OUT.png]

The points are read from the data file the results name (CSV or whitespace text, gzip or not, or .npy;
relative to the current folder, as `itercl run` recorded it, else to the results file's), the labels
from the file of `output.labels`. Without either (a generator's data, no labels file) only the centroids
are drawn.
"""
import json
import os
import sys

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
results = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "results", "kmeans-s1.json")
out = sys.argv[2] if len(sys.argv) > 2 else os.path.splitext(results)[0] + ".clusters.png"


def find(path):
    """`path` as recorded (relative to where itercl ran), else relative to the results file."""
    for candidate in (path, os.path.join(os.path.dirname(results), path)):
        if os.path.exists(candidate):
            return candidate
    return None


def read_matrix(path, header=None):
    if path.endswith(".npy"):
        return np.load(path)
    with (__import__("gzip").open(path, "rt") if open(path, "rb").read(2) == b"\x1f\x8b" else open(path)) as f:
        lines = [ln for ln in f if ln.strip() and not ln.lstrip().startswith("#")]
    delimiter = "," if "," in lines[0] else None
    try:
        float(lines[0].replace(",", " ").split()[0])
    except ValueError:  # a header line
        lines = lines[1:]
    return np.loadtxt(lines, delimiter=delimiter, ndmin=2)


with open(results) as f:
    r = json.load(f)
if r["algorithm"] != "kmeans":
    sys.exit(f"{results}: a {r['algorithm']} result; this script draws K-Means'")
res = r["result"]
C = res["centroids"]
C = np.load(C["file"]) if isinstance(C, dict) and C["file"].endswith(".npy") else (
    read_matrix(C["file"]) if isinstance(C, dict) else np.array(C, dtype=float))
data = find(r["data"].get("path", "")) if "path" in r["data"] else None
labels = find(res["labels"]) if isinstance(res.get("labels"), str) else None

fig, ax = plt.subplots(figsize=(6.4, 5.6))
if data and labels:
    X = read_matrix(data)
    y = np.load(labels) if labels.endswith(".npy") else np.loadtxt(labels, dtype=int, ndmin=1)
    ax.scatter(X[:, 0], X[:, 1] if X.shape[1] > 1 else np.zeros(len(X)), c=y, s=3, cmap="tab20",
               alpha=0.6, linewidths=0)
ax.scatter(C[:, 0], C[:, 1] if C.shape[1] > 1 else np.zeros(len(C)), marker="x", s=60, color="black",
           label=f"{len(C)} centroids")
ax.set_xlabel("feature 1")
ax.set_ylabel("feature 2")
ax.legend(frameon=False, loc="best")
ax.set_title(f"{r['name']}: K-Means, {r['data']['n_samples']} points, inertia {res['inertia']:.4g}, "
             f"{res['n_iter']} iterations", fontsize=9)
fig.tight_layout()
fig.savefig(out, dpi=120)
print(out)
