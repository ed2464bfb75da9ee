#!/usr/bin/env python3
"""Seed 004's overhead model (section 4.2: T = c + o per iteration) extended with the communication each
algorithm does over P MPI ranks, predicting the time per iteration from 1 to 1,024 ranks (one GPU each)
on a 100 Gb/s network (issue 11's "beyond one host, on paper").

    benchmarks/mpi/model.py --results benchmarks/results/nvidia-h200 \
        --collectives benchmarks/results/pocl-xeon-2-cores/mpi-collectives.jsonl --out benchmarks/results/report

Per iteration on P ranks, for a problem of work W (points, pairs or links):
    T(P) = c1 * (W / P) / W1  +  o1  +  u(P)  +  m(P)
    c1, W1  the kernel time of one H200 at the measured size W1 (the suites' default runs, read from
            --results): the kernels are bandwidth or compute bound at these sizes, so c scales with the
            work per GPU;
    o1      that run's wall time minus its kernel time: launches, transfers and host work, which every
            rank pays whatever P is;
    u(P)    what ranks move across PCIe because of the split (the gathered iterate uploaded to the device);
    m(P)    the collectives, with the costs of MPICH's algorithms (Thakur, Rabenseifner and Gropp, "Optimization
            of collective communication operations in MPICH", IJHPCA 2005), alpha per message and beta per byte:
              allreduce(m) = min(log2 P (alpha + m beta), 2 log2 P alpha + 2 (P - 1) / P m beta)
              allgather(m) = log2 P alpha + (P - 1) / P m beta              (m: the gathered whole)
              bcast(m)     = min(log2 P (alpha + m beta), (log2 P + P - 1) alpha + 2 (P - 1) / P m beta)
The reductions' arithmetic and the ranks' waiting for the slowest (skew) are left out: the first is
small beside the bytes, the second is what measured comm_ms adds on top (see the report).

--collectives: mpi_collectives' output (benchmarks/mpi/collectives.cpp) from the MPI used here; alpha and
beta are fitted per collective and shown beside the network's, so that the model's form can be held against
a measurement. --measured: folders of benchmarks/mpi/scaling.py's runs on GPUs (scaling.jsonl, the last
line of each algorithm, mode and rank count winning), drawn over the prediction and tabulated. Needs
matplotlib.
"""
import argparse
import json
import math
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from efficiency import efficiency, efficiency_axes  # noqa: E402  (beside this script)

# The network and the bus: assumptions, written into the report.
NETWORK = {"alpha_s": 2e-6, "beta_s_per_byte": 1 / 12.5e9,
           "why": "100 Gb/s (12.5 GB/s) per rank, 2 us per message: MPI latency over InfiniBand HDR100 / "
                  "EDR is 1-2 us, RoCE 2-3 us; every rank's traffic crosses the network (no faster NVLink "
                  "inside a host), so the prediction is pessimistic for ranks that share a host"}
PCIE_BYTES_PER_S = 25e9  # pageable host memory to an H200 over PCIe 5.0 x16, about half the link's peak
RANKS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]


def allreduce(p, m, a, b):
    if p == 1:
        return 0.0
    lg = math.log2(p)
    return min(lg * (a + m * b), 2 * lg * a + 2 * (p - 1) / p * m * b)


def allgather(p, m, a, b):
    return 0.0 if p == 1 else math.log2(p) * a + (p - 1) / p * m * b


def bcast(p, m, a, b):
    if p == 1:
        return 0.0
    lg = math.log2(p)
    return min(lg * (a + m * b), (lg + p - 1) * a + 2 * (p - 1) / p * m * b)


def case_metrics(path, group, match):
    """The median metrics of the first case of `group` in a bench results file whose name holds `match`."""
    with open(path) as f:
        cases = json.load(f)["cases"]
    for c in cases:
        if c["group"] == group and match in c["case"] and "metrics" in c:
            return {k: v["median"] for k, v in c["metrics"].items()}
    raise SystemExit(f"{path}: no case of group {group!r} matching {match!r} with metrics")


