#!/usr/bin/env python3
"""Runs the K-Means benchmark suite (suite.json) with the itercl CLI on one device and reports, per
case, the iteration time split into assignment (kernel), transfer and update (host), and GFLOPS by
the seed's count F = 3DM + M per point. Python's standard library only, so it runs wherever itercl does.

    benchmarks/kmeans/run.py --device gpu [--groups steps,shapes] [--max-n 1048576] [--out DIR]

Writes DIR/kmeans.json (every case, with the device and the full per-iteration timings' medians),
DIR/kmeans.csv and DIR/kmeans.md (the tables printed). DIR defaults to
benchmarks/results/<device name>/.
"""
import argparse
import csv
import datetime
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

COLUMNS = ["group", "n_samples", "n_features", "n_clusters", "precision", "variant", "work_group_size",
           "points_per_item", "n_iter", "assignment_ms", "transfer_ms", "update_ms", "iteration_ms",
           "gflops_assignment", "gflops_iteration"]


def cases(suite, groups, max_n):
    for name, g in suite["groups"].items():
        if groups and name not in groups:
            continue
        kernels = g.get("kernels") or [{"variant": v} for v in g["variants"]]
        for precision in g["precision"]:
            for d in g["n_features"]:
                for k in g["n_clusters"]:
                    for kernel in kernels:
                        for n in g.get("n_samples", suite["n_samples"]):
                            if n <= max_n:
                                yield name, n, d, k, precision, kernel


def run_case(itercl, device, tmp, suite, case):
    group, n, d, k, precision, kernel = case
    config = {
        "name": f"{group}-n{n}-d{d}-k{k}-{precision}",
        "algorithm": "kmeans",
        "precision": precision,
        "data": {"generator": "uniform", "n_samples": n, "n_features": d, "random_state": 1},
        # Uniform data has no clusters to find, so tol 0 keeps every run at max_iter iterations.
        "params": {"n_clusters": k, "init": "random", "n_init": 1, "max_iter": suite["max_iter"], "tol": 0,
                   "random_state": 2, "kernel": kernel},
        "output": os.path.join(tmp, "result.json"),
    }
    path = os.path.join(tmp, "config.json")
    with open(path, "w") as f:
        json.dump(config, f)
    run = subprocess.run([itercl, "run", path, "--device", device], capture_output=True, text=True)
    if run.returncode == 2:  # a tuning this device cannot launch: recorded, not fatal
        return {"group": group, "n_samples": n, "n_features": d, "n_clusters": k, "precision": precision,
                "kernel": kernel, "skipped": run.stderr.strip()}, None
    if run.returncode != 0:
        raise RuntimeError(f"{config['name']}: itercl exited with {run.returncode}:\n{run.stderr}")
    with open(config["output"]) as f:
        r = json.load(f)
    t = r["timings"]["median_iteration"]
    tuning = r["kernel"]["tuning"]
    row = {"group": group, "n_samples": n, "n_features": d, "n_clusters": k, "precision": precision,
           "variant": tuning["variant"], "work_group_size": tuning["work_group_size"],
           "points_per_item": tuning["points_per_item"], "n_iter": r["result"]["n_iter"],
           "assignment_ms": t["kernel_ms"], "transfer_ms": t["transfer_ms"], "update_ms": t["host_ms"],
           "iteration_ms": t["wall_ms"], "gflops_assignment": r["gflops"]["assignment"],
           "gflops_iteration": r["gflops"]["iteration"]}
    return row, r["device"]


def table(rows):
    head = ["N", "D", "K", "prec", "variant", "WG", "PPI", "assign ms", "transfer ms", "update ms", "iter ms",
            "GFLOPS kernel", "GFLOPS iter"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        lines.append("| " + " | ".join(str(x) for x in [
            r["n_samples"], r["n_features"], r["n_clusters"], r["precision"], r["variant"], r["work_group_size"],
            r["points_per_item"], f"{r['assignment_ms']:.4g}", f"{r['transfer_ms']:.4g}", f"{r['update_ms']:.4g}",
            f"{r['iteration_ms']:.4g}", f"{r['gflops_assignment']:.4g}", f"{r['gflops_iteration']:.4g}"]) + " |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--itercl", default=os.path.join(ROOT, "build", "itercl"))
    parser.add_argument("--device", default="auto")
    parser.add_argument("--suite", default=os.path.join(HERE, "suite.json"))
    parser.add_argument("--groups", default="", help="comma-separated groups of the suite (default: all)")
    parser.add_argument("--max-n", type=int, default=1 << 62, help="skip sizes above this")
    parser.add_argument("--out", default="", help="results folder (default: benchmarks/results/<device>)")
    args = parser.parse_args()

    with open(args.suite) as f:
        suite = json.load(f)
    groups = [g for g in args.groups.split(",") if g]
    rows, skipped, device = [], [], None
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases(suite, groups, args.max_n):
            row, run_device = run_case(args.itercl, args.device, tmp, suite, case)
            if "skipped" in row:
                skipped.append(row)
                print(f"skipped {row['kernel']}: {row['skipped']}", file=sys.stderr)
                continue
            device = run_device
            rows.append(row)
            print(f"{row['group']:>9} N={row['n_samples']:>8} D={row['n_features']} K={row['n_clusters']} "
                  f"{row['precision']:>6} {row['variant']:>22} wg={row['work_group_size']:>4} "
                  f"ppi={row['points_per_item']}: assign {row['assignment_ms']:.4g} ms, "
                  f"iteration {row['iteration_ms']:.4g} ms, {row['gflops_assignment']:.4g} GFLOPS",
                  file=sys.stderr, flush=True)
    if not rows:
        sys.exit("no case selected")

    out = args.out or os.path.join(ROOT, "benchmarks", "results",
                                   re.sub(r"[^a-z0-9]+", "-", device["name"].lower()).strip("-"))
    os.makedirs(out, exist_ok=True)
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    with open(os.path.join(out, "kmeans.json"), "w") as f:
        json.dump({"date": date, "device": device, "suite": suite, "rows": rows, "skipped": skipped}, f, indent=1)
    with open(os.path.join(out, "kmeans.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows(rows)
    md = [f"# K-Means assignment benchmark, {device['name']}",
          "",
          f"{date}; {device['platform']}, {device['version']}, driver {device['driver_version']}, "
          f"{device['compute_units']} compute units. Uniform random points, random init, {suite['max_iter']} "
          "iterations per run; times are medians over the iterations of one run (OpenCL event timings for the "
          "kernel and transfers, the host clock for the update). GFLOPS by the seed's count F = 3DM + M per point.",
          ""]
    for group in dict.fromkeys(r["group"] for r in rows):
        md += [f"## {group}", "", table([r for r in rows if r["group"] == group]), ""]
    if skipped:
        md += ["## skipped", ""] + [f"- {r['group']} {json.dumps(r['kernel'])}: {r['skipped']}" for r in skipped] + [""]
    with open(os.path.join(out, "kmeans.md"), "w") as f:
        f.write("\n".join(md))
    print("\n".join(md))
    print(f"\nwritten to {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
