#!/usr/bin/env python3
"""Plots what an `itercl run` of PageRank wrote: the L1 change of the ranks per iteration against the
stopping threshold (n * tol), and the ranks in decreasing order on log-log axes (a power law shows as
a line), the top nodes named. Needs numpy and matplotlib.

    build/itercl run examples/pagerank-rmat.json && build/itercl-python examples/pagerank_plot.py
    build/itercl-python examples/pagerank_plot.py RESULTS.json [OUT.png]

The ranks come from the results file (inline) or the CSV it names (node,rank); with "ranks": false
only the top nodes the results list are drawn.
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
results = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "results", "pagerank-rmat.json")
out = sys.argv[2] if len(sys.argv) > 2 else os.path.splitext(results)[0] + ".pagerank.png"

with open(results) as f:
    r = json.load(f)
if r["algorithm"] != "pagerank":
    sys.exit(f"{results}: a {r['algorithm']} result; this script draws PageRank's")
res = r["result"]
ranks = res.get("ranks")
if isinstance(ranks, dict):
    values = np.array(list(ranks.values()), dtype=float)
elif isinstance(ranks, str):
    with open(ranks) as f:
        values = np.array([float(row["rank"]) for row in csv.DictReader(f)])
else:
    values = np.array([t["rank"] for t in res["top"]], dtype=float)
values = np.sort(values)[::-1]

fig, (conv, dist) = plt.subplots(1, 2, figsize=(10, 4))
trace = res["residual_trace"]
conv.semilogy(range(1, len(trace) + 1), trace, "o-", ms=3, label="L1 change of the ranks")
conv.axhline(res["tol_times_n"], color="tab:red", ls="--", lw=1, label="n * tol (stop below)")
conv.set_xlabel("iteration")
conv.set_ylabel("||x_k - x_{k-1}||_1")
conv.legend(frameon=False)
conv.set_title(f"{res['n_iter']} iterations, " + ("converged" if res["converged"] else "not converged"),
               fontsize=9)

dist.loglog(np.arange(1, len(values) + 1), values, "-", lw=1.2)
for i, t in enumerate(res["top"][:5]):
    dist.annotate(f"node {t['node']}", (i + 1, t["rank"]), fontsize=7, xytext=(4, -2 - 8 * i),
                  textcoords="offset points")
dist.set_xlabel("position in decreasing order")
dist.set_ylabel("rank")
dist.set_title(f"{len(values)} ranks" + ("" if ranks not in (None, False) else " (the top ones)"), fontsize=9)
fig.suptitle(f"{r['name']}: PageRank, {r['data'].get('n_nodes', '?')} nodes, format "
             f"{r['kernel'].get('tuning', {}).get('format', '?')}", fontsize=10)
fig.tight_layout()
fig.savefig(out, dpi=120)
print(out)
