#!/usr/bin/env bash
# Issue 13, one H200, call 7: the final commit's build (4bec708): every K-Means device test, the tuning
# sweep included, and the defaults at issue 13's two K-Means sizes, two rounds.
set -u
mkdir -p $OUT/r
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
echo "== K-Means device tests $(date +%T)"
timeout 300 .gpu/itercl_device_tests --source-file="*kmeans*" > $OUT/r/device-tests.txt 2>&1; tail -4 $OUT/r/device-tests.txt
mkdir -p /tmp/k
km() {  # km <kernel json> <D> <N> <K>
cat > /tmp/k/c.json <<JSON
{"name": "km", "algorithm": "kmeans", "device": "gpu", "precision": "float",
 "data": {"generator": "uniform", "n_features": $2, "n_samples": $3, "random_state": 1},
 "params": {"n_clusters": $4, "init": "random", "n_init": 1, "max_iter": 6, "tol": 0, "random_state": 2,
            "kernel": $1}, "output": "/tmp/k/o.json"}
JSON
}
show() { python3 -c 'import json,sys; r=json.load(open("/tmp/k/o.json")); t=r["timings"]["median_iteration"]; k=r["kernel"]["tuning"]; print(sys.argv[1], "kernel %.4f wall %.4f ms" % (t["kernel_ms"], t["wall_ms"]), "inertia %r" % r["result"].get("inertia"), k["variant"], k["update"], "wg", k["work_group_size"], "ppi", k["points_per_item"])' "$1"; }
run() { timeout 90 .gpu/itercl.final run /tmp/k/c.json --quiet --out /tmp/k/o.json >/dev/null 2>/tmp/k/err && show "$1" || { echo "$1 FAILED"; tail -5 /tmp/k/err; }; }
for rep in 1 2; do
  echo "== round $rep $(date +%T)"
  km '{"update": "host"}' 32 1048576 1024; run "assign D=32 default"
  km '{}' 32 1048576 1024; run "lloyd D=32 default"
  km '{"update": "host"}' 4 4194304 300; run "assign D=4 default"
  km '{}' 4 4194304 300; run "lloyd D=4 default"
done 2>&1 | tee $OUT/r/timings.txt
echo "== end $(date +%T)"
