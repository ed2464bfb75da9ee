#!/usr/bin/env bash
# SMACOF on H200s: the slices' rule's groups_per_unit (the H200's entry: 16) at 16, 64 and 128, on one H200
# at n = 16,384 to 131,072 and on 2 ranks at 65,536 and 92,682 (issue 11's strong and weak cases).
set -u
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
cfg() {  # n groups_per_unit
cat > /tmp/s.json <<JSON
{"name": "s", "algorithm": "smacof", "device": "gpu", "precision": "float",
 "data": {"kind": "vectors", "generator": "uniform", "n_samples": $1, "n_features": 4, "random_state": 1},
 "params": {"n_components": 2, "init": "random", "max_iter": 20, "eps": 0, "random_state": 2,
            "kernel": {"groups_per_unit": $2}}, "output": "/tmp/s.results.json"}
JSON
}
show() { python3 -c 'import json,sys; r=json.load(open("/tmp/s.results.json")); m=r["timings"]["median_iteration"]; k=r["kernel"]["tuning"]; print(sys.argv[1], "wall %.3f kernel %.3f ms" % (m["wall_ms"], m["kernel_ms"]), "slices", k["slices"], "wg", k["work_group_size"], "stress %.10g" % r["result"]["stress"])' "$1"; }
for n in 16384 32768 65536 92682 131072; do for g in 16 64 128; do
  cfg $n $g
  ITERCL_DEVICE=1:0 timeout 60 .gpu/itercl.prev run /tmp/s.json --quiet --out /tmp/s.results.json >/dev/null 2>&1 && show "np1 n $n gpu $g"
done; done
for n in 65536 92682; do for g in 16 64 128; do
  cfg $n $g
  timeout 60 mpirun --allow-run-as-root --bind-to none -np 2 .gpu/itercl.prev run /tmp/s.json --quiet --out /tmp/s.results.json >/dev/null 2>&1 && show "np2 n $n gpu $g"
done; done
echo "== end $(date +%T)"
