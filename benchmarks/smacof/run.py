#!/usr/bin/env python3
"""Runs the SMACOF benchmark suite (suite.json) with the itercl CLI on one device and reports, per case,
the median iteration split into kernels and transfer, GFLOPS by the seed's count F = 8DN + 7N + 3D + 1
per point, the dissimilarities' bytes read per iteration as GB/s, and for the 'overhead' group the
seed's section 4.2 estimate. Python's standard library only, so it runs wherever itercl does.

    benchmarks/smacof/run.py --device gpu [--groups steps,overhead] [--max-n 16384] [--out DIR]

Each case runs the fit twice in one process ("repeat": 2) and reports the second, so kernel builds are
not timed. The overhead group times whole fits (delta built on the device, the start uploaded, the
embedding read back): T with max_iter iterations and T' with twice as many, eps 0; doubling the
iterations doubles the computation c and leaves the once-per-fit overhead o, so c = T' - T, o = 2T - T'.

Writes DIR/smacof.json (every case, with the device), DIR/smacof.csv and DIR/smacof.md (the tables
printed). DIR defaults to benchmarks/results/<device name>/.
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

COLUMNS = ["group", "n_samples", "precision", "variant", "packed", "work_group_size", "slices", "n_iter",
           "kernel_ms", "transfer_ms", "iteration_ms", "gflops_kernel", "delta_gbps", "fit_ms", "upload_ms",
           "fit2_ms", "compute_ms", "overhead_ms", "overhead_pct"]


def cases(suite, groups, max_n):
    for name, g in suite["groups"].items():
        if groups and name not in groups:
            continue
        for precision in g["precision"]:
            for kernel in g["kernels"]:
                for n in g.get("n_samples", suite["n_samples"]):
                    if n <= max_n:
                        yield name, n, precision, kernel


def fit(itercl, device, tmp, suite, n, precision, kernel, max_iter):
    config = {
        "name": f"smacof-n{n}",
        "algorithm": "smacof",
        "precision": precision,
        "data": {"kind": "vectors", "generator": "uniform", "n_samples": n, "n_features": suite["n_features"],
                 "random_state": 1},
        # eps 0: every run does exactly max_iter iterations.
        "params": {"n_components": suite["n_components"], "max_iter": max_iter, "eps": 0, "random_state": 2,
                   "kernel": kernel},
        "repeat": 2,
        "output": {"path": os.path.join(tmp, "result.json"), "embedding": os.path.join(tmp, "embedding.npy")},
    }
    path = os.path.join(tmp, "config.json")
    with open(path, "w") as f:
        json.dump(config, f)
    run = subprocess.run([itercl, "run", path, "--device", device], capture_output=True, text=True)
    if run.returncode == 2:  # does not fit or cannot launch on this device: recorded, not fatal
        return None, run.stderr.strip()
    if run.returncode != 0:
        raise RuntimeError(f"{config['name']} {kernel}: itercl exited with {run.returncode}:\n{run.stderr}")
    with open(config["output"]["path"]) as f:
        return json.load(f), None


def run_case(itercl, device, tmp, suite, case):
    group, n, precision, kernel = case
    r, skipped = fit(itercl, device, tmp, suite, n, precision, kernel, suite["max_iter"])
    if skipped:
        return {"group": group, "n_samples": n, "precision": precision, "kernel": kernel, "skipped": skipped}, None
    t = r["timings"]["median_iteration"]
    tuning = r["kernel"]["tuning"]
    real = 4 if precision == "float" else 8
    passes = 1 if tuning["variant"] == "fused" else 2  # the seed's variants read delta in BCCalc and StressCalc
    row = {"group": group, "n_samples": n, "precision": precision, "variant": tuning["variant"],
           "packed": tuning["packed"], "work_group_size": tuning["work_group_size"], "slices": tuning["slices"],
           "n_iter": r["result"]["n_iter"], "kernel_ms": t["kernel_ms"], "transfer_ms": t["transfer_ms"],
           "iteration_ms": t["wall_ms"], "gflops_kernel": r["gflops"]["kernel"],
           "delta_gbps": passes * n * n * real / (t["kernel_ms"] * 1e6) if t["kernel_ms"] > 0 else 0,
           "fit_ms": r["timings"]["repeat_wall_ms"][-1], "upload_ms": r["timings"]["upload"]["wall_ms"]}
    if group == "overhead":
        r2, skipped = fit(itercl, device, tmp, suite, n, precision, kernel, 2 * suite["max_iter"])
        if skipped:
            raise RuntimeError(f"overhead N={n}: the doubled run failed: {skipped}")
        t1, t2 = row["fit_ms"], r2["timings"]["repeat_wall_ms"][-1]
        row.update(fit2_ms=t2, compute_ms=t2 - t1, overhead_ms=2 * t1 - t2,
                   overhead_pct=100 * (2 * t1 - t2) / (t2 - t1) if t2 > t1 else float("nan"))
    return row, r["device"]


def fmt(x):
    return "" if x is None or x == "" else f"{x:.4g}" if isinstance(x, float) else str(x)


def table(rows, overhead):
    head = ["N", "prec", "variant", "packed", "WG", "slices", "kernels ms", "transfer ms", "iter ms", "GFLOPS",
            "delta GB/s"]
    keys = ["n_samples", "precision", "variant", "packed", "work_group_size", "slices", "kernel_ms", "transfer_ms",
            "iteration_ms", "gflops_kernel", "delta_gbps"]
    if overhead:
        head += ["T ms", "T' ms", "c ms", "o ms", "o / c %"]
        keys += ["fit_ms", "fit2_ms", "compute_ms", "overhead_ms", "overhead_pct"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        lines.append("| " + " | ".join(fmt(r.get(k)) for k in keys) + " |")
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
                print(f"skipped N={row['n_samples']} {row['kernel']}: {row['skipped']}", file=sys.stderr)
                continue
            device = run_device
            rows.append(row)
            print(f"{row['group']:>9} N={row['n_samples']:>6} {row['precision']:>6} {row['variant']:>8}"
                  f"{' packed' if row['packed'] else '':7} wg={row['work_group_size']:>4} s={row['slices']:>3}: "
                  f"kernels {row['kernel_ms']:.4g} ms, iteration {row['iteration_ms']:.4g} ms, "
                  f"{row['delta_gbps']:.4g} GB/s" +
                  (f", c {row['compute_ms']:.4g} ms, o {row['overhead_ms']:.4g} ms" if "compute_ms" in row else ""),
                  file=sys.stderr, flush=True)
    if not rows:
        sys.exit("no case selected")

    out = args.out or os.path.join(ROOT, "benchmarks", "results",
                                   re.sub(r"[^a-z0-9]+", "-", device["name"].lower()).strip("-"))
    os.makedirs(out, exist_ok=True)
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    with open(os.path.join(out, "smacof.json"), "w") as f:
        json.dump({"date": date, "device": device, "suite": suite, "rows": rows, "skipped": skipped}, f, indent=1)
    with open(os.path.join(out, "smacof.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows(rows)
    md = [f"# SMACOF benchmark, {device['name']}",
          "",
          f"{date}; {device['platform']}, {device['version']}, driver {device['driver_version']}, "
          f"{device['compute_units']} compute units. Uniform random {suite['n_features']}-D vectors embedded in "
          f"{suite['n_components']}-D, delta computed on the device, {suite['max_iter']} iterations (eps 0); times "
          "are medians over the iterations of the second of two fits in one process (OpenCL events for kernels and "
          "transfers, the host clock for the iteration). GFLOPS by the seed's F = 8DN + 7N + 3D + 1 per point; "
          "delta GB/s = N^2 values per pass over delta (2 passes for the seed's variants, 1 for fused) / kernel time. "
          "Overhead (seed 4.2): T = a whole fit, T' = the fit with twice the iterations, c = T' - T, o = 2T - T'.",
          ""]
    for group in dict.fromkeys(r["group"] for r in rows):
        md += [f"## {group}", "", table([r for r in rows if r["group"] == group], group == "overhead"), ""]
    if skipped:
        md += ["## skipped", ""] + [f"- {r['group']} N={r['n_samples']} {json.dumps(r['kernel'])}: {r['skipped']}"
                                    for r in skipped] + [""]
    with open(os.path.join(out, "smacof.md"), "w") as f:
        f.write("\n".join(md))
    print("\n".join(md))
    print(f"\nwritten to {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
