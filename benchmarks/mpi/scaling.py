#!/usr/bin/env python3
"""Strong and weak scaling of every algorithm over MPI ranks (issue 11): one config per algorithm and
size, run plain for one rank and with `mpirun -np P` (one device per rank) for more, and a table of the
median iteration (kernel, transfer, host, communication) and the parallel efficiency.

    benchmarks/mpi/scaling.py --itercl build/itercl --ranks 1,2 --device gpu --sizes issue --out DIR
    benchmarks/mpi/scaling.py --itercl build/itercl --ranks 1,2,4,8 --device cpu --cores-per-rank 2 --sizes small --out DIR

Strong scaling runs one problem on every rank count; weak scaling gives each rank the same work: points
for K-Means, links for PageRank, pairs for SMACOF and the distance histogram (whose n grows as sqrt P).
Efficiency: T(1) / (P T(P)) strong, T(1) / T(P) weak, on the median iteration's wall time (the whole run
for the histogram, which has no iterations). The same command serves any number of ranks and GPUs. On PoCL, `--cores-per-rank C` gives each rank C
cores (P ranks use P x C), so that the CPU's efficiencies mean what a GPU's do; without it the ranks
share the host's cores (itercl's default), and the table shows what splitting the same cores costs.
Writes DIR/scaling.jsonl (one line per run, appended), DIR/scaling.md and DIR/scaling.png (needs
matplotlib). `--render` runs nothing: it writes the table and plot again from DIR/scaling.jsonl, the last
line of each algorithm, mode and rank count winning (runs made in several calls, or one run made again).
"""
import argparse
import json
import math
import os
import subprocess
import sys

from efficiency import efficiency, efficiency_axes  # beside this script

# Per algorithm: the sizes on GPUs, and sizes a few CPU cores finish in seconds.
SIZES = {
    "issue": {"kmeans": 64 * 2**20, "kmeans_weak": 64 * 2**20, "smacof": 65536, "pagerank": 25,
              "pagerank_weak": 25, "histogram": 4 * 2**20},
    "small": {"kmeans": 2**20, "kmeans_weak": 2**18, "smacof": 2048, "pagerank": 16, "pagerank_weak": 15,
              "histogram": 2**14},
}


def config(algorithm, size, out, device):
    """An experiment config of `algorithm` at `size` (points, or R-MAT scale), writing under `out`."""
    base = {"name": f"scaling-{algorithm}", "device": device, "precision": "float", "output": out}
    if algorithm == "kmeans":
        return dict(base, algorithm="kmeans",
                    data={"generator": "blobs", "n_samples": size, "n_features": 4, "centers": 300, "random_state": 1},
                    params={"n_clusters": 300, "init": "random", "n_init": 1, "max_iter": 20, "tol": 0,
                            "random_state": 2})
    if algorithm == "smacof":
        return dict(base, algorithm="smacof",
                    data={"kind": "vectors", "generator": "uniform", "n_samples": size, "n_features": 4,
                          "random_state": 1},
                    params={"n_components": 2, "init": "random", "max_iter": 20, "eps": 0, "random_state": 2})
    if algorithm == "pagerank":
        return dict(base, algorithm="pagerank",
                    data={"generator": "rmat", "scale": size, "edge_factor": 16, "a": 0.57, "b": 0.19, "c": 0.19,
                          "random_state": 1},
                    params={"max_iter": 20, "tol": 0})
    if algorithm == "histogram":
        return dict(base, algorithm="distance_histogram",
                    data={"generator": "uniform", "n_samples": size, "n_features": 3, "random_state": 1},
                    params={"bins": 256, "range": [0, math.sqrt(3)]})
    raise SystemExit(f"unknown algorithm {algorithm!r}: expected kmeans, smacof, pagerank or histogram")


def problem_size(algorithm, mode, ranks, sizes):
    """The problem at `ranks` ranks: the same for strong scaling, the same work per rank for weak."""
    if mode == "strong":
        return sizes[algorithm]
    if algorithm == "kmeans":
        return sizes["kmeans_weak"] * ranks
    if algorithm == "pagerank":  # links double with each scale
        return sizes["pagerank_weak"] + int(round(math.log2(ranks)))
    return int(round(sizes[algorithm] * math.sqrt(ranks)))  # pairs grow as n²


def run(args, algorithm, mode, ranks, sizes):
    size = problem_size(algorithm, mode, ranks, sizes)
    stem = os.path.join(args.out, f"{algorithm}-{mode}-np{ranks}")
    with open(stem + ".config.json", "w") as f:
        json.dump(config(algorithm, size, stem + ".results.json", args.device), f, indent=1)
    command = [args.itercl, "run", stem + ".config.json", "--quiet"]
    if ranks > 1:  # --bind-to none: Open MPI would pin each rank to one core and starve its host threads
        command = [args.mpirun, "--bind-to", "none", *args.mpirun_args.split(), "-np", str(ranks), *command]
    line = {"algorithm": algorithm, "mode": mode, "ranks": ranks, "size": size, "device": args.device,
            "cores_per_rank": args.cores_per_rank or "shared"}
    env = dict(os.environ)
    if args.cores_per_rank:  # PoCL 3 reads the first, PoCL 4 and later the second
        env.update(POCL_MAX_PTHREAD_COUNT=str(args.cores_per_rank), POCL_CPU_MAX_CU_COUNT=str(args.cores_per_rank))
    done = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout, env=env)
    if done.returncode != 0:
        said = (done.stderr + done.stdout).splitlines()
        line["error"] = [x for x in said if "error:" in x or "failed:" in x][:1] or said[-1:] or [f"exit {done.returncode}"]
        return line
    with open(stem + ".results.json") as f:
        r = json.load(f)
    t = r["timings"].get("median_iteration") or r["timings"]["total"]
    line.update({k: t.get(k, 0.0) for k in ("wall_ms", "kernel_ms", "transfer_ms", "host_ms", "comm_ms")})
    line["per"] = "iteration" if "median_iteration" in r["timings"] else "run"
    line["devices"] = [d["name"] for d in r.get("mpi", {}).get("devices", [])] or [r["device"]["name"]]
    return line