def measured(results):
    """One H200's run of each algorithm: kernel and wall milliseconds at the measured work W1."""
    km = case_metrics(os.path.join(results, "kmeans-lloyd.json"), "lloyd_d4", "update=auto")
    sm = case_metrics(os.path.join(results, "smacof-slices.json"), "sizes", "n_samples=65536")
    pr = case_metrics(os.path.join(results, "pagerank-defaults.json"), "defaults", "scale:22")
    ph = case_metrics(os.path.join(results, "pair_histogram.json"), "sdh_default", "n_samples=1048576")
    return {
        "kmeans": {"c": km["iteration_kernel_ms"], "wall": km["iteration_wall_ms"], "n": 4194304,
                   "source": "kmeans-lloyd.json lloyd_d4 update=auto (N 4,194,304, D 4, K 300)"},
        "smacof": {"c": sm["iteration_kernel_ms"], "wall": sm["iteration_wall_ms"], "n": 65536,
                   "source": "smacof-slices.json sizes n_samples=65536 (2-D)"},
        "pagerank": {"c": pr["iteration_kernel_ms"], "wall": pr["iteration_wall_ms"], "scale": 22,
                     "source": "pagerank-defaults.json R-MAT 22 (edge factor 16)"},
        "histogram": {"c": ph["total_kernel_ms"], "wall": ph["total_wall_ms"], "n": 1048576,
                      "source": "pair_histogram.json sdh_default n_samples=1048576 (a whole run)"},
    }


def problems(m):
    """Each scenario: a function of P giving (compute ms, overhead ms, PCIe ms, communication ms)."""
    a, b = NETWORK["alpha_s"], NETWORK["beta_s_per_byte"]
    ms = 1e3

    def kmeans(n_of_p, k=300, d=4):
        km = m["kmeans"]
        o = km["wall"] - km["c"]
        return lambda p: (km["c"] * n_of_p(p) / p / km["n"], o, 0.0, allreduce(p, (k * d + k + 2) * 8, a, b) * ms)

    def smacof(n_of_p, dims=2, real=4):
        sm = m["smacof"]
        o = sm["wall"] - sm["c"]

        def t(p):
            n = n_of_p(p)
            x_bytes = n * dims * real
            pcie = (x_bytes if p > 1 else 0) / PCIE_BYTES_PER_S * ms  # the gathered X back to the device
            return sm["c"] * (n * n / p) / sm["n"] ** 2, o, pcie, allgather(p, x_bytes + 16 * p, a, b) * ms
        return t

    def smacof_packed(n_of_p, dims=2, real=4):
        # Packed storage over ranks: each rank a 1/P of the slices, every row's partial sums down, one
        # allreduce of n x dims + 2 doubles, X back up. The kernel's c is full storage's (packed ran 1.35x
        # full's kernel time on an H200 at n = 65,536: nvidia-h200-x2/README.md), as for one device.
        sm = m["smacof"]
        o = sm["wall"] - sm["c"]

        def t(p):
            n = n_of_p(p)
            pcie = (2 * n * dims * real if p > 1 else 0) / PCIE_BYTES_PER_S * ms
            return sm["c"] * (n * n / p) / sm["n"] ** 2, o, pcie, allreduce(p, (n * dims + 2) * 8, a, b) * ms
        return t

    def pagerank(scale_of_p, real=4):
        pr = m["pagerank"]
        o = pr["wall"] - pr["c"]

        def t(p):
            n = 2.0 ** scale_of_p(p)
            pcie = (n * real if p > 1 else 0) / PCIE_BYTES_PER_S * ms  # own rows of z down, the others' up
            comm = (allgather(p, n * real, a, b) + allreduce(p, 16, a, b)) * ms
            return pr["c"] * n / p / 2.0 ** pr["scale"], o, pcie, comm
        return t

    def pagerank_2d(scale_of_p, real=4):
        # Not built: links cut on a sqrt(P) x sqrt(P) grid of ranks (as CombBLAS does), so that a rank
        # gathers n / sqrt(P) entries of x along its column and reduce-scatters as many partial sums along
        # its row, instead of gathering all n.
        pr = m["pagerank"]
        o = pr["wall"] - pr["c"]

        def t(p):
            n, q = 2.0 ** scale_of_p(p), math.sqrt(p)
            piece = n / q * real
            pcie = (2 * piece if p > 1 else 0) / PCIE_BYTES_PER_S * ms
            comm = (2 * allgather(q, piece, a, b) + allreduce(p, 16, a, b)) * ms if p > 1 else 0.0
            return pr["c"] * n / p / 2.0 ** pr["scale"], o, pcie, comm
        return t

    def histogram(n_of_p, bins=256, dims=3):
        ph = m["histogram"]
        o = ph["wall"] - ph["c"]

        def t(p):
            n = n_of_p(p)
            comm = (bcast(p, n * dims * 8, a, b) + allreduce(p, bins * 8, a, b)) * ms
            return ph["c"] * (n * n / p) / ph["n"] ** 2, o, 0.0, comm
        return t

    return [
        ("K-Means, N = 64 M, strong", "strong", kmeans(lambda p: 64 * 2**20)),
        ("K-Means, N = 1 G, strong", "strong", kmeans(lambda p: 2**30)),
        ("K-Means, 16 M points per rank, weak", "weak", kmeans(lambda p: 16 * 2**20 * p)),
        ("SMACOF, n = 65,536, strong", "strong", smacof(lambda p: 65536)),
        ("SMACOF, n = 300,000, strong", "strong", smacof(lambda p: 300000)),
        ("SMACOF, n = 300,000, packed over the ranks, strong", "strong", smacof_packed(lambda p: 300000)),
        ("SMACOF, 65,536² pairs per rank, weak", "weak", smacof(lambda p: 65536 * math.sqrt(p))),
        ("PageRank, R-MAT 26, strong", "strong", pagerank(lambda p: 26)),
        ("PageRank, R-MAT 22 per rank, weak", "weak", pagerank(lambda p: 22 + math.log2(p))),
        ("PageRank 2-D split (not built), R-MAT 26, strong", "strong", pagerank_2d(lambda p: 26)),
        ("PageRank 2-D split (not built), R-MAT 22 per rank, weak", "weak", pagerank_2d(lambda p: 22 + math.log2(p))),
        ("Histogram, 4 M points, strong (whole run)", "strong", histogram(lambda p: 4 * 2**20)),
        ("Histogram, 4 M² pairs per rank, weak (whole run)", "weak", histogram(lambda p: 4 * 2**20 * math.sqrt(p))),
    ]


