"""compare.py PLAIN.json RANKS.json P: the run over P ranks answers as the plain run did. Labels and
iterations identical; inertia, its trace and the centroids within tolerance::ranks_objective (1e-11
relative, host/src/tuning/tolerances.hpp); -np 1 identical in every value."""
import json
import sys

RANKS_OBJECTIVE = 1e-11  # tolerance::ranks_objective()

plain, ranks, p = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), int(sys.argv[3])
a, b = plain["result"], ranks["result"]
tol = 0.0 if p == 1 else RANKS_OBJECTIVE
problems = []


def close(x, y, scale):
    return abs(x - y) <= tol * max(abs(scale), 1e-300) or x == y


def labels(r):
    with open(r["labels"]) as f:
        return f.read()


for key in ("n_iter", "converged", "n_relocated", "best_init"):
    if a[key] != b[key]:
        problems.append(f"{key}: {a[key]} plain, {b[key]} over {p} ranks")
if labels(a) != labels(b):
    problems.append("labels differ")
if not close(a["inertia"], b["inertia"], a["inertia"]):
    problems.append(f"inertia {a['inertia']!r} plain, {b['inertia']!r} over {p} ranks")
for x, y in zip(a["inertia_trace"] + a["init_inertia"], b["inertia_trace"] + b["init_inertia"]):
    if not close(x, y, x):
        problems.append(f"inertia trace {x!r} against {y!r}")
scale = max(abs(v) for row in a["centroids"] for v in row)
for ra, rb in zip(a["centroids"], b["centroids"]):
    for x, y in zip(ra, rb):
        if not close(x, y, scale):
            problems.append(f"centroid value {x!r} against {y!r}")
mpi = ranks.get("mpi")
if p == 1 and mpi is not None:
    problems.append('"mpi" recorded by -np 1')
if p > 1 and (mpi is None or mpi["ranks"] != p or len(mpi["devices"]) != p):
    problems.append(f'"mpi": {mpi!r}')
if p > 1 and "comm_ms" not in ranks["timings"]["median_iteration"]:
    problems.append("no comm_ms in the timings")
for problem in problems:
    print(f"{sys.argv[2]}: {problem}")
sys.exit(1 if problems else 0)
