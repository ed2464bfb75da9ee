#!/usr/bin/env bash
# Issue 13, one H200: where knn_rows' time goes at 200,000 points (d = 64, k = 10) and the D = 32
# assignment's (N = 1,048,576, K = 1,024). Each binary is main's with one change to a kernel:
#   base     main
#   hit      knn_rows: one test of a step's RPI x CPS candidates before any insertion (same lists)
#   nosel    knn_rows: selection replaced by a running minimum (ablation: the distances alone; lists wrong)
#   nostage  knn_rows: columns staged for the first tile only (ablation: no staging, no barriers; wrong)
#   kmnosel  assign_expanded: keep_nearer replaced by fmin (ablation: distances alone; labels wrong)
set -u
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
mkdir -p /tmp/k
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
knn() {
cat > /tmp/k/c.json <<JSON
{"name": "knn", "algorithm": "pairwise_distances", "device": "gpu", "precision": "float",
 "data": {"generator": "uniform", "n_features": 64, "n_samples": $1, "random_state": 1},
 "params": {"metric": "euclidean", "form": "knn", "k": 10, "kernel": {}}, "output": "/tmp/k/o.json"}
JSON
}
km() {
cat > /tmp/k/c.json <<JSON
{"name": "km", "algorithm": "kmeans", "device": "gpu", "precision": "float",
 "data": {"generator": "uniform", "n_features": 32, "n_samples": 1048576, "random_state": 1},
 "params": {"n_clusters": 1024, "init": "random", "n_init": 1, "max_iter": 6, "tol": 0, "random_state": 2,
            "kernel": {"variant": "$1", "update": "host"}}, "output": "/tmp/k/o.json"}
JSON
}
show() { python3 -c 'import json,sys; r=json.load(open("/tmp/k/o.json")); t=r["timings"]; k=t["median_iteration"] if sys.argv[2]=="it" else t["total"]; o=r["kernel"].get("build_options",""); print(sys.argv[1], "kernel %.3f wall %.3f ms" % (k["kernel_ms"], k["wall_ms"]), o[o.find("-D"):][:160])' "$1" "$2"; }
for rep in 1 2 3; do
  for v in base hit nosel nostage; do
    knn 200000; timeout 60 .gpu/itercl.$v run /tmp/k/c.json --quiet --out /tmp/k/o.json >/dev/null 2>/tmp/k/err && show "knn200k $v rep$rep" tot || { echo "knn $v FAILED"; tail -3 /tmp/k/err; }
  done
  for v in base kmnosel; do for var in expanded tiled; do
    km $var; timeout 60 .gpu/itercl.$v run /tmp/k/c.json --quiet --out /tmp/k/o.json >/dev/null 2>/tmp/k/err && show "km32 $v $var rep$rep" it || { echo "km $v FAILED"; tail -3 /tmp/k/err; }
  done; done
done
echo "== end $(date +%T)"
