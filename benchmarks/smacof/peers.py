#!/usr/bin/env python3
"""Peers for the SMACOF benchmark, timed on the same machine: a dense PyTorch SMACOF iteration on the GPU
(cdist, B(X) X, cdist again and the stress, as users write it) and scikit-learn's smacof on the CPU
cores. PyTorch is skipped when it (or a GPU) is missing; without
scikit-learn the peer fails, and bench reports it missing. Prints a JSON list of records
{"peer", "device", "workload", "ms", "ours"}; "ours" names the itercl cases of benchmarks/smacof/suite.json
it compares with (group, varied values, metric), for benchmarks/report.py.

    benchmarks/smacof/peers.py [--n 16384] [--sklearn-n 4096] [--iterations 10]
"""
import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from cuda_timing import cuda_ms  # noqa: E402  (benchmarks/cuda_timing.py, shared by every GPU peer)


def dissimilarities(n, features, seed=1):
    v = np.random.default_rng(seed).random((n, features))
    sq = (v * v).sum(1)
    return np.sqrt(np.maximum(sq[:, None] + sq[None, :] - 2 * v @ v.T, 0))


def torch_smacof(n, features, iterations):
    import torch
    if not torch.cuda.is_available():
        return None
    g = torch.Generator(device="cuda").manual_seed(1)
    v = torch.rand(n, features, device="cuda", generator=g)
    delta = torch.cdist(v, v)
    x = torch.rand(n, 2, device="cuda", generator=g)

    def step(x):
        d = torch.cdist(x, x)
        ratio = torch.where(d > 0, delta / d, torch.zeros_like(d))
        b = -ratio
        b.diagonal().add_(ratio.sum(1))
        x = b @ x / n
        stress = ((torch.cdist(x, x) - delta) ** 2).sum() / 2
        return x, stress.item()  # the stop rule needs the stress on the host each iteration

    state = [x]

    def advance():  # one iteration from the last one's embedding
        state[0], _ = step(state[0])

    ms = cuda_ms(torch, advance, iterations, warmups=3)
    return {"peer": f"PyTorch {torch.__version__} dense SMACOF", "device": torch.cuda.get_device_name(),
            "workload": f"iteration, N = {n}, 2-D, float32", "ms": ms,
            "ours": {"group": "steps", "varied": {"data.n_samples": n}, "metric": "iteration_wall_ms"}}


def sklearn_smacof(n, features, iterations):
    import sklearn  # the CPU peer: missing, bench reports it missing (exit 1)
    from sklearn.manifold import smacof
    delta = dissimilarities(n, features)
    init = np.random.default_rng(2).random((n, 2))
    start = time.perf_counter()
    _, stress, n_iter = smacof(delta, init=init, n_init=1, max_iter=iterations, eps=0, return_n_iter=True,
                               normalized_stress=False)
    seconds = time.perf_counter() - start
    return {"peer": f"scikit-learn {sklearn.__version__} smacof", "device": "all CPU cores",
            "workload": f"iteration, N = {n}, 2-D, float64", "ms": seconds / n_iter * 1e3,
            "ours": {"group": "steps", "varied": {"data.n_samples": n}, "metric": "iteration_wall_ms"}}


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--n", type=int, default=16384)
    p.add_argument("--sklearn-n", type=int, default=4096)
    p.add_argument("--features", type=int, default=4)
    p.add_argument("--iterations", type=int, default=10)
    a = p.parse_args()
    results = []
    try:
        results.append(torch_smacof(a.n, a.features, a.iterations))
    except ImportError:
        pass
    results.append(sklearn_smacof(a.sklearn_n, a.features, a.iterations))
    print(json.dumps([r for r in results if r], indent=1))


if __name__ == "__main__":
    main()
