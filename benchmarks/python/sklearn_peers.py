"""itercl against scikit-learn on the same cores: itercl.KMeans against sklearn.cluster.KMeans (Lloyd,
the same start, the same iterations) and itercl.pairwise_distances against
sklearn.metrics.pairwise_distances, wall time around each call, medians after one untimed call.

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/python/sklearn_peers.py OUT.json [REPEATS=3]
"""

import json
import os
import sys
import time

import numpy as np
import sklearn
from sklearn.cluster import KMeans as SkKMeans
from sklearn.metrics import pairwise_distances as sk_pairwise_distances

import itercl


def median_seconds(call, repeats):
    call()  # untimed: itercl's kernel builds, scikit-learn's first touch of its buffers
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        call()
        times.append(time.perf_counter() - t0)
    return float(np.median(times)), times


def main(out_path, repeats):
    rng = np.random.default_rng(1)
    results = {"device": [d["name"] for d in itercl.devices()], "sklearn": sklearn.__version__,
               "cpu_count": os.cpu_count(), "method": "wall time per call; median of the timed calls after one "
                                                      "untimed call; the same process, one after the other"}

    # K-Means: 2^20 points in 16 Gaussian blobs, 8 features, float64 in, from the same 16 points, 20
    # iterations (tol 0) on both sides.
    centers = rng.uniform(-10, 10, size=(16, 8))
    X = centers[rng.integers(0, 16, size=1 << 20)] + rng.normal(size=(1 << 20, 8))
    init = X[:16].copy()
    ours = itercl.KMeans(n_clusters=16, init=init, n_init=1, max_iter=20, tol=0)
    theirs = SkKMeans(n_clusters=16, init=init, n_init=1, max_iter=20, tol=0, algorithm="lloyd")
    for name, model in (("itercl float", ours), ("scikit-learn", theirs)):
        median, times = median_seconds(lambda m=model: m.fit(X), repeats)
        results[f"kmeans {name}"] = {"median_s": median, "times_s": times, "n_iter": int(model.n_iter_),
                                     "inertia": float(model.inertia_)}
        print(f"kmeans {name}: {median:.3f} s ({model.n_iter_} iterations)", flush=True)

    # All pairs: 8192 x 8192 euclidean distances of float32 points (float32 out on both sides).
    P = rng.normal(size=(8192, 16)).astype(np.float32)
    for name, call in (("itercl float", lambda: itercl.pairwise_distances(P)),
                       ("scikit-learn", lambda: sk_pairwise_distances(P))):
        median, times = median_seconds(call, repeats)
        results[f"pairwise {name}"] = {"median_s": median, "times_s": times}
        print(f"pairwise {name}: {median:.3f} s", flush=True)
    D_ours, D_theirs = itercl.pairwise_distances(P), sk_pairwise_distances(P)
    results["pairwise max abs difference"] = float(np.abs(D_ours - D_theirs).max())

    with open(out_path, "w") as f:
        json.dump(results, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 3)
