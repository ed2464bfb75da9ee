#!/usr/bin/env bash
# K-Means whose float points exceed one GPU's memory (issue 11), one rank per GPU, on the multi-GPU machine
# through the device tool: kmeans-past-one-gpu.json beside this script (1,288,490,188 points of 32 floats,
# 164.9 GB; each of 2 ranks draws its half straight into float on its host cores and keeps it on its GPU
# in chunks). For each rank count: the iterations, the median iteration (kernel, transfer, host update,
# MPI), every rank's chunks, the time each rank took to draw its points, the fit's wall and every rank's
# peak resident memory. Results, the config as run, logs and the peaks land in $OUT.
#   BIN     the itercl binary (default .gpu/itercl)       NP  rank counts, run in turn (default "2")
#   N, K, D, DEVICE, MAX_ITER  override the config's n_samples, n_clusters (and centers), n_features,
#           device and max_iter: the same run scaled down, e.g. on PoCL with ITERCL_DEVICE_MEMORY and
#           ITERCL_MAX_ALLOCATION lowering the device (docs/kmeans.md, "Points larger than the device")
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
BIN=${BIN:-.gpu/itercl}
OUT=${OUT:-/tmp/itercl-past-one-gpu}
NP=${NP:-2}
mkdir -p "$OUT" /etc/OpenCL/vendors 2>/dev/null || mkdir -p "$OUT"
[[ -f /usr/lib/libnvidia-opencl.so.1 ]] && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
exec > >(tee -a "$OUT/log.txt") 2>&1
{ "$BIN" devices; free -g; nproc; nvidia-smi --query-gpu=name,memory.total --format=csv 2>/dev/null || true; } > "$OUT/machine.txt" 2>&1

python3 - "$here/kmeans-past-one-gpu.json" "$OUT/config.json" <<'PY'
import json, os, re, sys
text = re.sub(r"^\s*//.*$", "", open(sys.argv[1]).read(), flags=re.M)
c = json.loads(text)
env = os.environ
if "N" in env: c["data"]["n_samples"] = int(env["N"])
if "D" in env: c["data"]["n_features"] = int(env["D"])
if "K" in env: c["data"]["centers"] = c["params"]["n_clusters"] = int(env["K"])
if "DEVICE" in env: c["device"] = env["DEVICE"]
if "MAX_ITER" in env: c["params"]["max_iter"] = int(env["MAX_ITER"])
c["output"] = {"path": os.path.join(os.path.dirname(sys.argv[2]), "results.json")}
json.dump(c, open(sys.argv[2], "w"), indent=1)
PY

# Each rank runs under a small Python parent that records its peak resident memory (the child's ru_maxrss).
peak='import os, resource, subprocess, sys
rc = subprocess.call(sys.argv[2:])
rank = os.environ.get("OMPI_COMM_WORLD_RANK", "0")
open(f"{sys.argv[1]}.rank{rank}.txt", "w").write(f"{resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}\n")
sys.exit(rc)'
for p in $NP; do
  start=$(date +%s.%N)
  # --bind-to none: Open MPI would bind each rank to one core, and the generator and the host's passes over
  # the points use every core of the rank's share.
  mpirun --allow-run-as-root --bind-to none -np "$p" python3 -c "$peak" "$OUT/peak_rss.np$p" \
    "$BIN" run "$OUT/config.json" --out "$OUT/np$p.json" --quiet
  end=$(date +%s.%N)
  python3 - "$OUT/np$p.json" "$OUT/peak_rss.np$p" "$p" "$start" "$end" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
p, res, data, t = int(sys.argv[3]), r["result"], r["data"], r["timings"]
m = t["median_iteration"]
print(f'-np {p}: {data["n_samples"]} x {data["n_features"]} points, K = {r["config"]["params"]["n_clusters"]}, '
      f'{r["precision"]}, {r["device"]["name"]}: n_iter {res["n_iter"]}, inertia {res["inertia"]:.10g}')
print(f'  median iteration {m["wall_ms"]:.1f} ms: kernel {m["kernel_ms"]:.1f}, transfer {m["transfer_ms"]:.1f}, '
      f'host {m["host_ms"]:.1f}, comm {m.get("comm_ms", 0):.1f}; {r["gflops"]["kernel"]:.0f} GFLOP/s in the kernel')
print(f'  the fit {t["repeat_wall_ms"][0] / 1e3:.1f} s, of which iterations {t["total"]["wall_ms"] / 1e3:.1f} s; '
      f'whole run {float(sys.argv[5]) - float(sys.argv[4]):.1f} s')
loads = data.get("load_s_ranks", [data.get("load_s", float("nan"))])  # nan: a binary that does not time it
for rank, s in enumerate(res["streaming"].get("ranks", [res["streaming"]])):
    rss = int(open(f"{sys.argv[2]}.rank{rank}.txt").read()) * 1024
    how = (f'{"streamed" if s["streamed"] else "kept"} in {s["chunks"]} chunks of {s["chunk_rows"]} rows'
           if s.get("chunks") else "resident in one buffer")
    load = loads[rank] if rank < len(loads) else float("nan")
    print(f'  rank {rank}: points drawn in {load:.1f} s; {how}; peak resident memory {rss / 1e9:.2f} GB')
PY
done
