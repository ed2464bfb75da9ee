#!/usr/bin/env bash
# Issue 13, one H200: the running minimum kept once every KEEP_TILES tiles of centroids (the nearest of
# KEEP_TILES x CPI found again at the end) instead of once a tile.
#   new    main (110e625): KEEP_TILES 1
#   keep2  the same kernel with KEEP_TILES 2 by default
#   keep4  with KEEP_TILES 4
# K-Means, float, uniform data, 6 iterations (tol 0), kernel time of the median iteration: the assignment
# alone (update on the host) with tiled at D = 4 (N = 4,194,304, K = 300) and expanded at D = 32
# (N = 1,048,576, K = 1,024); the default fit (the fused Lloyd iteration on the device) at both shapes.
# Three rounds interleaved; the inertia after 6 iterations printed for each (the labels must not move).
set -u
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
mkdir -p /tmp/k
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
km() {  # km <kernel json> <D> <N> <K>
cat > /tmp/k/c.json <<JSON
{"name": "km", "algorithm": "kmeans", "device": "gpu", "precision": "float",
 "data": {"generator": "uniform", "n_features": $2, "n_samples": $3, "random_state": 1},
 "params": {"n_clusters": $4, "init": "random", "n_init": 1, "max_iter": 6, "tol": 0, "random_state": 2,
            "kernel": $1}, "output": "/tmp/k/o.json"}
JSON
}
show() { python3 -c 'import json,sys; r=json.load(open("/tmp/k/o.json")); t=r["timings"]["median_iteration"]; o=r["kernel"].get("build_options",""); print(sys.argv[1], "kernel %.4f wall %.4f ms" % (t["kernel_ms"], t["wall_ms"]), "inertia %r" % r["result"].get("inertia"), o[o.find("-D CPI"):][:12])' "$1"; }
run() {  # run <label> <binary>
  timeout 90 .gpu/itercl.$2 run /tmp/k/c.json --quiet --out /tmp/k/o.json >/dev/null 2>/tmp/k/err && show "$1 $2" || { echo "$1 $2 FAILED"; tail -3 /tmp/k/err; }
}
for rep in 1 2 3; do
  echo "== round $rep $(date +%T)"
  for v in new keep2 keep4; do
    km '{"variant": "tiled", "update": "host"}' 4 4194304 300; run "assign D=4 tiled" $v
    km '{"variant": "expanded", "update": "host"}' 32 1048576 1024; run "assign D=32 expanded" $v
    km '{}' 4 4194304 300; run "lloyd D=4 default" $v
    km '{}' 32 1048576 1024; run "lloyd D=32 default" $v
  done
done
echo "== end $(date +%T)"