def table(lines):
    out = ["| algorithm | scaling | ranks | size | per | wall ms | kernel | transfer | host | comm | efficiency |",
           "| --- | --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    base = {(x["algorithm"], x["mode"]): x["wall_ms"] for x in lines if x["ranks"] == 1 and "wall_ms" in x}
    for x in lines:
        key = (x["algorithm"], x["mode"])
        if "error" in x:
            out.append(f"| {x['algorithm']} | {x['mode']} | {x['ranks']} | {x['size']} | | failed: "
                       f"{' '.join(x['error'])[:120]} | | | | | |")
            continue
        eff = ""
        if key in base:
            eff = f"{efficiency(x['mode'], x['ranks'], base[key], x['wall_ms']):.0%}"
        out.append(f"| {x['algorithm']} | {x['mode']} | {x['ranks']} | {x['size']} | {x['per']} | "
                   f"{x['wall_ms']:.4g} | {x['kernel_ms']:.4g} | {x['transfer_ms']:.4g} | {x['host_ms']:.4g} | "
                   f"{x['comm_ms']:.4g} | {eff} |")
    return out


def plot(lines, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for ax, mode in zip(axes, ("strong", "weak")):
        for algorithm in sorted({x["algorithm"] for x in lines}):
            runs = [x for x in lines if x["algorithm"] == algorithm and x["mode"] == mode and "wall_ms" in x]
            base = [x["wall_ms"] for x in runs if x["ranks"] == 1]
            if not base or len(runs) < 2:
                continue
            eff = [efficiency(mode, x["ranks"], base[0], x["wall_ms"]) for x in runs]
            ax.plot([x["ranks"] for x in runs], eff, marker="o", label=algorithm)
        efficiency_axes(ax, mode, "measured")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--itercl", required=True)
    ap.add_argument("--ranks", default="1,2", help="comma-separated rank counts, 1 first")
    ap.add_argument("--device", default="gpu", help="the config's device: gpu (each rank its own) or cpu")
    ap.add_argument("--sizes", choices=sorted(SIZES), default="issue")
    ap.add_argument("--size", action="append", default=[], metavar="KEY=N",
                    help="overrides one of the sizes' entries, e.g. smacof=131072 (repeatable)")
    ap.add_argument("--algorithms", default="kmeans,smacof,pagerank,histogram")
    ap.add_argument("--modes", default="strong,weak")
    ap.add_argument("--cores-per-rank", type=int, default=0, help="PoCL: cores for each rank (default: shared)")
    ap.add_argument("--mpirun", default="mpirun")
    ap.add_argument("--mpirun-args", default="", help="extra mpirun arguments, e.g. --allow-run-as-root")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per run")
    ap.add_argument("--out", required=True)
    ap.add_argument("--render", action="store_true", help="only redraw DIR's table and plot from its jsonl")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    ranks = [int(p) for p in args.ranks.split(",")]
    if ranks[0] != 1:
        raise SystemExit("--ranks: the first count must be 1, the reference of the efficiency")
    sizes = dict(SIZES[args.sizes])
    for item in args.size:
        key, _, value = item.partition("=")
        if key not in sizes or not value.isdigit():
            raise SystemExit(f"--size {item!r}: expected KEY=N with KEY one of {', '.join(sorted(sizes))}")
        sizes[key] = int(value)
    lines = []
    if args.render:
        latest = {}
        with open(os.path.join(args.out, "scaling.jsonl")) as log:
            for text in log:
                line = json.loads(text)
                latest[(line["algorithm"], line["mode"], line["ranks"])] = line
        lines = list(latest.values())
    else:
        with open(os.path.join(args.out, "scaling.jsonl"), "a") as log:
            for algorithm in args.algorithms.split(","):
                for mode in args.modes.split(","):
                    for p in ranks:
                        same = [x for x in lines if x["algorithm"] == algorithm and x["ranks"] == p and
                                x["size"] == problem_size(algorithm, mode, p, sizes)]
                        # One rank's weak run is its strong run where the sizes agree: run once.
                        line = dict(same[0], mode=mode) if same else run(args, algorithm, mode, p, sizes)
                        print(json.dumps(line), flush=True)
                        log.write(json.dumps(line) + "\n")
                        log.flush()
                        lines.append(line)
    with open(os.path.join(args.out, "scaling.md"), "w") as f:
        cores = f", {args.cores_per_rank} cores per rank" if args.cores_per_rank else ""
        f.write(f"# Scaling over MPI ranks ({args.device}, sizes {args.sizes}{cores})\n\n")
        f.write("Made by `benchmarks/mpi/scaling.py`: median iteration (the whole run for the histogram), "
                "20 iterations, float.\n\n")
        f.write("\n".join(table(lines)) + "\n\n![efficiency](scaling.png)\n")
    plot(lines, os.path.join(args.out, "scaling.png"))
    return 1 if any("error" in x for x in lines) else 0


if __name__ == "__main__":
    sys.exit(main())
