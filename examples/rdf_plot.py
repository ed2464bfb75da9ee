#!/usr/bin/env python3
"""Plots the O-O radial distribution function of SPC/E water computed by examples/rdf-spce-water.json
against the published curve beside the data (datasets/particles/). Needs matplotlib (pip install matplotlib).

    build/itercl run examples/rdf-spce-water.json && build/itercl-python examples/rdf_plot.py
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
results = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "results", "rdf-spce-water.json")
published = os.path.join(HERE, "..", "datasets", "particles", "spce-water-rdf-OO.dist.tgt")
out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "rdf-spce-water.png")

with open(results) as f:
    r = json.load(f)
res = r["result"]
ref_r, ref_g = [], []
with open(published) as f:
    for line in f:
        if line.strip():
            a, b = line.split()[:2]
            ref_r.append(float(a))
            ref_g.append(float(b))

fig, ax = plt.subplots(figsize=(6.4, 4))
ax.plot(ref_r, ref_g, "k-", lw=1.5, label="published (VOTCA, SPC/E)")
ax.plot(res["r"], res["g_r"], "o", ms=3, color="tab:red",
        label=f"itercl, one frame ({r['data']['n_samples']} O atoms, {r['device']['name'][:24]})")
ax.set_xlabel("r (nm)")
ax.set_ylabel("g(r), oxygen-oxygen")
ax.set_xlim(0.2, 1.0)
ax.axhline(1, color="0.7", lw=0.8)
ax.legend(frameon=False)
fig.tight_layout()
fig.savefig(out, dpi=120)
print(out)
