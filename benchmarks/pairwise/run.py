#!/usr/bin/env python3
"""Runs the pairwise benchmark suite (suite.json) with the itercl CLI on one device: all-pairs distances
(seed 001's table), distance histograms and pair counts (seed 000). Python's standard library only.

    benchmarks/pairwise/run.py --device gpu [--groups table,sdh] [--max-n 262144] [--max-d 40000] [--sizes 1000]
                               [--repeat 3] [--out DIR]

Writes DIR/pairwise.json (every case with the device) and DIR/pairwise.md (the tables). DIR defaults to
benchmarks/results/<device name>/.
"""
import argparse
import datetime
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def cases(suite, groups, max_n, max_d):
    for name, g in suite["groups"].items():
        if groups and name not in groups:
            continue
        for precision in g["precision"]:
            for kernel in g["kernels"]:
                for n in g["n"]:
                    # global atomics per pair (naive, tiled) are kept to sizes where they finish in seconds
                    if n > max_n or n > g.get("max_n_by_variant", {}).get(kernel["variant"], n):
                        continue
                    if g["algorithm"] == "pairwise_distances":
                        for d in g["d"]:
                            if d <= max_d:
                                yield {"group": name, "algorithm": g["algorithm"], "metric": g["metric"], "n": n,
                                       "d": d, "precision": precision, "kernel": kernel}
                    elif g["algorithm"] == "distance_histogram":
                        for bins in g["bins"]:
                            yield {"group": name, "algorithm": g["algorithm"], "n": n, "d": 3, "bins": bins,
                                   "precision": precision, "kernel": kernel}
                    else:
                        yield {"group": name, "algorithm": g["algorithm"], "n": n, "d": 3, "radii": g["radii"],
                               "precision": precision, "kernel": kernel}


def config_for(case, repeat, out):
    data = {"generator": "uniform", "n_samples": case["n"], "n_features": case["d"], "random_state": 1}
    if case["algorithm"] == "pairwise_distances":
        params = {"metric": case["metric"], "form": "none", "kernel": case["kernel"]}
    elif case["algorithm"] == "distance_histogram":
        # Seed 000's SDH: uniform points in the unit cube, buckets over [0, sqrt(3)] (every pair counted).
        params = {"bins": case["bins"], "range": [0, 3 ** 0.5], "kernel": case["kernel"]}
    else:
        params = {"radii": case["radii"], "kernel": case["kernel"]}
    return {"name": "bench", "algorithm": case["algorithm"], "precision": case["precision"], "data": data,
            "params": params, "repeat": repeat, "output": out}


def run_case(itercl, device, tmp, case, repeat):
    out = os.path.join(tmp, "result.json")
    path = os.path.join(tmp, "config.json")
    with open(path, "w") as f:
        json.dump(config_for(case, repeat, out), f)
    run = subprocess.run([itercl, "run", path, "--device", device], capture_output=True, text=True)
    if run.returncode == 2:  # a tuning this device cannot launch: recorded, not fatal
        return dict(case, skipped=run.stderr.strip()), None
    if run.returncode != 0:
        raise RuntimeError(f"{case}: itercl exited with {run.returncode}:\n{run.stderr}")
    with open(out) as f:
        r = json.load(f)
    walls = r["timings"]["repeat_wall_ms"]
    # The first run includes PoCL's just-in-time work-group compilation: the median of the rest.
    wall = statistics.median(walls[1:] if len(walls) > 1 else walls)
    pairs = r["result"]["pairs"]
    row = dict(case, variant=r["kernel"]["tuning"]["variant"], tuning=r["kernel"]["tuning"], wall_ms=wall,
               kernel_ms=r["timings"]["total"]["kernel_ms"], pairs=pairs, pairs_per_s=pairs / (wall * 1e-3))
    if case["algorithm"] == "pairwise_distances":
        row["gflops"] = r["gflops"]["flops"] / (wall * 1e-3) * 1e-9
    return row, r["device"]


