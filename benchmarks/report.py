#!/usr/bin/env python3
"""Turns `itercl bench` result files into a Markdown report with PNG plots, in the spirit of the seeds'
figures: time against N for each variant (the optimisation steps), speedup of each device over one CPU
core and against the peers, achieved GFLOPS and GB/s against each device's measured peaks, PageRank's
time per iteration in every storage format on every graph, the seed's overhead model (section 4.2: T = c + o, from runs with doubled compute) and what tuning gained.

    build/itercl-python benchmarks/report.py [RESULTS.json ...] [--out DIR] [--tuning tuning]

Without files it reports the committed suites, the last full run of every suite on each card:
benchmarks/results/<card>/suites/<suite>.json, into benchmarks/results/report/ (what CI regenerates and
compares with the committed report.md). Each results file may hold several devices; a device with one
compute unit is taken as "one CPU core". Needs matplotlib.
"""
import glob
import argparse
import json
import os
import statistics
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

N_KEY = "data.n_samples"


def load(paths):
    """Every case of every file, with its device described, grouped by suite. A file that is not an
    `itercl bench` results file (no "devices" and "cases": the summaries the benchmark scripts wrote before
    `itercl bench` existed, such as benchmarks/results/pocl-epyc-2-cores/kmeans.json, hold "rows") is
    skipped with a warning naming it; none left is an error."""
    suites, devices, peers = defaultdict(list), {}, defaultdict(list)
    for path in paths:
        with open(path) as f:
            r = json.load(f)
        if not isinstance(r, dict) or "devices" not in r or "cases" not in r:
            keys = ", ".join(list(r)[:6]) if isinstance(r, dict) else type(r).__name__
            print(f"report.py: skipped {path}: not an `itercl bench` results file (no \"devices\" and \"cases\"; "
                  f"it holds {keys})", file=sys.stderr)
            continue
        for d in r["devices"]:
            info = d["info"]
            label = info["name"] + (" (1 core)" if info["compute_units"] == 1 and info["type"] == "cpu" else "")
            devices[(path, d["spec"])] = {"label": label, "info": info, "peaks": d["peaks"]}
        for c in r["cases"]:
            c["device_label"] = devices[(path, c["device"])]["label"]
            suites[r["suite"]].append(c)
        peers[r["suite"]] += [dict(p, file=path) for p in r.get("peers", []) if p.get("ok")]
    return suites, list(devices.values()), peers


def metric_of(case, prefer=("iteration_kernel_ms", "total_kernel_ms")):
    for key in prefer:
        if key in case.get("metrics", {}):
            return key, case["metrics"][key]["median"]
    return None, None


# Metrics renamed by their unit, with the names results written before the rename carry (the bench still
# writes both for a while; the committed results hold only the old ones).
OLD_NAMES = {"kernel_gbs": "gflops_kernel_gbs", "pairs_per_second": "gflops_pairs_per_second",
             "pairs_per_second_kernel": "gflops_pairs_per_second_kernel"}


def metric(m, key, stat="median"):
    """A case's metric statistic by its current name, else by its deprecated one; None if absent."""
    for name in (key, OLD_NAMES.get(key)):
        if name and name in m:
            return m[name][stat]
    return None


def series_label(varied, skip):
    parts = [f"{k.rsplit('.', 1)[-1]}={json.dumps(v) if isinstance(v, dict) else v}"
             for k, v in varied.items() if k != skip]
    return ", ".join(parts) or "default"


def fmt(x):
    return "" if x is None else f"{x:.4g}"


