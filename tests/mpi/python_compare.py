"""python_compare.py make DIR | compare DIR P: the data and CLI configs of python_test.sh, then the checks of
Python over P ranks (DIR/python.npP.json, tests/mpi/python_ranks.py) against
- `itercl run` over the same P ranks (DIR/<algorithm>.npP.json): every value identical, as both run the
  library's loop over ranks on the same rows;
- Python on one process (DIR/python.one.json): K-Means' labels and iterations identical, inertia and
  centroids within tolerance::ranks_objective (1e-11 relative); SMACOF's iterations and embedding
  identical, its stress within tolerance::ranks_stress (2 (N + 16) eps of float, relative); PageRank's
  ranks within tolerance::ranks_pagerank (32 eps of float) in L1; histogram, pair counts and the matrix
  of distances (each rank's rows, gathered) identical (host/src/tuning/tolerances.hpp);
- and the counts against NumPy's histogram of the pairs' distances in double, the matrices against
  SciPy's cdist."""
import json
import os
import sys

import numpy as np

EPS_FLOAT = float(np.finfo(np.float32).eps)
RANKS_OBJECTIVE = 1e-11  # tolerance::ranks_objective()


def make(d):
    rng = np.random.default_rng(12)
    centres = rng.uniform(-6, 6, size=(5, 4))
    points = centres[rng.integers(0, 5, size=1003)] + rng.normal(size=(1003, 4))  # 1003: uneven over 2 and 3
    np.save(os.path.join(d, "points.npy"), points)
    vectors = rng.normal(size=(157, 5))
    np.save(os.path.join(d, "vectors.npy"), vectors)
    # 211 nodes, every id in an edge (so that the CLI's node numbering is the ids'), a hub, dangling nodes.
    src = rng.integers(0, 211, size=1500)
    dst = np.where(rng.uniform(size=1500) < 0.3, 7, rng.integers(0, 211, size=1500))
    dangling = src % 13 == 0
    src, dst = src[~dangling], dst[~dangling]
    every = np.arange(211)
    np.savetxt(os.path.join(d, "edges.txt"), np.column_stack([np.concatenate([src, every[every % 13 != 0]]),
                                                              np.concatenate([dst, (every[every % 13 != 0] + 1) % 211])]),
               fmt="%d")
    configs = {
        "kmeans": {"algorithm": "kmeans", "data": {"path": "points.npy"},
                   "params": {"n_clusters": 5, "random_state": 4}, "output": {"labels": "kmeans.labels.txt"}},
        "smacof": {"algorithm": "smacof", "data": {"kind": "vectors", "path": "vectors.npy"},
                   "params": {"n_components": 2, "random_state": 3, "max_iter": 60}},
        "pagerank": {"algorithm": "pagerank", "data": {"path": "edges.txt"}, "params": {}},
        "histogram": {"algorithm": "distance_histogram", "data": {"path": "points3.npy"},
                      "params": {"bins": 30, "range": [0, 12]}},
        "pair_counts": {"algorithm": "pair_counts", "data": {"path": "points3.npy"},
                        "params": {"radii": [0.5, 1, 2, 5]}},
    }
    np.save(os.path.join(d, "points3.npy"), points[:, :3])
    # The matrix of distances: 301 points (uneven over 2 and 3 ranks) with themselves, and with 50 of them.
    np.save(os.path.join(d, "pairs.npy"), points[:301, :3])
    np.save(os.path.join(d, "pairs_y.npy"), points[:50, :3])
    configs["pairwise"] = {"algorithm": "pairwise_distances", "data": {"path": "pairs.npy"},
                           "params": {"form": "dense"}}
    configs["pairwise_y"] = {"algorithm": "pairwise_distances", "data": {"path": "pairs.npy"},
                             "params": {"form": "dense", "Y": {"path": "pairs_y.npy"}, "metric": "cityblock"},
                             "precision": "double"}
    for name, c in configs.items():
        c.setdefault("precision", "float")
        c["device"] = "cpu"
        with open(os.path.join(d, name + ".config.json"), "w") as f:
            json.dump(c, f)


def same(a, b):
    return np.array_equal(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64))


def within(a, b, rel):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return a.shape == b.shape and np.all(np.abs(a - b) <= rel * np.maximum(np.abs(b).max(), 1e-300))


