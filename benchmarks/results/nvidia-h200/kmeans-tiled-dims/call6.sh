#!/usr/bin/env bash
# Issue 13, one H200: assign_tiled with keep_nearer on every distance past D = 4 (kmt3; D <= 4 as before)
# against main's expanded and tiled (base, 422dd09), N = 1,048,576, K = 1,024, float: the assignment
# (update host) at D = 8, 16, 32, and the fused Lloyd iteration (update device) at D = 32; kernel time per
# iteration, median of 6 iterations, three rounds. Also tiled at D = 4 (N = 4,194,304, K = 300).
set -u
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
mkdir -p /tmp/k
km() {
cat > /tmp/k/c.json <<JSON
{"name": "km", "algorithm": "kmeans", "device": "gpu", "precision": "float",
 "data": {"generator": "uniform", "n_features": $2, "n_samples": $3, "random_state": 1},
 "params": {"n_clusters": $4, "init": "random", "n_init": 1, "max_iter": 6, "tol": 0, "random_state": 2,
            "kernel": {"variant": "$1", "update": "$5"}}, "output": "/tmp/k/o.json"}
JSON
}
show() { python3 -c 'import json,sys; r=json.load(open("/tmp/k/o.json")); t=r["timings"]["median_iteration"]; o=r["kernel"].get("build_options",""); print(sys.argv[1], "kernel %.3f wall %.3f ms" % (t["kernel_ms"], t["wall_ms"]), o[o.find("-D DIM"):][:60], "inertia %r" % r["result"]["inertia"])' "$1"; }
run() { km $2 $3 $4 $5 $6; timeout 60 .gpu/$1 run /tmp/k/c.json --quiet --out /tmp/k/o.json >/dev/null 2>/tmp/k/err && show "$1 $2 D=$3 update=$6" || { echo "$1 $2 D=$3 FAILED"; tail -3 /tmp/k/err; }; }
for rep in 1 2 3; do
  echo "== round $rep $(date +%T)"
  for d in 8 16 32; do
    run itercl expanded $d 1048576 1024 host; run itercl tiled $d 1048576 1024 host; run itercl.kmt3 tiled $d 1048576 1024 host
  done
  run itercl expanded 32 1048576 1024 device; run itercl tiled 32 1048576 1024 device; run itercl.kmt3 tiled 32 1048576 1024 device
  run itercl tiled 4 4194304 300 host; run itercl.kmt3 tiled 4 4194304 300 host
done
echo "== end $(date +%T)"
