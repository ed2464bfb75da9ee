#!/usr/bin/env python3
"""Plots the 2-D embedding an `itercl run` of SMACOF (multidimensional scaling) wrote, each point named
where the data had names, with the stress in the title. Needs numpy and matplotlib.

    build/itercl run examples/smacof-eurodist.json && build/itercl-python examples/mds_plot.py
    build/itercl-python examples/mds_plot.py RESULTS.json [OUT.png]

The embedding is read from the results file (inline) or from the file it names (CSV, a name first when
the data had names, or .npy). Only the first two components are drawn.
"""
import csv
import json
import os
import sys

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
results = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "results", "smacof-eurodist.json")
out = sys.argv[2] if len(sys.argv) > 2 else os.path.splitext(results)[0] + ".mds.png"


def read_embedding(value, names):
    """The N x k embedding: inline rows, or {"file": ...} as .npy or CSV (names in a first column)."""
    if isinstance(value, list):
        return np.array(value, dtype=float), names
    path = value["file"]
    if path.endswith(".npy"):
        return np.load(path), names
    rows = list(csv.reader(open(path)))
    k = value["shape"][1]
    if rows and len(rows[0]) == k + 1:  # a name, then the coordinates
        return np.array([r[1:] for r in rows], dtype=float), [r[0] for r in rows]
    return np.array(rows, dtype=float), names


with open(results) as f:
    r = json.load(f)
if r["algorithm"] != "smacof":
    sys.exit(f"{results}: a {r['algorithm']} result; this script draws SMACOF's")
res = r["result"]
X, names = read_embedding(res["embedding"], res.get("names"))
if X.shape[1] < 2:
    X = np.column_stack([X[:, 0], np.zeros(len(X))])

fig, ax = plt.subplots(figsize=(6.4, 5.6))
ax.scatter(X[:, 0], X[:, 1], s=14, color="tab:blue")
if names and len(names) <= 200:
    for (x, y), name in zip(X[:, :2], names):
        ax.annotate(str(name), (x, y), fontsize=7, xytext=(3, 2), textcoords="offset points")
ax.set_aspect("equal", adjustable="datalim")
ax.set_xlabel("component 1")
ax.set_ylabel("component 2")
ax.set_title(f"{r['name']}: SMACOF, {len(X)} points, Stress-1 {res['normalized_stress']:.3g} "
             f"after {res['n_iter']} iterations", fontsize=9)
fig.tight_layout()
fig.savefig(out, dpi=120)
print(out)
