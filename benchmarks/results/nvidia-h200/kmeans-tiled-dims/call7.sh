#!/usr/bin/env bash
# Issue 13, one H200: the fused Lloyd iteration (update device) at D = 8 with tiled against expanded (the
# H200's entry took tiled only up to D = 4, D = 8 unmeasured), main's binary (422dd09); N = 1,048,576,
# K = 1,024 and N = 4,194,304, K = 300, float, median of 6 iterations, three rounds.
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
run() { km $2 $3 $4 $5 $6; timeout 60 .gpu/$1 run /tmp/k/c.json --quiet --out /tmp/k/o.json >/dev/null 2>/tmp/k/err && show "$1 $2 D=$3 N=$4 K=$5 update=$6" || { echo "$1 $2 D=$3 FAILED"; tail -3 /tmp/k/err; }; }
for rep in 1 2 3; do
  echo "== round $rep $(date +%T)"
  for v in expanded tiled; do
    run itercl $v 8 1048576 1024 device; run itercl $v 8 4194304 300 device; run itercl $v 8 4194304 300 host
  done
done
echo "== end $(date +%T)"
