#!/usr/bin/env bash
# SMACOF with packed storage over MPI ranks, one GPU each, on the multi-GPU machine through the device
# tool (issues 11 and 16). First N_CHECK points packed on one GPU (plain) and over each count of ranks in
# NP: the iterations, the stress and the embedding's distance to the plain run's (tolerance::ranks_packed,
# 2 (N + 16) eps), and the median iteration (kernel, transfer, comm); then, at each count in NP,
# benchmarks/mpi/smacof-300k.json, N = 300,000 in float, which fits no single H200 (180 GB packed) and 2
# by default ("auto" storage packed, 90 GB a rank on 2, 45 GB on 4).
#   BIN     the itercl binary (default .gpu/itercl)    CONFIG  the 300k config (default beside this script)
#   N_CHECK points of the check (default 65536)        OUT     results (default /tmp/itercl-smacof-ranks)
#   NP      rank counts, run in turn (default "2")
set -euo pipefail
BIN=${BIN:-.gpu/itercl}
CONFIG=${CONFIG:-$(dirname "$0")/smacof-300k.json}
OUT=${OUT:-/tmp/itercl-smacof-ranks}
N_CHECK=${N_CHECK:-65536}
NP=${NP:-2}
mkdir -p "$OUT" /etc/OpenCL/vendors
[[ -f /usr/lib/libnvidia-opencl.so.1 ]] && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
mpirun() { command mpirun --allow-run-as-root --bind-to none "$@"; }
cat > "$OUT/check.json" <<JSON
{"name": "smacof-packed-check", "algorithm": "smacof", "device": "gpu", "precision": "float",
 "data": {"kind": "vectors", "generator": "uniform", "n_samples": $N_CHECK, "n_features": 4, "random_state": 1},
 "params": {"n_components": 2, "init": "random", "max_iter": 10, "eps": 0, "random_state": 2,
            "kernel": {"packed": true}},
 "output": {"path": "$OUT/check.results.json"}}
JSON
summary() {  # results file [the plain run's, to compare with]
  python3 - "$@" <<'PY'
import json, sys
import numpy as np
r = json.load(open(sys.argv[1]))
m, k = r["timings"]["median_iteration"], r["kernel"]
print(f'{sys.argv[1].split("/")[-1]}: ranks {r.get("mpi", {}).get("ranks", 1)}, packed {k["tuning"]["packed"]}, '
      f'slices {k["tuning"]["slices"]}, buffers (rank 0) {k["delta_buffers"]}, n_iter {r["result"]["n_iter"]}, '
      f'stress {r["result"]["stress"]:.9g}; median iteration wall {m["wall_ms"]:.3f} ms (kernel {m["kernel_ms"]:.3f}, '
      f'transfer {m["transfer_ms"]:.3f}, comm {m.get("comm_ms", 0):.3f}); upload {r["timings"]["upload"]}')
if len(sys.argv) > 2:
    p = json.load(open(sys.argv[2]))
    def embedding(x):  # inline, or a .npy file beside the results
        e = x["result"]["embedding"]
        return np.load(e["file"]) if isinstance(e, dict) else np.array(e, dtype=float)
    a, b = embedding(p), embedding(r)
    bound = 2 * (len(a) + 16) * np.finfo(np.float32).eps
    print(f'  against the plain run: embedding {np.linalg.norm(a - b) / np.linalg.norm(a):.3g} relative '
          f'(tolerance {bound:.3g}), stress '
          f'{abs(r["result"]["stress"] - p["result"]["stress"]) / p["result"]["stress"]:.3g} relative, '
          f'n_iter {"same" if r["result"]["n_iter"] == p["result"]["n_iter"] else "DIFFERENT"}')
PY
}
"$BIN" run "$OUT/check.json" --out "$OUT/check.plain.json" --quiet
summary "$OUT/check.plain.json"
for p in $NP; do
  mpirun -np "$p" "$BIN" run "$OUT/check.json" --out "$OUT/check.np$p.json" --quiet
  summary "$OUT/check.np$p.json" "$OUT/check.plain.json"
done
for p in $NP; do
  mpirun -np "$p" "$BIN" run "$CONFIG" --out "$OUT/smacof-300k.np$p.json" --quiet
  summary "$OUT/smacof-300k.np$p.json"
done