def fit(points):
    """alpha: the median time of messages up to 512 bytes; beta: the largest message's time past alpha, per
    byte. (A least-squares line lets a few large, noisy messages make alpha negative.)"""
    small = sorted(t for b, t in points if b <= 512)
    alpha = small[len(small) // 2]
    size, t = max(points)
    return alpha, max(t - alpha, 0.0) / size


def collectives_rows(paths):
    rows = []
    for path in paths:
        with open(path) as f:
            lines = [json.loads(line) for line in f if line.strip()]
        for name in sorted({x["collective"] for x in lines}):
            for ranks in sorted({x["ranks"] for x in lines if x["collective"] == name}):
                pts = [(x["bytes"], x["seconds"]) for x in lines if x["collective"] == name and x["ranks"] == ranks]
                alpha, beta = fit(pts)
                rows.append(f"| {os.path.basename(os.path.dirname(path))}/{os.path.basename(path)} | {name} | {ranks} | {alpha * 1e6:.2f} | "
                            f"{max(pts)[0] / 2**20:g} | {1 / beta / 1e9 if beta > 0 else float('inf'):.2f} |")
    return rows


def measured_scaling(folders, root):
    """Per (folder, algorithm, mode): [(ranks, efficiency)] of the scaling runs recorded in each folder, each
    named by its path from `root` (the results' folder)."""
    out = {}
    for folder in folders:
        latest = {}
        with open(os.path.join(folder, "scaling.jsonl")) as log:
            for text in log:
                line = json.loads(text)
                if "wall_ms" in line:
                    latest[(line["algorithm"], line["mode"], line["ranks"])] = line
        for (algorithm, mode, ranks), line in sorted(latest.items()):
            one = latest.get((algorithm, mode, 1))
            if one and ranks > 1:
                where = os.path.relpath(os.path.abspath(folder), root)  # machine/run
                runs = out.setdefault((where, algorithm, mode), [(1, 1.0)])
                runs.append((ranks, efficiency(mode, ranks, one["wall_ms"], line["wall_ms"])))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--results", required=True, help="folder of one GPU's bench results (nvidia-h200)")
    ap.add_argument("--collectives", nargs="*", default=[], help="mpi_collectives output files")
    ap.add_argument("--measured", nargs="*", default=[], help="folders of scaling.py runs (scaling.jsonl)")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    m = measured(args.results)
    os.makedirs(args.out, exist_ok=True)

    lines = ["# Time per iteration over 1 to 1,024 ranks: the model", "",
             "Made by `benchmarks/mpi/model.py` (its docstring gives the formulas); see docs/mpi-model.md.", "",
             f"Network: alpha {NETWORK['alpha_s'] * 1e6:g} us per message, {1 / NETWORK['beta_s_per_byte'] / 1e9:g} "
             f"GB/s per rank ({NETWORK['why']}). PCIe: {PCIE_BYTES_PER_S / 1e9:g} GB/s.", "",
             "Measured on one H200 (the model's c and o):", ""]
    lines += [f"- {k}: kernel {v['c']:.3f} ms, wall {v['wall']:.3f} ms ({v['source']})" for k, v in m.items()]
    fig, axes = plt.subplots(1, 2, figsize=(13, 5))
    for title, kind, t in problems(m):
        lines += ["", f"## {title}", "",
                  "| ranks | compute ms | overhead ms | PCIe ms | communication ms | total ms | efficiency |",
                  "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
        base = sum(t(1))
        eff = []
        for p in RANKS:
            parts = t(p)
            total = sum(parts)
            e = efficiency(kind, p, base, total)
            eff.append(e)
            lines.append(f"| {p} | " + " | ".join(f"{x:.4g}" for x in parts) + f" | {total:.4g} | {e:.0%} |")
        ax = axes[0 if kind == "strong" else 1]
        ax.plot(RANKS, eff, marker="o", label=title.rsplit(",", 1)[0])
    scaling = measured_scaling(args.measured, os.path.dirname(os.path.abspath(args.results)))
    if scaling:
        lines += ["", "## Measured on GPUs of one host (benchmarks/mpi/scaling.py)", "",
                  "| machine / run | algorithm | scaling | efficiency by ranks |", "| --- | --- | --- | --- |"]
    for (machine, algorithm, mode), runs in scaling.items():
        lines.append(f"| {machine} | {algorithm} | {mode} | " +
                     ", ".join(f"{p}: {e:.0%}" for p, e in runs) + " |")
        axes[0 if mode == "strong" else 1].plot([p for p, _ in runs], [e for _, e in runs], linestyle="--",
                                                marker="x", label=f"measured: {algorithm} ({machine})")
    for ax, kind in zip(axes, ("strong", "weak")):
        efficiency_axes(ax, kind, "predicted (100 Gb/s, 2 us)" + (", and measured" if scaling else ""))
    fig.tight_layout()
    fig.savefig(os.path.join(args.out, "mpi-model.png"), dpi=110)

    if args.collectives:
        lines += ["", "## The collectives measured with the MPI used here", "",
                  "alpha: the median time of messages up to 512 bytes; bandwidth: the largest message's bytes "
                  "over its time past alpha. These are one host's shared-memory transport, not the network: they "
                  "check the form of the costs, not the network's numbers.", "",
                  "| file | collective | ranks | alpha us | largest MiB | bandwidth GB/s |",
                  "| --- | --- | ---: | ---: | ---: | ---: |"]
        lines += collectives_rows(args.collectives)
    lines += ["", "![predicted and measured efficiency](mpi-model.png)", ""]
    with open(os.path.join(args.out, "mpi-model.md"), "w") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    main()
