"""The Python side of the overhead measurement (overhead.sh): itercl.KMeans(...).fit and
itercl.pagerank on the inputs overhead_cpp wrote, the same parameters, timed around the Python call.

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/python/overhead.py DIR REPEATS
    /usr/bin/python3 benchmarks/python/overhead.py --summarise LINES.jsonl OUT.json
"""

import json
import os
import sys
import time

import numpy as np

import itercl

CLUSTERS, ITERATIONS = 16, 20  # overhead_cpp.cpp's


def main(directory, repeats):
    X = np.load(os.path.join(directory, "X.npy"))
    src = np.load(os.path.join(directory, "src.npy"))
    dst = np.load(os.path.join(directory, "dst.npy"))
    n_nodes = 1 << 20
    for r in range(repeats + 1):  # the first call untimed, as on the C++ side
        t0, c0 = time.perf_counter(), time.process_time()
        km = itercl.KMeans(n_clusters=CLUSTERS, init=X[:CLUSTERS], n_init=1, max_iter=ITERATIONS, tol=0).fit(X)
        kmeans_s, kmeans_cpu_s = time.perf_counter() - t0, time.process_time() - c0
        t0, c0 = time.perf_counter(), time.process_time()
        itercl.pagerank((src, dst), n_nodes=n_nodes, max_iter=ITERATIONS, tol=0)
        pagerank_s, pagerank_cpu_s = time.perf_counter() - t0, time.process_time() - c0
        if r > 0:
            print(json.dumps({"side": "python", "kmeans_s": kmeans_s, "kmeans_cpu_s": kmeans_cpu_s,
                              "kmeans_n_iter": km.n_iter_, "pagerank_s": pagerank_s,
                              "pagerank_cpu_s": pagerank_cpu_s, "pagerank_n_iter": ITERATIONS,
                              "load": os.getloadavg()[0]}), flush=True)


def summarise(lines_path, out_path):
    """Medians per side and the overhead, (python - c++) / c++, from the lines both sides printed."""
    with open(lines_path) as f:
        lines = [json.loads(line) for line in f if line.strip()]
    result = {"method": "wall time and process CPU time (all threads, CLOCK_PROCESS_CPUTIME_ID) around each call, "
                        "medians over the timed calls of alternating processes (the first call of each process "
                        "untimed: kernel builds), and the median of each round's ratio of the two sides' "
                        "mean wall times (a round: one C++ process, then one Python process); load: the 1-minute "
                        "load average after each call",
              "device": itercl.devices()[0]["name"] if len(itercl.devices()) == 1 else None,
              "kmeans": "N = 2^20 points uniform in [0, 1)^8, 16 clusters from the first 16 points, 20 iterations, float",
              "pagerank": "R-MAT scale 20, edge factor 16, 20 iterations, format auto, float; edges in, "
                          "in-link CSR built by the call on both sides",
              "calls": lines}
    loads = [x["load"] for x in lines]
    result["load_average"] = {"min": min(loads), "median": float(np.median(loads)), "max": max(loads)}
    print(f"load average (1 min) during the calls: {min(loads):.1f} .. {max(loads):.1f}")
    for algorithm in ("kmeans", "pagerank"):
        for clock in ("_s", "_cpu_s"):
            cpp = float(np.median([x[algorithm + clock] for x in lines if x["side"] == "c++"]))
            py = float(np.median([x[algorithm + clock] for x in lines if x["side"] == "python"]))
            result[algorithm + clock.replace("_s", "_median_s")] = {"c++": cpp, "python": py, "overhead": py / cpp - 1}
            print(f"{algorithm} {'wall' if clock == '_s' else 'cpu'}: C++ {cpp:.3f} s, Python {py:.3f} s, "
                  f"overhead {100 * (py / cpp - 1):+.1f}%")
        ratios = _round_ratios(lines, algorithm + "_s")
        result[algorithm + "_round_ratio"] = {"median": float(np.median(ratios)), "rounds": ratios}
        print(f"{algorithm}: median of the rounds' Python / C++ wall ratios {np.median(ratios):.3f}")
    with open(out_path, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")


def _round_ratios(lines, key):
    """Per round (the C++ process's lines, then the Python process's), Python's mean over C++'s."""
    ratios, cpp = [], []
    for i, x in enumerate(lines):
        if x["side"] == "c++":
            cpp.append(x[key])
        elif cpp and (i + 1 == len(lines) or lines[i + 1]["side"] == "c++"):
            py = [y[key] for y in lines[i - len(cpp) + 1:i + 1]]
            ratios.append(float(np.mean(py) / np.mean(cpp)))
            cpp = []
    return ratios


if __name__ == "__main__":
    if sys.argv[1] == "--summarise":
        summarise(sys.argv[2], sys.argv[3])
    else:
        main(sys.argv[1], int(sys.argv[2]))
