#!/usr/bin/env python3
"""Peers for the K-Means benchmark, timed on the same machine: PyTorch on the GPU (the assignment as
users write it: ||x||^2 - 2 x C^T + ||c||^2, then argmin) and scikit-learn's Lloyd on the CPU cores.
Each is skipped when its package is missing. Prints JSON with median times.

    benchmarks/kmeans/peers.py [--n 4194304] [--d 4] [--k 300] [--sklearn-n 1048576]
"""
import argparse
import json
import statistics
import time

import numpy as np


def torch_assignment(n, d, k, repeats):
    import torch
    if not torch.cuda.is_available():
        return None
    g = torch.Generator(device="cuda").manual_seed(1)
    x = torch.rand(n, d, device="cuda", generator=g)
    c = torch.rand(k, d, device="cuda", generator=g)

    def step():
        dist = (x * x).sum(1, keepdim=True) - 2 * x @ c.T + (c * c).sum(1)
        return dist.argmin(1)

    for _ in range(3):
        step()
    times = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        step()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return {"peer": f"PyTorch {torch.__version__} ({torch.cuda.get_device_name()})", "n": n, "d": d, "k": k,
            "median_ms_per_assignment": statistics.median(times)}


def sklearn_lloyd(n, d, k, iterations):
    try:
        from sklearn.cluster import KMeans
        import sklearn
    except ImportError:
        return None
    x = np.random.default_rng(1).random((n, d), dtype=np.float32)
    km = KMeans(n_clusters=k, init="random", n_init=1, max_iter=iterations, tol=0, random_state=2)
    start = time.perf_counter()
    km.fit(x)
    seconds = time.perf_counter() - start
    return {"peer": f"scikit-learn {sklearn.__version__} Lloyd (all CPU cores)", "n": n, "d": d, "k": k,
            "n_iter": int(km.n_iter_), "ms_per_iteration": seconds / km.n_iter_ * 1e3}


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--n", type=int, default=4194304)
    p.add_argument("--d", type=int, default=4)
    p.add_argument("--k", type=int, default=300)
    p.add_argument("--sklearn-n", type=int, default=1048576)
    a = p.parse_args()
    results = []
    try:
        results.append(torch_assignment(a.n, a.d, a.k, 20))
    except ImportError:
        pass
    results.append(sklearn_lloyd(a.sklearn_n, a.d, a.k, 10))
    print(json.dumps([r for r in results if r], indent=1))


if __name__ == "__main__":
    main()
