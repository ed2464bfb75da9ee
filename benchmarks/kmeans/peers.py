#!/usr/bin/env python3
"""Peers for the K-Means suite, timed on the same machine: PyTorch on the GPU (the assignment as users
write it: ||x||^2 - 2 x C^T + ||c||^2, then argmin; a whole Lloyd iteration adds the update with index_add_)
and scikit-learn's Lloyd on all CPU cores. PyTorch is
skipped when it (or a GPU) is missing; without scikit-learn the peer fails, and bench reports it missing. Prints a JSON list of records
{"peer", "device", "workload", "ms", "ours"}, where "ours" names the itercl cases it compares with: a group
of benchmarks/kmeans/suite.json, values of the varied fields, and the metric (iteration_kernel_ms: one
assignment; iteration_wall_ms: a whole Lloyd iteration). benchmarks/report.py pairs them up.

    peers.py [--n 4194304] [--d 4] [--k 300] [--sklearn-n 1048576] [--group shapes] [--varied JSON] [--no-sklearn]
"""
import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from cuda_timing import cuda_ms  # noqa: E402  (benchmarks/cuda_timing.py, shared by every GPU peer)


def torch_peers(n, d, k, group, varied, repeats=20):
    """The assignment alone and a whole Lloyd iteration (assignment, per-cluster sums and counts with
    index_add_, the division), both on the GPU, as a PyTorch user writes them."""
    try:
        import torch
    except ImportError:
        return []
    if not torch.cuda.is_available():
        return []
    g = torch.Generator(device="cuda").manual_seed(1)
    x = torch.rand(n, d, device="cuda", generator=g)
    c = torch.rand(k, d, device="cuda", generator=g)

    def assign():
        return ((x * x).sum(1, keepdim=True) - 2 * x @ c.T + (c * c).sum(1)).argmin(1)

    def lloyd():
        labels = assign()
        sums = torch.zeros(k, d, device="cuda").index_add_(0, labels, x)
        counts = torch.zeros(k, device="cuda").index_add_(0, labels, torch.ones(n, device="cuda"))
        return sums / counts.clamp(min=1).unsqueeze(1)

    varied = varied or {"data.n_samples": n, "data.n_features": d, "params.n_clusters": k}
    out = []
    for what, step, metric in (("assignment", assign, "iteration_kernel_ms"), ("Lloyd iteration", lloyd,
                                                                               "iteration_wall_ms")):
        out.append({"peer": f"PyTorch {torch.__version__}", "device": torch.cuda.get_device_name(),
                    "workload": f"{what}, N = {n}, D = {d}, K = {k}, float32", "ms": cuda_ms(torch, step, repeats, 3),
                    "ours": {"group": group, "varied": varied, "metric": metric}})
    return out


def sklearn_lloyd(n, d, k, iterations=10):
    import sklearn  # the CPU peer: missing, bench reports it missing (exit 1)
    from sklearn.cluster import KMeans
    x = np.random.default_rng(1).random((n, d), dtype=np.float32)
    km = KMeans(n_clusters=k, init="random", n_init=1, max_iter=iterations, tol=0, random_state=2)
    start = time.perf_counter()
    km.fit(x)
    seconds = time.perf_counter() - start
    return {"peer": f"scikit-learn {sklearn.__version__} Lloyd", "device": "all CPU cores",
            "workload": f"Lloyd iteration, N = {n}, D = {d}, K = {k}, float32", "ms": seconds / km.n_iter_ * 1e3,
            "ours": {"group": "shapes", "varied": {"data.n_samples": n, "data.n_features": d, "params.n_clusters": k},
                     "metric": "iteration_wall_ms"}}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=4194304)
    p.add_argument("--d", type=int, default=4)
    p.add_argument("--k", type=int, default=300)
    p.add_argument("--sklearn-n", type=int, default=1048576)
    p.add_argument("--group", default="shapes", help="the suite's group the records compare with")
    p.add_argument("--varied", type=json.loads, default=None,
                   help="the group's varied values the records compare with, as JSON (default: N, D and K)")
    p.add_argument("--no-sklearn", action="store_true")
    a = p.parse_args()
    records = torch_peers(a.n, a.d, a.k, a.group, a.varied)
    if not a.no_sklearn:
        records.append(sklearn_lloyd(a.sklearn_n, a.d, a.k))
    print(json.dumps([r for r in records if r], indent=1))


if __name__ == "__main__":
    main()
