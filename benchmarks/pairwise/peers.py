#!/usr/bin/env python3
"""Peers for the pairwise benchmark, timed on the same machine: PyTorch on the GPU (torch.cdist with p = 1
for cityblock; euclidean through cuBLAS, the ||x||^2 - 2 x y^T + ||y||^2 form; with --knn-n, the k nearest
neighbours by that form and topk, rows in chunks) and scipy on the CPU (pdist). The distance histogram's peer is benchmarks/pair_histogram/peers.py. PyTorch is skipped when it is
missing; without SciPy the peer fails, and bench reports it missing. Prints a JSON list of records {"peer", "device", "workload", "ms", "ours"}; "ours" names the
itercl cases of benchmarks/pairwise/suite.json it compares with (group, varied values, metric), for
benchmarks/report.py.

    benchmarks/pairwise/peers.py [--n 6000] [--d 5419] [--scipy-n 1000]
    benchmarks/pairwise/peers.py --knn-n 50000 200000 [--knn-d 64] [--knn-k 10]   (only the k nearest)
"""
import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from cuda_timing import cuda_ms  # noqa: E402  (benchmarks/cuda_timing.py, shared by every GPU peer)


def torch_peers(n, d, repeats):
    import torch
    if not torch.cuda.is_available():
        return []
    name, device = f"PyTorch {torch.__version__}", torch.cuda.get_device_name()
    g = torch.Generator(device="cuda").manual_seed(1)
    out = []
    for precision, dtype in (("float", torch.float32), ("double", torch.float64)):
        x = torch.rand(n, d, device="cuda", generator=g, dtype=dtype)
        out.append({"peer": name, "device": device, "workload": f"cityblock, torch.cdist(p=1), n = {n}, d = {d}, {precision}",
                    "ms": cuda_ms(torch, lambda: torch.cdist(x, x, p=1), repeats),
                    "ours": {"group": "table", "varied": {"data.n_samples": n, "data.n_features": d, "precision": precision},
                             "metric": "total_kernel_ms"}})
        out.append({"peer": name, "device": device,
                    "workload": f"euclidean through cuBLAS (torch.cdist, use_mm_for_euclid_dist), n = {n}, d = {d}, {precision}",
                    "ms": cuda_ms(torch, lambda: torch.cdist(x, x, compute_mode="use_mm_for_euclid_dist"), repeats),
                    "ours": {"group": "euclidean", "varied": {}, "metric": "total_kernel_ms"} if precision == "float" else None})
        del x
    return out


def torch_knn(sizes, d, k, repeats, chunk_bytes=4 << 30):
    """Each row's k nearest other rows of one input (euclidean, float): per chunk of rows, the squared
    distances by cuBLAS (||x||^2 + ||y||^2 - 2 x y^T, TF32 off as by default), the self-pair set to
    infinity, topk of the smallest, the root of those. Chunks of rows so that a chunk's distances take
    at most chunk_bytes."""
    import torch
    if not torch.cuda.is_available():
        return []
    name, device = f"PyTorch {torch.__version__}", torch.cuda.get_device_name()
    g = torch.Generator(device="cuda").manual_seed(1)
    out = []
    for n in sizes:
        x = torch.rand(n, d, device="cuda", generator=g, dtype=torch.float32)
        norms = (x * x).sum(1)
        rows = max(1, chunk_bytes // (4 * n))

        def step():
            for r0 in range(0, n, rows):
                r1 = min(n, r0 + rows)
                d2 = torch.addmm(norms[r0:r1, None] + norms[None, :], x[r0:r1], x.T, alpha=-2)
                d2[torch.arange(r1 - r0, device="cuda"), torch.arange(r0, r1, device="cuda")] = float("inf")
                values, indices = torch.topk(d2, k, dim=1, largest=False)
                values.clamp_(min=0).sqrt_()
        out.append({"peer": name, "device": device,
                    "workload": f"knn, euclidean, n = {n} x {n}, d = {d}, k = {k}, float: addmm + topk in chunks "
                                f"of {rows} rows",
                    "ms": cuda_ms(torch, step, repeats),
                    "ours": {"group": "knn", "varied": {"data.n_samples": n}, "metric": "total_kernel_ms"}})
        del x, norms
        torch.cuda.empty_cache()
    return out


def scipy_peers(n, d, repeats):
    import scipy  # the CPU peer: missing, bench reports it missing (exit 1)
    from scipy.spatial.distance import pdist
    x = np.random.default_rng(1).random((n, d))
    out = []
    for metric in ("cityblock", "euclidean"):
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            pdist(x, metric)
            times.append((time.perf_counter() - start) * 1e3)
        out.append({"peer": f"scipy {scipy.__version__} pdist", "device": "one CPU core",
                    "workload": f"{metric}, n = {n}, d = {d}, float64", "ms": statistics.median(times),
                    "ours": {"group": "table", "varied": {"data.n_samples": n, "data.n_features": d, "precision": "double"},
                             "metric": "total_wall_ms"} if metric == "cityblock" else None})
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--n", type=int, default=6000)
    p.add_argument("--d", type=int, default=5419)
    p.add_argument("--scipy-n", type=int, default=1000)
    p.add_argument("--repeats", type=int, default=10)
    p.add_argument("--knn-n", type=int, nargs="*", default=[])
    p.add_argument("--knn-d", type=int, default=64)
    p.add_argument("--knn-k", type=int, default=10)
    a = p.parse_args()
    if a.knn_n:
        try:
            print(json.dumps(torch_knn(a.knn_n, a.knn_d, a.knn_k, 5), indent=1))
        except ImportError:
            print("[]")
        return
    results = []
    try:
        results += torch_peers(a.n, a.d, a.repeats)
    except ImportError:
        pass
    results += scipy_peers(a.scipy_n, a.d, 3)
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
