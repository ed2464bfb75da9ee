#!/usr/bin/env python3
"""The peers' whole calls for the time-to-solution workloads (README.md beside this file), measured as a
user with a stopwatch around the call would: from the inputs in host memory to the result in host memory.

- PyTorch K-Means: the points' host-to-device copy, Lloyd iterations from the same kind of start (K random
  samples), the labels and centroids back.
- CuPy PageRank: the edge arrays' copy, the in-link CSR built on the GPU from them (cuSPARSE's COO to CSR),
  the out-degrees, 20 power iterations with cuSPARSE's SpMV, the ranks back.
- scikit-learn KMeans.fit on all CPU cores (10 iterations from random samples).

Each runs `--repeat` times after one warm-up; prints a JSON list of {"peer", "workload", "workload_of" (the
config of benchmarks/time_to_solution it compares with), "ms": [...]} (each call's wall time). A peer whose
package or GPU is missing is reported with "missing".

    peers.py [--repeat 3] [--which kmeans,pagerank,sklearn]
"""
import argparse
import json
import sys
import time

import numpy as np


def timed(call, repeat):
    call()  # warm-up: the libraries' own first-call costs (CUDA context, cuBLAS handles) stay outside
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        out.append((time.perf_counter() - start) * 1e3)
    return out


def torch_kmeans(n, d, k, iterations, repeat, config):
    import torch
    x_host = np.random.default_rng(1).random((n, d), dtype=np.float32)
    start_rows = np.random.default_rng(2).choice(n, k, replace=False)

    chunk = 1 << 23  # rows per distance matrix: 64 M x 300 distances at once would need 75 GB

    def assign(x, c):
        return torch.cat([((p * p).sum(1, keepdim=True) - 2 * p @ c.T + (c * c).sum(1)).argmin(1)
                          for p in x.split(chunk)])

    def call():
        x = torch.from_numpy(x_host).to("cuda")
        c = x[torch.from_numpy(start_rows).to("cuda")].clone()
        ones = torch.ones(n, device="cuda")
        for _ in range(iterations):
            labels = assign(x, c)
            sums = torch.zeros(k, d, device="cuda").index_add_(0, labels, x)
            counts = torch.zeros(k, device="cuda").index_add_(0, labels, ones)
            c = sums / counts.clamp(min=1).unsqueeze(1)
        return assign(x, c).cpu().numpy(), c.cpu().numpy()

    return {"peer": f"PyTorch {torch.__version__}", "device": torch.cuda.get_device_name(), "workload_of": config,
            "workload": f"K-Means whole call, N = {n}, D = {d}, K = {k}, {iterations} iterations, float32",
            "ms": timed(call, repeat)}


def cupy_pagerank(scale, iterations, repeat, alpha=0.85):
    import cupy as cp
    import cupyx.scipy.sparse as sparse
    n, m = 1 << scale, 16 << scale
    # R-MAT (a = .57, b = c = .19) drawn on the GPU, then held in host memory as the call's input.
    rng = cp.random.default_rng(1)
    src, dst = cp.zeros(m, cp.int64), cp.zeros(m, cp.int64)
    for _ in range(scale):
        r = rng.random(m)
        right = (r >= 0.57) & (r < 0.76) | (r >= 0.95)
        down = r >= 0.76
        src, dst = src * 2 + down, dst * 2 + right
    src_host, dst_host = src.astype(cp.int32).get(), dst.astype(cp.int32).get()
    del src, dst

    def call():
        s, t = cp.asarray(src_host), cp.asarray(dst_host)
        links = sparse.coo_matrix((cp.ones(m, cp.float32), (t, s)), shape=(n, n)).tocsr()  # row = destination
        out_degree = cp.bincount(s, minlength=n).astype(cp.float32)
        inverse = cp.where(out_degree > 0, 1 / cp.maximum(out_degree, 1), 0).astype(cp.float32)
        dangling = out_degree == 0
        x = cp.full(n, 1 / n, cp.float32)
        for _ in range(iterations):
            x = alpha * (links @ (x * inverse) + x[dangling].sum() / n) + (1 - alpha) / n
        return x.get()

    return {"peer": f"CuPy {cp.__version__} (cuSPARSE)", "workload_of": "pagerank-rmat22",
            "device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(),
            "workload": f"PageRank whole call, R-MAT {scale} ({m} edges), {iterations} iterations, float32",
            "ms": timed(call, repeat)}


def sklearn_kmeans(n, d, k, iterations, repeat):
    import sklearn
    from sklearn.cluster import KMeans
    x = np.random.default_rng(1).random((n, d), dtype=np.float32)

    def call():
        KMeans(n_clusters=k, init="random", n_init=1, max_iter=iterations, tol=0, random_state=2).fit(x)

    return {"peer": f"scikit-learn {sklearn.__version__}", "device": "all CPU cores", "workload_of": "kmeans-4m-d4 (CPU)",
            "workload": f"K-Means whole fit, N = {n}, D = {d}, K = {k}, {iterations} iterations, float32",
            "ms": timed(call, repeat)}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--which", default="kmeans,pagerank,sklearn")
    a = p.parse_args()
    which = a.which.split(",")
    runs = []
    if "kmeans" in which:
        runs += [("PyTorch", lambda: torch_kmeans(4194304, 4, 300, 10, a.repeat, "kmeans-4m-d4")),
                 ("PyTorch", lambda: torch_kmeans(1048576, 32, 1024, 10, a.repeat, "kmeans-1m-d32")),
                 ("PyTorch", lambda: torch_kmeans(67108864, 4, 300, 20, a.repeat, "kmeans-64m-d4"))]
    if "pagerank" in which:
        runs.append(("CuPy", lambda: cupy_pagerank(22, 20, a.repeat)))
    if "sklearn" in which:
        runs.append(("scikit-learn", lambda: sklearn_kmeans(4194304, 4, 300, 10, a.repeat)))
    out = []
    for name, run in runs:
        try:
            out.append(run())
        except ImportError as e:
            out.append({"peer": name, "missing": str(e)})
        print(json.dumps(out[-1]), file=sys.stderr, flush=True)  # progress; the list goes to stdout
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
