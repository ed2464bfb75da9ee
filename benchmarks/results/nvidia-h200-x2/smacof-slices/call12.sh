#!/usr/bin/env bash
# SMACOF on H200s: slices given, to place a longest-slice rule: 32 / 64 / 128 / 256 slices at n = 65,536,
# 92,682 and 131,072 on one H200, and on 2 ranks at 92,682.
set -u
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
cfg() {  # n slices
cat > /tmp/s.json <<JSON
{"name": "s", "algorithm": "smacof", "device": "gpu", "precision": "float",
 "data": {"kind": "vectors", "generator": "uniform", "n_samples": $1, "n_features": 4, "random_state": 1},
 "params": {"n_components": 2, "init": "random", "max_iter": 20, "eps": 0, "random_state": 2,
            "kernel": {"slices": $2}}, "output": "/tmp/s.results.json"}
JSON
}
show() { python3 -c 'import json,sys; r=json.load(open("/tmp/s.results.json")); m=r["timings"]["median_iteration"]; k=r["kernel"]["tuning"]; print(sys.argv[1], "wall %.3f kernel %.3f ms" % (m["wall_ms"], m["kernel_ms"]), "slices", k["slices"], "wg", k["work_group_size"])' "$1"; }
for n in 32768 65536 92682 131072; do for s in 32 64 128 256; do
  cfg $n $s
  ITERCL_DEVICE=1:0 timeout 60 .gpu/itercl.prev run /tmp/s.json --quiet --out /tmp/s.results.json >/dev/null 2>&1 && show "np1 n $n"
done; done
for s in 64 128 256; do
  cfg 92682 $s
  timeout 60 mpirun --allow-run-as-root --bind-to none -np 2 .gpu/itercl.prev run /tmp/s.json --quiet --out /tmp/s.results.json >/dev/null 2>&1 && show "np2 n 92682"
done
echo "== end $(date +%T)"
