#!/usr/bin/env python3
"""Peers for the PageRank benchmark, timed on the same machine and graphs: CuPy (cuSPARSE's CSR SpMV)
on the GPU and scipy's CSR SpMV on the CPU, each with the value array 1/outdeg that itercl's formats do
without. For each graph: the SpMV alone (y = M x, M = the in-link matrix scaled by 1/outdeg), and a
whole networkx-style iteration (SpMV, dangling mass, damping, the L1 change brought to the host as a
convergence test needs). CuPy is skipped when it or a GPU is missing.

    benchmarks/pagerank/peers.py [--scales 18,19,20,21,22] [--data DIR] [--repeats 20]

R-MAT graphs are drawn here with the suite's parameters (a = .57, b = c = .19, edge factor 16) from
another random stream than itercl's: the same distribution, not the same edges. Prints JSON.
"""
import argparse
import io
import json
import os
import statistics
import tarfile
import time

import numpy as np
import scipy
import scipy.sparse as sp

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ALPHA = 0.85

# Each real graph's quirk (datasets/README.md): lines to skip before the edges.
REAL = {"hollins": ("hollins.dat", 1), "p2p-Gnutella08": ("p2p-Gnutella08.txt", 1), "wiki-Vote": ("wiki-Vote.txt", 0),
        "web-NotreDame": ("web-NotreDame.tar.gz", 1)}


def read_edges(path, skip):
    if path.endswith(".tar.gz"):
        with tarfile.open(path) as t:
            member = next(m for m in t.getmembers() if m.isfile() and not os.path.basename(m.name).startswith("._"))
            text = t.extractfile(member).read().decode()
    else:
        with open(path) as f:
            text = f.read()
    lines = [l for l in text.splitlines()[skip:] if l.strip() and not l.startswith("#")]
    e = np.loadtxt(io.StringIO("\n".join(lines)), dtype=np.int64, usecols=(0, 1), ndmin=2)
    ids, inverse = np.unique(e, return_inverse=True)  # nodes are the ids that occur, as itercl numbers them
    inverse = inverse.reshape(e.shape)
    return len(ids), inverse[:, 0].astype(np.int32), inverse[:, 1].astype(np.int32)


def rmat(xp, scale, seed, a=0.57, b=0.19, c=0.19, edge_factor=16):
    m = edge_factor << scale
    if xp is np:
        rng = np.random.default_rng(seed)
        uniform = lambda: rng.random(m, dtype=np.float32)
    else:
        rng = xp.random.RandomState(seed)
        uniform = lambda: rng.random_sample(m, dtype=xp.float32)
    u = xp.zeros(m, dtype=xp.int32)
    v = xp.zeros(m, dtype=xp.int32)
    for level in range(scale - 1, -1, -1):
        r = uniform()
        u |= (r >= a + b).astype(xp.int32) << level
        v |= (((r >= a) & (r < a + b)) | (r >= a + b + c)).astype(xp.int32) << level
    return 1 << scale, u, v


def matrix(sparse, xp, n, src, dst):
    """The in-link matrix with values 1/outdeg (repeated links summed), its dangling mask."""
    outdeg = xp.bincount(src, minlength=n).astype(xp.float32)
    inv = xp.where(outdeg > 0, 1 / xp.maximum(outdeg, 1), 0).astype(xp.float32)
    m = sparse.coo_matrix((inv[src], (dst, src)), shape=(n, n)).tocsr()
    return m, (outdeg == 0).astype(xp.float32)


def time_gpu(cp, f, repeats):
    f()
    cp.cuda.Device().synchronize()
    times = []
    for _ in range(repeats):
        start, end = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        f()
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end))
    return statistics.median(times)


def time_cpu(f, repeats):
    f()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        f()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def iteration(xp, m, dangling, n):
    p = xp.float32(1.0 / n)
    x = xp.full(n, p, dtype=xp.float32)

    def step():
        nonlocal x
        new = ALPHA * (m @ x + float(dangling @ x) * p) + (1 - ALPHA) * p
        err = float(xp.abs(new - x).sum())  # the convergence test brings one number to the host
        x = new
        return err
    return step


def peer_rows(name, n, src, dst, gpu, repeats):
    rows = []
    links = int(len(src))
    if gpu:
        import cupy as cp
        import cupyx.scipy.sparse as csp
        m, dangling = matrix(csp, cp, n, cp.asarray(src), cp.asarray(dst))
        x = cp.full(n, 1.0 / n, dtype=cp.float32)
        spmv = time_gpu(cp, lambda: m @ x, repeats)
        whole = time_gpu(cp, iteration(cp, m, dangling, n), repeats)
        rows.append({"peer": f"CuPy {cp.__version__} cuSPARSE CSR SpMV",
                     "device": cp.cuda.runtime.getDeviceProperties(0)['name'].decode(),
                     "workload": f"PageRank iteration, {name}, float32, with a value array", "ms": whole,
                     "nodes": n, "links": links, "spmv_ms": spmv, "edges_per_s": links / (whole * 1e-3),
                     "ours": ours(name)})
    m, dangling = matrix(sp, np, n, np.asarray(src), np.asarray(dst))
    x = np.full(n, 1.0 / n, dtype=np.float32)
    cpu_repeats = max(3, min(repeats, int(2e8 // max(links, 1))))
    spmv = time_cpu(lambda: m @ x, cpu_repeats)
    whole = time_cpu(iteration(np, m, dangling, n), cpu_repeats)
    rows.append({"peer": f"scipy {scipy.__version__} CSR SpMV", "device": "one CPU core",
                 "workload": f"PageRank iteration, {name}, float32, with a value array", "ms": whole,
                 "nodes": n, "links": links, "spmv_ms": spmv, "edges_per_s": links / (whole * 1e-3),
                 "ours": ours(name)})
    return rows


def ours(name):
    """The itercl cases of benchmarks/pagerank/suite.json the same graph ran in (for benchmarks/report.py)."""
    varied = {"data.scale": int(name[5:])} if name.startswith("rmat-") else {"data.path": REAL[name][0]}
    return {"group": "formats", "varied": varied, "metric": "iteration_wall_ms"}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--scales", default="18,19,20,21,22")
    p.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "datasets", "graphs"))
    p.add_argument("--repeats", type=int, default=20)
    a = p.parse_args()
    try:
        import cupy as cp
        gpu = cp.cuda.runtime.getDeviceCount() > 0
    except Exception:  # no CuPy, no driver or no GPU: the CPU peer alone
        gpu = False
    rows = []
    for name, (file, skip) in REAL.items():
        path = os.path.join(a.data, file)
        if os.path.exists(path):
            rows += peer_rows(name, *read_edges(path, skip), gpu, a.repeats)
    for scale in [int(s) for s in a.scales.split(",") if s]:
        if gpu:  # drawn on the GPU (seconds faster at scale 22), copied for scipy
            import cupy as cp
            n, u, v = rmat(cp, scale, seed=1)
            u, v = cp.asnumpy(u), cp.asnumpy(v)
        else:
            n, u, v = rmat(np, scale, seed=1)
        rows += peer_rows(f"rmat-{scale}", n, u, v, gpu, a.repeats)
    print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