def table(rows):
    head = ["algorithm", "n", "d", "prec", "buckets", "variant", "tuning", "wall ms", "kernel ms", "G pairs/s", "GFLOPS"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        t = r["tuning"]
        tuning = (f"{t['tile_rows']}x{t['tile_cols']} s{t['subtiles']} w{t['cols_per_item']} d'{t['slice']}"
                  if "tile_rows" in t else f"wg {t['work_group_size']}, {t['global_counter_bits']}-bit")
        lines.append("| " + " | ".join(str(x) for x in [
            r["algorithm"], r["n"], r["d"], r["precision"], r.get("bins", len(r.get("radii", [])) or ""), r["variant"],
            tuning, f"{r['wall_ms']:.4g}", f"{r['kernel_ms']:.4g}", f"{r['pairs_per_s'] * 1e-9:.4g}",
            f"{r['gflops']:.4g}" if "gflops" in r else ""]) + " |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--itercl", default=os.path.join(ROOT, "build", "itercl"))
    parser.add_argument("--device", default="auto")
    parser.add_argument("--suite", default=os.path.join(HERE, "suite.json"))
    parser.add_argument("--groups", default="", help="comma-separated groups of the suite (default: all)")
    parser.add_argument("--max-n", type=int, default=1 << 62, help="skip sizes above this")
    parser.add_argument("--max-d", type=int, default=1 << 62, help="skip dimensions above this")
    parser.add_argument("--repeat", type=int, default=0, help="runs per case (default: the suite's)")
    parser.add_argument("--sizes", default="", help="comma-separated n replacing every group's (quick checks)")
    parser.add_argument("--out", default="", help="results folder (default: benchmarks/results/<device>)")
    args = parser.parse_args()

    with open(args.suite) as f:
        suite = json.load(f)
    groups = [g for g in args.groups.split(",") if g]
    if args.sizes:
        for g in suite["groups"].values():
            g["n"] = [int(n) for n in args.sizes.split(",")]
    rows, skipped, device = [], [], None
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases(suite, groups, args.max_n, args.max_d):
            row, run_device = run_case(args.itercl, args.device, tmp, case, args.repeat or suite["repeat"])
            if "skipped" in row:
                skipped.append(row)
                print(f"skipped {row['kernel']}: {row['skipped']}", file=sys.stderr)
                continue
            device = run_device
            rows.append(row)
            print(f"{row['group']:>11} n={row['n']:>8} d={row['d']:>6} {row['precision']:>6} {row['variant']:>22}: "
                  f"wall {row['wall_ms']:.4g} ms, kernel {row['kernel_ms']:.4g} ms, "
                  f"{row['pairs_per_s'] * 1e-9:.4g} G pairs/s", file=sys.stderr, flush=True)
    if not rows:
        sys.exit("no case selected")
    out = args.out or os.path.join(ROOT, "benchmarks", "results",
                                   re.sub(r"[^a-z0-9]+", "-", device["name"].lower()).strip("-"))
    os.makedirs(out, exist_ok=True)
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    with open(os.path.join(out, "pairwise.json"), "w") as f:
        json.dump({"date": date, "device": device, "suite": suite, "rows": rows, "skipped": skipped}, f, indent=1)
    md = [f"# Pairwise benchmark, {device['name']}", "",
          f"{date}; {device['platform']}, {device['version']}, driver {device['driver_version']}, "
          f"{device['compute_units']} compute units. Uniform random data; wall = median of the runs after the first "
          "(the whole computation, rectangles brought to the host but not kept); kernel = the device's kernel events "
          "of the last run. All-pairs with one input: n (n + 1) / 2 entries; GFLOPS by seed 001's 3 d flops per "
          "entry (2 d for the inner-product forms). SDH and 2-PCF: n (n - 1) / 2 pairs.", ""]
    for group in dict.fromkeys(r["group"] for r in rows):
        md += [f"## {group}", "", table([r for r in rows if r["group"] == group]), ""]
    if skipped:
        md += ["## skipped", ""] + [f"- {r['group']} {json.dumps(r['kernel'])}: {r['skipped']}" for r in skipped] + [""]
    with open(os.path.join(out, "pairwise.md"), "w") as f:
        f.write("\n".join(md))
    print("\n".join(md))


if __name__ == "__main__":
    main()
