#!/usr/bin/env python3
"""Peer for the distance-histogram benchmark, timed on the same machine: PyTorch on the GPU, the SDH of
uniform 3-D points in the unit cube over [0, sqrt(3)] as torch.cdist + torch.histc over row blocks of the
pairs i < j (what a PyTorch user would write). Skipped when PyTorch or a CUDA device is missing. Prints a
JSON list of records {"peer", "device", "workload", "ms", "pairs_per_s", "ours"}; "ours" names the itercl
cases of benchmarks/pair_histogram/suite.json it compares with, for benchmarks/report.py.

    benchmarks/pair_histogram/peers.py [--n 262144] [--bins 256] [--repeats 10] [--radii 1 20]
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from cuda_timing import cuda_ms  # noqa: E402  (benchmarks/cuda_timing.py, shared by every GPU peer)


def torch_sdh(n, bins, repeats):
    import torch
    if not torch.cuda.is_available():
        return []
    g = torch.Generator(device="cuda").manual_seed(1)
    p = torch.rand(n, 3, device="cuda", generator=g)
    block = 4096  # rows of the pair matrix at a time: 4096 x n distances fit the GPU at n = 4 M

    def sdh():
        h = torch.zeros(bins, device="cuda")
        for a in range(0, n, block):
            dist = torch.cdist(p[a:a + block], p[a:])
            rows = torch.arange(dist.shape[0], device="cuda").unsqueeze(1)
            cols = torch.arange(dist.shape[1], device="cuda").unsqueeze(0)
            h += torch.histc(dist[cols > rows], bins=bins, min=0, max=3 ** 0.5)
        return h

    ms = cuda_ms(torch, sdh, max(1, repeats // 4))
    pairs = n * (n - 1) / 2
    return [{"peer": f"PyTorch {torch.__version__}", "device": torch.cuda.get_device_name(),
             "workload": f"SDH, cdist + histc, {bins} buckets, {n} points", "ms": ms, "pairs_per_s": pairs / (ms * 1e-3),
             "ours": {"group": "sdh", "varied": {"data.n_samples": n}, "metric": "total_kernel_ms"}}]


def torch_pair_counts(n, radii, repeats, group):
    """Pairs i < j within each radius (d <= r) as a PyTorch user writes it: cdist by row blocks, then
    bucketize against the radii and a cumulative bincount (one comparison for a single radius)."""
    import torch
    if not torch.cuda.is_available():
        return []
    g = torch.Generator(device="cuda").manual_seed(1)
    p = torch.rand(n, 3, device="cuda", generator=g)
    r = torch.tensor(radii, device="cuda")
    block = 4096

    def counts():
        c = torch.zeros(len(radii), dtype=torch.int64, device="cuda")
        for a in range(0, n, block):
            dist = torch.cdist(p[a:a + block], p[a:])
            rows = torch.arange(dist.shape[0], device="cuda").unsqueeze(1)
            cols = torch.arange(dist.shape[1], device="cuda").unsqueeze(0)
            d = dist[cols > rows]
            if len(radii) == 1:
                c[0] += (d <= r[0]).sum()
            else:  # the first radius >= d, counted, then summed up the radii
                c += torch.bincount(torch.bucketize(d, r), minlength=len(radii) + 1)[:len(radii)]
        return torch.cumsum(c, 0)

    ms = cuda_ms(torch, counts, max(1, repeats // 4))
    pairs = n * (n - 1) / 2
    return [{"peer": f"PyTorch {torch.__version__}", "device": torch.cuda.get_device_name(),
             "workload": f"pair counts, cdist + bucketize, {len(radii)} radii, {n} points", "ms": ms,
             "pairs_per_s": pairs / (ms * 1e-3),
             "ours": {"group": group, "varied": {"data.n_samples": n}, "metric": "total_kernel_ms"}}]


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--n", type=int, default=262144)
    p.add_argument("--bins", type=int, default=256)
    p.add_argument("--repeats", type=int, default=10)
    p.add_argument("--radii", type=int, nargs="*", default=[],
                   help="pair counts too, with this many radii 0.05, 0.10, ... (the suite's pcf groups)")
    a = p.parse_args()
    try:
        results = torch_sdh(a.n, a.bins, a.repeats)
        for k in a.radii:
            results += torch_pair_counts(a.n, [0.1] if k == 1 else [0.05 * (i + 1) for i in range(k)], a.repeats,
                                         "pcf" if k == 1 else "pcf_radii")
    except ImportError:
        results = []
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