def compare(d, p):
    py = json.load(open(os.path.join(d, f"python.np{p}.json")))
    one = json.load(open(os.path.join(d, "python.one.json")))
    cli = {name: json.load(open(os.path.join(d, f"{name}.np{p}.json")))["result"]
           for name in ("kmeans", "smacof", "pagerank", "histogram", "pair_counts", "pairwise", "pairwise_y")}
    failures = []

    def check(ok, what):
        if not ok:
            failures.append(what)

    check(py["ranks"] == p and py["agree"], "every rank gets the same shared results")
    # against the CLI over the same ranks: identical
    k, c = py["kmeans"], cli["kmeans"]
    labels = np.loadtxt(c["labels"], dtype=np.int64)
    check(k["labels"] == labels.tolist(), "kmeans labels = CLI's")
    check(k["inertia"] == c["inertia"] and k["n_iter"] == c["n_iter"], "kmeans inertia, n_iter = CLI's")
    check(same(k["centroids"], c["centroids"]), "kmeans centroids = CLI's")
    check(k["local_rows"] == len(k["labels"]) // p, "labels_ holds rank 0's own rows (core::first_row)")
    s, c = py["smacof"], cli["smacof"]
    check(same(s["embedding"], c["embedding"]), "smacof embedding = CLI's")
    check(s["stress"] == c["stress"] and s["n_iter"] == c["n_iter"], "smacof stress, n_iter = CLI's")
    c = cli["pagerank"]
    cli_ranks = [c["ranks"][str(i)] for i in range(py["pagerank"]["n_nodes"])]
    check(same(py["pagerank"]["ranks"], cli_ranks), "pagerank ranks = CLI's")
    h = py["histogram"]
    check(h["counts"] == cli["histogram"]["counts"], "histogram counts = CLI's")
    check(h["pair_counts"] == cli["pair_counts"]["counts"], "pair counts = CLI's")
    # against one process
    k1 = one["kmeans"]
    check(k["labels"] == k1["labels"] and k["n_iter"] == k1["n_iter"], "kmeans labels, n_iter = one process's")
    check(within([k["inertia"]], [k1["inertia"]], RANKS_OBJECTIVE), "kmeans inertia within ranks_objective")
    check(within(k["centroids"], k1["centroids"], RANKS_OBJECTIVE), "kmeans centroids within ranks_objective")
    s1 = one["smacof"]
    check(same(s["embedding"], s1["embedding"]) and s["n_iter"] == s1["n_iter"], "smacof embedding = one process's")
    n = len(s["embedding"])
    check(within([s["stress"]], [s1["stress"]], 2 * (n + 16) * EPS_FLOAT), "smacof stress within ranks_stress")
    l1 = np.abs(np.subtract(py["pagerank"]["ranks"], one["pagerank"]["ranks"])).sum()
    check(l1 <= 32 * EPS_FLOAT, f"pagerank within ranks_pagerank (L1 {l1:.3g})")
    check(h == one["histogram"], "histogram, pair counts and g(r) = one process's")
    # the counts against NumPy in double (no pair's distance lies within float's rounding of an edge here)
    X = np.load(os.path.join(d, "points3.npy"))
    i, j = np.triu_indices(len(X), 1)
    dist = np.sqrt(((X[i] - X[j]) ** 2).sum(1))
    check(h["counts"] == np.histogram(dist, bins=30, range=(0, 12))[0].tolist(), "histogram = numpy's")
    check(h["pair_counts"] == [int((dist <= r).sum()) for r in (0.5, 1, 2, 5)], "pair counts = numpy's")
    # pairwise_distances: each rank's rows of D, gathered in rank order (python_ranks.py wrote them)
    pw, pw1 = np.load(os.path.join(d, f"python.np{p}.pairwise.npz")), np.load(os.path.join(d, "python.one.pairwise.npz"))
    pairs, pairs_y = np.load(os.path.join(d, "pairs.npy")), np.load(os.path.join(d, "pairs_y.npy"))
    for key, name, dtype in (("D", "pairwise", np.float32), ("D_y", "pairwise_y", np.float64)):
        check(pw[key].dtype == dtype and pw[key].shape == pw1[key].shape, f"{key}: {pw[key].dtype} {pw[key].shape}")
        check(np.array_equal(pw[key], np.load(cli[name]["matrix"]["file"])), f"{key} = CLI's matrix over the ranks")
        check(np.array_equal(pw[key], pw1[key]), f"{key} = one process's, value for value")
    first = [len(pairs) // p * r + len(pairs) % p * r // p for r in range(p + 1)]  # core::first_row
    check(list(pw["local_rows"]) == [first[r + 1] - first[r] for r in range(p)],
          f"each rank gets its own rows of D: {list(pw['local_rows'])}")
    from scipy.spatial.distance import cdist
    reference = cdist(pairs, pairs)
    check(np.abs(pw["D"] - reference).max() <= 8 * EPS_FLOAT * reference.max(), "D within 8 eps of float of SciPy's")
    check(np.allclose(pw["D_y"], cdist(pairs, pairs_y, "cityblock"), rtol=1e-13, atol=0), "D_y = SciPy's cityblock")
    for f in failures:
        print(f"FAIL (-np {p}): {f}")
    return not failures


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    else:
        sys.exit(0 if compare(sys.argv[2], int(sys.argv[3])) else 1)
