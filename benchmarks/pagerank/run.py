#!/usr/bin/env python3
"""Runs the PageRank benchmark suite (suite.json) with the itercl CLI on one device and reports, per
case, the iteration time split into the sum over in-links (the format's kernels), the whole iteration,
edges per second, and what the format cost to build and store (the seed's Figures 10 and 11). Python's
standard library only, so it runs wherever itercl does.

    benchmarks/pagerank/run.py --device gpu [--groups formats,bsr_width] [--max-scale 20] [--max-iter 5]
                               [--data DIR] [--out DIR]
    benchmarks/pagerank/run.py --render DIR/pagerank.json   (the .csv and .md again, from a copied .json)

Writes DIR/pagerank.json (every case, with the device and the runs' medians), DIR/pagerank.csv and
DIR/pagerank.md (the tables printed). DIR defaults to benchmarks/results/<device name>/. The real graphs
are read from --data (default ../shared/datasets/graphs beside the checkout); absent ones are skipped.
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

COLUMNS = ["group", "graph", "nodes", "links", "precision", "format", "tuning", "n_iter", "spmv_ms", "iteration_ms",
           "transfer_ms", "cpu_rows_ms", "edges_per_s", "edges_per_s_spmv", "load_ms", "in_links_ms", "format_ms",
           "matrix_bytes", "bytes_over_csr", "cpu_link_share"]


def tuning_text(kernel):
    """The tuning that matters for the format, e.g. 'W=32' or 'k=16 (3 bins)'."""
    f = kernel["format"]
    if f == "bsr":
        return f"W={kernel['bsr_width']} wg={kernel['work_group_size']}"
    if f == "hybrid":
        return f"k={kernel['hybrid_k']} wg={kernel['work_group_size']}"
    if f == "csr_vector":
        return f"vs={kernel['vector_size']} wg={kernel['work_group_size']}"
    return f"wg={kernel['work_group_size']}"


def cases(suite, groups, max_scale):
    for name, g in suite["groups"].items():
        if groups and name not in groups:
            continue
        for precision in g["precision"]:
            for graph in g["graphs"]:
                data = suite["graphs"][graph]
                if data.get("scale", 0) > max_scale:
                    continue
                for kernel in g["kernels"]:
                    yield name, graph, precision, kernel


def run_case(itercl, device, data_dir, tmp, suite, case):
    group, graph, precision, kernel = case
    data = dict(suite["graphs"][graph])
    row_base = {"group": group, "graph": graph, "precision": precision, "format": kernel["format"]}
    if "path" in data:
        data["path"] = os.path.join(data_dir, data["path"])
        if not os.path.exists(data["path"]):
            return dict(row_base, skipped=f"{data['path']} is absent"), None
    params = {"format": kernel["format"], "max_iter": suite["max_iter"], "tol": 0}
    if "kernel" in kernel:
        params["kernel"] = kernel["kernel"]
    config = {"name": f"{group}-{graph}-{kernel['format']}-{precision}", "algorithm": "pagerank", "precision": precision,
              "data": data, "params": params,
              "output": {"path": os.path.join(tmp, "result.json"), "ranks": False}}
    path = os.path.join(tmp, "config.json")
    with open(path, "w") as f:
        json.dump(config, f)
    run = subprocess.run([itercl, "run", path, "--device", device], capture_output=True, text=True)
    if run.returncode == 2:  # a format or tuning this graph or device cannot take (ELLPACK's fill): recorded
        return dict(row_base, tuning=json.dumps(kernel.get("kernel", {})), skipped=run.stderr.strip()), None
    if run.returncode != 0:
        raise RuntimeError(f"{config['name']}: itercl exited with {run.returncode}:\n{run.stderr}")
    with open(config["output"]["path"]) as f:
        r = json.load(f)
    t, pre, layout = r["timings"]["median_iteration"], r["timings"]["preprocessing"], r["kernel"]["layout"]
    cpu_links = layout.get("hybrid", {}).get("cpu_links", 0)
    row = dict(row_base, nodes=r["data"]["n_nodes"], links=r["data"]["n_links"], tuning=tuning_text(r["kernel"]["tuning"]),
               n_iter=r["result"]["n_iter"], spmv_ms=r["timings"]["median_spmv_kernel_ms"], iteration_ms=t["wall_ms"],
               transfer_ms=t["transfer_ms"], cpu_rows_ms=t["host_ms"],
               edges_per_s=r["result"]["edges_per_second"]["iteration"],
               edges_per_s_spmv=r["result"]["edges_per_second"]["spmv"], load_ms=pre["load_ms"],
               in_links_ms=pre["in_links_ms"], format_ms=pre["format_ms"], matrix_bytes=layout["matrix_bytes"],
               bytes_over_csr=layout["bytes_over_csr"], cpu_link_share=cpu_links / max(r["data"]["n_links"], 1))
    row["layout"] = layout
    return row, r["device"]


def table(rows):
    head = ["graph", "nodes", "links", "prec", "format", "tuning", "sum ms", "iter ms", "CPU rows ms", "Medges/s",
            "format ms", "bytes/CSR"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        lines.append("| " + " | ".join(str(x) for x in [
            r["graph"], r["nodes"], r["links"], r["precision"], r["format"], r["tuning"], f"{r['spmv_ms']:.4g}",
            f"{r['iteration_ms']:.4g}", f"{r['cpu_rows_ms']:.3g}", f"{r['edges_per_s'] * 1e-6:.4g}",
            f"{r['format_ms']:.4g}", f"{r['bytes_over_csr']:.3g}"]) + " |")
    return "\n".join(lines)


def render(results, out):
    """Writes pagerank.csv and pagerank.md beside pagerank.json; returns the Markdown."""
    rows, skipped, device, suite = results["rows"], results["skipped"], results["device"], results["suite"]
    with open(os.path.join(out, "pagerank.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    md = [f"# PageRank benchmark, {device['name']}",
          "",
          f"{results['date']}; {device['platform']}, {device['version']}, driver {device['driver_version']}, "
          f"{device['compute_units']} compute units. {suite['max_iter']} iterations per run (tol 0); times are "
          "medians over them (OpenCL events for the kernels, the host clock for the CPU rows and the iteration). "
          "'sum' is the format's kernels (the sum over in-links); 'iter' the whole iteration with the update, its "
          "reductions and the read of two numbers; Medges/s = links / iteration; 'format ms' builds the layout from "
          "the in-link CSR on the host; bytes/CSR: the layout's size against CSR without values.",
          ""]
    for group in dict.fromkeys(r["group"] for r in rows):
        md += [f"## {group}", "", table([r for r in rows if r["group"] == group]), ""]
    if skipped:
        md += ["## skipped", ""] + [f"- {r['group']} {r['graph']} {r['format']}: {r['skipped'][:300]}" for r in skipped] + [""]
    with open(os.path.join(out, "pagerank.md"), "w") as f:
        f.write("\n".join(md))
    return "\n".join(md)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--itercl", default=os.path.join(ROOT, "build", "itercl"))
    parser.add_argument("--device", default="auto")
    parser.add_argument("--suite", default=os.path.join(HERE, "suite.json"))
    parser.add_argument("--groups", default="", help="comma-separated groups of the suite (default: all)")
    parser.add_argument("--max-scale", type=int, default=99, help="skip R-MAT graphs above this scale")
    parser.add_argument("--max-iter", type=int, default=0, help="iterations per run (default: the suite's)")
    parser.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "datasets", "graphs"))
    parser.add_argument("--out", default="", help="results folder (default: benchmarks/results/<device>)")
    parser.add_argument("--render", default="", help="only write the .csv and .md of this pagerank.json, beside it")
    args = parser.parse_args()
    if args.render:
        with open(args.render) as f:
            print(render(json.load(f), os.path.dirname(os.path.abspath(args.render))))
        return

    with open(args.suite) as f:
        suite = json.load(f)
    if args.max_iter:
        suite["max_iter"] = args.max_iter
    groups = [g for g in args.groups.split(",") if g]
    rows, skipped, device = [], [], None
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases(suite, groups, args.max_scale):
            row, run_device = run_case(args.itercl, args.device, args.data, tmp, suite, case)
            if "skipped" in row:
                skipped.append(row)
                print(f"skipped {row['group']} {row['graph']} {row['format']}: {row['skipped'][:200]}", file=sys.stderr)
                continue
            device = run_device
            rows.append(row)
            print(f"{row['group']:>11} {row['graph']:>14} {row['precision']:>6} {row['format']:>10} {row['tuning']:>18}: "
                  f"sum {row['spmv_ms']:.4g} ms, iteration {row['iteration_ms']:.4g} ms, "
                  f"{row['edges_per_s'] * 1e-6:.4g} Medges/s, format {row['format_ms']:.4g} ms",
                  file=sys.stderr, flush=True)
    if not rows:
        sys.exit("no case ran")

    out = args.out or os.path.join(ROOT, "benchmarks", "results",
                                   re.sub(r"[^a-z0-9]+", "-", device["name"].lower()).strip("-"))
    os.makedirs(out, exist_ok=True)
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    results = {"date": date, "device": device, "suite": suite, "rows": rows, "skipped": skipped}
    with open(os.path.join(out, "pagerank.json"), "w") as f:
        json.dump(results, f, indent=1)
    md = render(results, out)
    print(md)
    print(f"\nwritten to {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
