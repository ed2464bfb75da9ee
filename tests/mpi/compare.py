"""compare.py PLAIN.json RANKS.json P: the run over P ranks answers as the plain run did; -np 1 identical
in every value.
K-Means: labels and iterations identical; inertia, its trace and the centroids within
tolerance::ranks_objective (1e-11 relative, host/src/tuning/tolerances.hpp).
SMACOF: iterations and embedding identical; stress, its trace and the normalized stress within
tolerance::ranks_stress (2 (N + 16) eps of the precision, relative).
Distance histogram, pair counts: counts (and g(r)) identical.
Pairwise distances: the matrix (dense or condensed, one .npy written by every rank) identical; min, max,
k nearest, pairs within a threshold identical; row sums within ranks_objective."""
import json
import sys

import numpy as np

RANKS_OBJECTIVE = 1e-11  # tolerance::ranks_objective()


def ranks_stress(precision, n):  # tolerance::ranks_stress()
    eps = np.finfo(np.float32 if precision == "float" else np.float64).eps
    return 2.0 * (n + 16) * float(eps)


plain, ranks, p = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), int(sys.argv[3])
a, b = plain["result"], ranks["result"]
problems = []


def close(x, y, scale, tol):
    return abs(x - y) <= tol * max(abs(scale), 1e-300) or x == y


def same(*keys):
    for key in keys:
        if a[key] != b[key]:
            problems.append(f"{key}: {a[key]} plain, {b[key]} over {p} ranks")


def matrix(r, key):
    m = r[key]
    return np.load(m["file"]) if isinstance(m, dict) else np.array(m, dtype=float)


if plain["algorithm"] == "kmeans":
    tol = 0.0 if p == 1 else RANKS_OBJECTIVE
    same("n_iter", "converged", "n_relocated", "best_init")
    with open(a["labels"]) as fa, open(b["labels"]) as fb:
        if fa.read() != fb.read():
            problems.append("labels differ")
    for x, y in zip([a["inertia"]] + a["inertia_trace"] + a["init_inertia"],
                    [b["inertia"]] + b["inertia_trace"] + b["init_inertia"]):
        if not close(x, y, x, tol):
            problems.append(f"inertia {x!r} plain, {y!r} over {p} ranks")
    ca, cb = matrix(a, "centroids"), matrix(b, "centroids")
    if np.abs(ca - cb).max() > tol * max(np.abs(ca).max(), 1e-300):
        problems.append(f"centroids differ by {np.abs(ca - cb).max()!r}")
elif plain["algorithm"] == "smacof":
    n = plain["data"]["n_samples"] if "n_samples" in plain["data"] else len(matrix(a, "embedding"))
    tol = 0.0 if p == 1 else ranks_stress(plain["precision"], n)
    same("n_iter", "converged", "best_init")
    if not np.array_equal(matrix(a, "embedding"), matrix(b, "embedding")):
        problems.append("embeddings differ")
    worst = 0.0
    for x, y in zip([a["stress"], a["normalized_stress"]] + a["stress_trace"] + a["init_stress"],
                    [b["stress"], b["normalized_stress"]] + b["stress_trace"] + b["init_stress"]):
        worst = max(worst, abs(x - y) / abs(x)) if x else worst
        if not close(x, y, x, tol):
            problems.append(f"stress {x!r} plain, {y!r} over {p} ranks (tolerance {tol:.3g})")
    print(f"{sys.argv[2]}: stress within {worst:.2g} relative (tolerance {tol:.2g})")
elif plain["algorithm"] in ("distance_histogram", "pair_counts"):
    # Integer counts: exactly one process's, as everything derived from them.
    for key in ("counts", "edges", "radii", "pairs", "counted", "g_r"):
        if key in a and a[key] != b.get(key):
            problems.append(f"{key}: {a[key]} plain, {b.get(key)} over {p} ranks")
    if p > 1 and len(b["shares"]) != p:
        problems.append(f"{len(b['shares'])} device shares over {p} ranks")
    if p > 1 and abs(sum(s["pairs"] for s in b["shares"]) - a["pairs"]) > 0:
        problems.append("the ranks' shares do not add up to every pair")
elif plain["algorithm"] == "pairwise_distances":
    # The matrix: each pair computed by the same operations on whichever rank has its rectangle. Minima,
    # maxima, the k nearest and the pairs within the threshold: exactly one process's (ties to the
    # lower column); row sums: the same rectangles' sums added in another order (ranks_objective).
    for key in ("matrix", "min", "argmin", "max", "argmax", "distances", "indices", "pair_list", "pairs_within",
                "pairs"):
        if key in a and (key not in b or not np.array_equal(matrix(a, key), matrix(b, key))):
            problems.append(f"{key} differs over {p} ranks")
    if "sum" in a:
        tol = 0.0 if p == 1 else RANKS_OBJECTIVE
        for x, y in zip(matrix(a, "sum").ravel(), matrix(b, "sum").ravel()):
            if not close(x, y, x, tol):
                problems.append(f"row sum {x!r} plain, {y!r} over {p} ranks")
    if p > 1 and len(b["shares"]) != p:
        problems.append(f"{len(b['shares'])} device shares over {p} ranks")
else:
    problems.append(f"no comparison for algorithm {plain['algorithm']}")

mpi = ranks.get("mpi")
if p == 1 and mpi is not None:
    problems.append('"mpi" recorded by -np 1')
if p > 1 and (mpi is None or mpi["ranks"] != p or len(mpi["devices"]) != p):
    problems.append(f'"mpi": {mpi!r}')
timings = ranks["timings"].get("median_iteration", ranks["timings"]["total"])
if p > 1 and "comm_ms" not in timings:
    problems.append("no comm_ms in the timings")
for problem in problems:
    print(f"{sys.argv[2]}: {problem}")
sys.exit(1 if problems else 0)