def plot_group(suite, group, cases, out_dir):
    """Time against N, a line per combination of the other varied fields, a panel per device."""
    by_device = defaultdict(list)
    for c in cases:
        by_device[c["device_label"]].append(c)
    fig, axes = plt.subplots(1, len(by_device), figsize=(6 * len(by_device), 4.2), squeeze=False)
    for ax, (device, dcases) in zip(axes[0], by_device.items()):
        lines = defaultdict(list)
        for c in dcases:
            key, value = metric_of(c)
            if value is not None:
                lines[series_label(c["varied"], N_KEY)].append((c["varied"][N_KEY], value, key))
        for label, points in lines.items():
            points.sort()
            ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=label)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("N")
        ax.set_ylabel(next(iter(lines.values()))[0][2].replace("_", " ") if lines else "ms")
        ax.set_title(device, fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(f"{suite}: {group}")
    fig.tight_layout()
    name = f"{suite}-{group}.png"
    fig.savefig(os.path.join(out_dir, name), dpi=110)
    plt.close(fig)
    return name


def group_table(cases):
    pairs = any(metric(c.get("metrics", {}), "pairs_per_second") is not None for c in cases)
    solution = any(metric(c.get("metrics", {}), "time_to_solution_ms") is not None for c in cases)
    extra = (" pairs/s |" if pairs else "") + (" to solution ms |" if solution else "")
    rows = ["| device | case | kernel ms | wall ms (min-max) | GFLOPS | GB/s |" + extra,
            "|---|---|---|---|---|---|" + ("---|" if pairs else "") + ("---|" if solution else "")]
    for c in cases:
        if "error" in c:
            rows.append(f"| {c['device_label']} | {c['case']} | failed: {c['error'][:80]} | | | |"
                        + (" |" if pairs else "") + (" |" if solution else ""))
            continue
        m = c["metrics"]
        _, kernel = metric_of(c)
        wall_key = "iteration_wall_ms" if "iteration_wall_ms" in m else "total_wall_ms"
        wall = m[wall_key]
        rows.append(f"| {c['device_label']} | {c['case']} | {fmt(kernel)} | {fmt(wall['median'])} "
                    f"({fmt(wall['min'])}-{fmt(wall['max'])}) | {fmt(metric(m, 'gflops_kernel'))} | "
                    f"{fmt(metric(m, 'kernel_gbs'))} |" + (f" {fmt(metric(m, 'pairs_per_second'))} |" if pairs else "")
                    + (f" {fmt(metric(m, 'time_to_solution_ms'))} |" if solution else ""))
    return rows


def time_to_solution(folder):
    """The whole calls of benchmarks/time_to_solution: each `itercl run` result in `folder` (its last repeat's
    time to solution, the first's, the median iteration and the phases) beside the peers' whole calls of the
    same workload (peers.json), as ratios."""
    runs = sorted(f for f in os.listdir(folder) if f.endswith(".json") and f != "peers.json")
    peers = []
    if os.path.exists(os.path.join(folder, "peers.json")):
        with open(os.path.join(folder, "peers.json")) as f:
            peers = json.load(f)
    rows = ["| workload | device | to solution ms | first call ms | iteration ms | phases (ms) | peer's whole call ms | "
            "peer / itercl |", "|---|---|---|---|---|---|---|---|"]
    for name in runs:
        with open(os.path.join(folder, name)) as f:
            r = json.load(f)
        if "timings" not in r or "time_to_solution_ms" not in r["timings"]:
            continue
        t = r["timings"]
        ours = t["time_to_solution_ms"]
        phases = ", ".join(f"{k} {fmt(v)}" for k, v in sorted(t["phases_ms"].items(), key=lambda kv: -kv[1]) if v >= 0.05)
        match = [p for p in peers if p.get("ms") and p.get("workload_of") == r["name"]]
        peer = f"{match[0]['peer']}: {fmt(statistics.median(match[0]['ms']))}" if match else ""
        ratio = f"{statistics.median(match[0]['ms']) / ours:.2f}x" if match else ""
        rows.append(f"| {r['name']} | {r['device']['name']} | {fmt(ours)} | "
                    f"{fmt(t.get('first_fit', {}).get('time_to_solution_ms'))} | "
                    f"{fmt(t['median_iteration']['wall_ms'])} | {phases} | {peer} | {ratio} |")
    return rows


def speedups(cases):
    """Each device against the one-core CPU run of the same case: wall time per iteration (or of the run)."""
    base = {(c["group"], c["case"]): c for c in cases if c["device_label"].endswith("(1 core)") and "metrics" in c}
    rows = []
    for c in cases:
        ref = base.get((c["group"], c["case"]))
        if not ref or c is ref or "metrics" not in c:
            continue
        key = "iteration_wall_ms" if "iteration_wall_ms" in c["metrics"] else "total_wall_ms"
        ratio = ref["metrics"][key]["median"] / c["metrics"][key]["median"]
        rows.append(f"| {c['device_label']} | {c['case']} | {fmt(ref['metrics'][key]['median'])} | "
                    f"{fmt(c['metrics'][key]['median'])} | {ratio:.1f}x |")
    if not rows:
        return []
    return ["| device | case | one core, ms | device, ms | speedup |", "|---|---|---|---|---|"] + rows


def config_value(case, dotted):
    node = case.get("config", {})
    for key in dotted.split("."):
        if not isinstance(node, dict) or key not in node:
            return case["varied"].get(dotted)
        node = node[key]
    return node


def matches(case, varied):
    """The case ran with these values (a string matches the end of a longer one: a path's file name)."""
    for key, want in varied.items():
        got = config_value(case, key)
        if got != want and not (isinstance(got, str) and isinstance(want, str) and got.endswith("/" + want)):
            return False
    return True


def peer_rows(cases, peers):
    rows = []
    for p in peers:
        for record in p["output"] if isinstance(p["output"], list) else [p["output"]]:
            ours = record.get("ours")
            if not ours:
                rows.append(f"| {record['peer']} ({record.get('device', '')}) | {record.get('workload', '')} | "
                            f"{fmt(record.get('ms'))} | | | |")
                continue
            by_device = defaultdict(list)
            for c in cases:
                if (c["group"] == ours["group"] and "metrics" in c and ours["metric"] in c["metrics"]
                        and matches(c, ours["varied"])):
                    by_device[c["device_label"]].append(c["metrics"][ours["metric"]]["median"])
            for device, values in by_device.items():
                best = min(values)
                rows.append(f"| {record['peer']} ({record.get('device', '')}) | {record['workload']} | "
                            f"{fmt(record['ms'])} | {device} | {fmt(best)} | {record['ms'] / best:.1f}x |")
    if not rows:
        return []
    return ["| peer | workload | peer ms | itercl on | itercl ms (best variant) | itercl faster by |",
            "|---|---|---|---|---|---|"] + rows


def peak_rows(cases, devices):
    """The best GFLOPS and GB/s each device reached in each group, against its measured peaks."""
    peaks = {d["label"]: d["peaks"] for d in devices}
    best = {}
    for c in cases:
        m = c.get("metrics", {})
        if "gflops_kernel" not in m:
            continue
        key = (c["device_label"], c["group"])
        if key not in best or m["gflops_kernel"]["median"] > best[key][0]:
            best[key] = (m["gflops_kernel"]["median"], metric(m, "kernel_gbs"), c)
    rows = []
    for (device, group), (gflops, gbs, c) in sorted(best.items()):
        p = peaks[device]
        double = c.get("config", {}).get("precision") == "double"
        peak = p["fp64_gflops"] if double else p["fp32_gflops"]
        rows.append(f"| {device} | {group} | {c['case']} | {fmt(gflops)} | {100 * gflops / peak:.0f}% of {fmt(peak)} | "
                    + (f"{fmt(gbs)} | {100 * gbs / p['bandwidth_gbs']:.0f}% of {fmt(p['bandwidth_gbs'])} |"
                       if gbs else " | |"))
    if not rows:
        return []
    return ["| device | group | best case | GFLOPS | of peak | GB/s | of peak bandwidth |",
            "|---|---|---|---|---|---|---|"] + rows


def overhead(suite, cases, out_dir):
    """Seed section 4.2: T = c + o; with the compute doubled, T' = 2c + o, so c = T' - T, o = 2T - T'."""
    cases = [c for c in cases if c["group"] == "overhead" and "metrics" in c]
    if not cases:
        return [], None
    knob = next(k for k in cases[0]["varied"] if k != N_KEY)
    metric = "iteration_wall_ms" if knob.endswith("launches") else "total_wall_ms"
    table = defaultdict(dict)
    for c in cases:
        table[(c["device_label"], c["varied"][N_KEY])][c["varied"][knob]] = c["metrics"][metric]["median"]
    rows, curves = [], defaultdict(list)
    for (device, n), t in sorted(table.items()):
        if len(t) != 2:
            continue
        low, high = sorted(t)
        compute = t[high] - t[low]
        fixed = t[low] - compute
        rows.append(f"| {device} | {n} | {fmt(t[low])} | {fmt(t[high])} | {fmt(compute)} | {fmt(fixed)} |")
        curves[device].append((n, compute, fixed))
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    for device, points in curves.items():
        points.sort()
        ax.plot([p[0] for p in points], [max(p[1], 1e-4) for p in points], marker="o", label=f"c, {device}")
        ax.plot([p[0] for p in points], [max(p[2], 1e-4) for p in points], marker="x", ls="--", label=f"o, {device}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("N")
    ax.set_ylabel(metric.replace("_", " "))
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    ax.set_title(f"{suite}: compute c and overhead o (T = c + o)")
    fig.tight_layout()
    name = f"{suite}-overhead.png"
    fig.savefig(os.path.join(out_dir, name), dpi=110)
    plt.close(fig)
    head = [f"`{knob}` doubled the compute; T is `{metric}` (median).", "",
            "| device | N | T | T' | c = T' - T | o = 2T - T' |", "|---|---|---|---|---|---|"]
    return head + rows, name


def graph_label(case):
    """The graph a PageRank case ran on: its file's name, or the generator and scale."""
    data = case.get("varied", {}).get("data") or case.get("config", {}).get("data", {})
    if "path" in data:
        return os.path.basename(data["path"]).split(".")[0]
    return f"{data.get('generator', 'graph')} {data.get('scale', '')}".strip()


def pagerank_formats(suite, cases, out_dir):
    """PageRank (seed Figures 10 and 11): time per iteration of every storage format on every graph, a panel
    per device. None when no case varies params.format."""
    cases = [c for c in cases if "params.format" in c.get("varied", {}) and "metrics" in c]
    if not cases:
        return None
    devices = list(dict.fromkeys(c["device_label"] for c in cases))
    graphs = list(dict.fromkeys(graph_label(c) for c in cases))
    formats = list(dict.fromkeys(c["varied"]["params.format"] for c in cases))
    fig, axes = plt.subplots(1, len(devices), figsize=(max(6.5, 1.1 * len(graphs) * len(devices) + 2), 4.2),
                             squeeze=False)
    width = 0.8 / len(formats)
    for ax, device in zip(axes[0], devices):
        for k, fmt_name in enumerate(formats):
            xs, ys = [], []
            for g, graph in enumerate(graphs):
                values = [c["metrics"]["iteration_wall_ms"]["median"] for c in cases
                          if c["device_label"] == device and graph_label(c) == graph
                          and c["varied"]["params.format"] == fmt_name and "iteration_wall_ms" in c["metrics"]]
                if values:
                    xs.append(g + (k - (len(formats) - 1) / 2) * width)
                    ys.append(min(values))
            ax.bar(xs, ys, width=width, label=fmt_name)
        ax.set_xticks(range(len(graphs)))
        ax.set_xticklabels(graphs, rotation=30, ha="right", fontsize=8)
        ax.set_yscale("log")
        ax.set_ylabel("ms per iteration (median wall)")
        ax.set_title(device, fontsize=9)
        ax.grid(True, axis="y", which="both", alpha=0.3)
    axes[0][0].legend(fontsize=7)
    fig.suptitle(f"{suite}: PageRank storage formats, time per iteration", fontsize=10)
    fig.tight_layout()
    name = f"{suite}-formats.png"
    fig.savefig(os.path.join(out_dir, name), dpi=110)
    plt.close(fig)
    return name


def tuning_rows(folder):
    rows = []
    if not folder or not os.path.isdir(folder):
        return rows
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".json"):
            continue
        with open(os.path.join(folder, name)) as f:
            db = json.load(f)
        for device, entry in db.get("devices", {}).items():
            t = entry.get("tuned")
            if not t:
                continue
            params = {k: v for k, v in entry.items() if k not in ("tuned", "why", "measured_on")}
            rows.append(f"| {name[:-5]} | {device} | {json.dumps(t['problem'])} | {fmt(t['before_ms'])} | "
                        f"{fmt(t['median_ms'])} | {t['before_ms'] / t['median_ms']:.2f}x | {json.dumps(params)} |")
    if not rows:
        return rows
    return ["| kernel | device | problem | before, ms | tuned, ms | gain | tuned parameters |",
            "|---|---|---|---|---|---|---|"] + rows


def sources(paths):
    """Each file as the report names it: its path from the repository's root when it lies inside it (so
    that the report reads the same wherever it is written), the commit that produced it and when."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    rows = ["| results file | commit | started |", "|---|---|---|"]
    for path in paths:
        with open(path) as f:
            r = json.load(f)
        if not isinstance(r, dict) or "cases" not in r:
            continue
        full = os.path.abspath(path)
        name = os.path.relpath(full, root) if full.startswith(root + os.sep) else path
        rows.append(f"| `{name}` | {r.get('commit', 'not recorded')} | {r.get('started_at', '')} |")
    return rows


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("results", nargs="*", help="bench results files (default: every committed suite run, "
                   "benchmarks/results/*/suites/*.json)")
    p.add_argument("--out", help="folder for report.md and the PNGs (default with no files: "
                   "benchmarks/results/report)")
    p.add_argument("--tuning", default=None, help="tuning database folder, for what tuning gained "
                   "(default with no files: tuning/)")
    p.add_argument("--time-to-solution", action="append",
                   help="a folder of benchmarks/time_to_solution results (itercl run results and peers.json)")
    a = p.parse_args()
    if not a.results:
        a.results = sorted(glob.glob(os.path.join(root, "benchmarks", "results", "*", "suites", "*.json")))
        if not a.results:
            sys.exit("report.py: no committed suite results (benchmarks/results/*/suites/*.json)")
        a.out = a.out or os.path.join(root, "benchmarks", "results", "report")
        a.tuning = os.path.join(root, "tuning") if a.tuning is None else a.tuning
    if not a.out:
        p.error("--out is needed when results files are named")
    os.makedirs(a.out, exist_ok=True)
    suites, devices, peers = load(a.results)
    if not devices:
        sys.exit("report.py: none of the files is an `itercl bench` results file: nothing to report")

    md = ["# itercl benchmark report", "", "Generated by `benchmarks/report.py` from these results files, "
          "each the last full run of its suite on its card, with the commit that ran it:", ""]
    md += sources(a.results) + ["", "## Devices", "",
          "| device | platform | driver | compute units | fp32 peak GFLOPS | fp64 peak GFLOPS | bandwidth GB/s |",
          "|---|---|---|---|---|---|---|"]
    for d in devices:  # a device measured in several files has a row for each: its peaks of each run
        i, pk = d["info"], d["peaks"]
        md.append(f"| {d['label']} | {i['platform']} | {i['driver_version']} | {i['compute_units']} | "
                  f"{fmt(pk['fp32_gflops'])} | {fmt(pk['fp64_gflops'])} | {fmt(pk['bandwidth_gbs'])} |")
    md += ["", "Peaks measured by `itercl bench` on each device (cl/peak.cl: FMA chains, a 4-wide copy)."]
    for suite, cases in suites.items():
        md += ["", f"## {suite}", ""]
        groups = list(dict.fromkeys(c["group"] for c in cases))
        for group in groups:
            gcases = [c for c in cases if c["group"] == group]
            md += [f"### {group}", ""]
            varied_n = {c["varied"].get(N_KEY) for c in gcases} - {None}
            if len(varied_n) > 1:
                md += [f"![{suite} {group}]({plot_group(suite, group, gcases, a.out)})", ""]
            md += group_table(gcases) + [""]
        for title, rows in (("Speedup over one CPU core", speedups(cases)),
                            ("Against the peers (same machine, same run)", peer_rows(cases, peers[suite])),
                            ("Achieved rates against the measured peaks", peak_rows(cases, devices))):
            if rows:
                md += [f"### {title}", ""] + rows + [""]
        figure = pagerank_formats(suite, cases, a.out)
        if figure:
            md += ["### Storage formats (seed Figures 10 and 11)", "", f"![{suite} formats]({figure})", ""]
        rows, figure = overhead(suite, cases, a.out)
        if rows:
            md += ["### Overhead model (seed section 4.2)", "", f"![{suite} overhead]({figure})", ""] + rows + [""]
    for folder in a.time_to_solution or []:
        md += ["## Time to solution", "", f"From `{os.path.relpath(folder, a.out)}`: each call whole, from the "
               "input in host memory to the result in host memory (benchmarks/time_to_solution), the last of 3 "
               "(warm program cache) and the first; the peers' whole calls in the same session.", ""]
        md += time_to_solution(folder) + [""]
    rows = tuning_rows(a.tuning)
    if rows:
        md += ["## What tuning gained (`itercl tune`)", ""] + rows + [""]
    with open(os.path.join(a.out, "report.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print(os.path.join(a.out, "report.md"))


if __name__ == "__main__":
    main()
