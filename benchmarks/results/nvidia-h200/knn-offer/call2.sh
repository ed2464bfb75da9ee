#!/usr/bin/env bash
# Issue 13, one H200, call 2.
#   base  main (62ddc4a)
#   new   knn_fused and knn_rows test a step's candidates at once before any insertion (the committed change)
#   kmt1  assign_tiled finds the winning centroid of a tile in registers when the tile wins (no end_of_tile)
#   kmt2  assign_tiled keeps the nearest per distance (keep_nearer per centroid, no fmin, no end_of_tile)
# kNN: d = 64 (rows) at 5,000 .. 200,000 and d = 128 (fused) at 200,000, k = 10, kernel time, 3 runs;
# the lists of base and new compared; PyTorch at 200,000. K-Means: assignment alone (update host), kernel
# time per iteration (median of 6), D = 32 (N = 1,048,576, K = 1,024) and D = 4 (N = 4,194,304, K = 300).
set -u
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
mkdir -p /tmp/k $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
knn() {
cat > /tmp/k/c.json <<JSON
{"name": "knn", "algorithm": "pairwise_distances", "device": "gpu", "precision": "float",
 "data": {"generator": "uniform", "n_features": $2, "n_samples": $1, "random_state": 1},
 "params": {"metric": "euclidean", "form": "knn", "k": 10, "kernel": {}}, "output": "/tmp/k/o.json"}
JSON
}
km() {
cat > /tmp/k/c.json <<JSON
{"name": "km", "algorithm": "kmeans", "device": "gpu", "precision": "float",
 "data": {"generator": "uniform", "n_features": $2, "n_samples": $3, "random_state": 1},
 "params": {"n_clusters": $4, "init": "random", "n_init": 1, "max_iter": 6, "tol": 0, "random_state": 2,
            "kernel": {"variant": "$1", "update": "host"}}, "output": "/tmp/k/o.json"}
JSON
}
show() { python3 -c 'import json,sys; r=json.load(open("/tmp/k/o.json")); t=r["timings"]; k=t["median_iteration"] if sys.argv[2]=="it" else t["total"]; o=r["kernel"].get("build_options",""); print(sys.argv[1], "kernel %.3f wall %.3f ms" % (k["kernel_ms"], k["wall_ms"]), o[o.find("-D"):][:160], "inertia %r" % r["result"].get("inertia"))' "$1" "$2"; }
for rep in 1 2 3; do
  for n in 200000 50000 20000 5000; do for v in base new; do
    knn $n 64; timeout 60 .gpu/itercl.$v run /tmp/k/c.json --quiet --out /tmp/k/o.json >/dev/null 2>/tmp/k/err && show "knn n=$n d=64 $v rep$rep" tot || { echo "knn $v FAILED"; tail -3 /tmp/k/err; }
    [ $rep = 1 ] && [ $n = 200000 ] && cp /tmp/k/o.distances.npy /tmp/k/d-$v.npy && cp /tmp/k/o.indices.npy /tmp/k/i-$v.npy
  done; done
  for v in base kmt1 kmt2; do
    km tiled 32 1048576 1024; timeout 60 .gpu/itercl.$v run /tmp/k/c.json --quiet --out /tmp/k/o.json >/dev/null 2>/tmp/k/err && show "km D=32 tiled $v rep$rep" it || { echo "km $v FAILED"; tail -3 /tmp/k/err; }
    km tiled 4 4194304 300; timeout 60 .gpu/itercl.$v run /tmp/k/c.json --quiet --out /tmp/k/o.json >/dev/null 2>/tmp/k/err && show "km D=4 tiled $v rep$rep" it || { echo "km $v FAILED"; tail -3 /tmp/k/err; }
  done
  km expanded 32 1048576 1024; timeout 60 .gpu/itercl.base run /tmp/k/c.json --quiet --out /tmp/k/o.json >/dev/null 2>/tmp/k/err && show "km D=32 expanded base rep$rep" it
done
cmp /tmp/k/d-base.npy /tmp/k/d-new.npy && cmp /tmp/k/i-base.npy /tmp/k/i-new.npy && echo "knn n=200000 d=64: base and new lists identical (distances and indices, byte for byte)"
for rep in 1 2; do for v in base new; do
  knn 200000 128; timeout 90 .gpu/itercl.$v run /tmp/k/c.json --quiet --out /tmp/k/o.json >/dev/null 2>/tmp/k/err && show "knn n=200000 d=128 $v rep$rep" tot || { echo "knn128 $v FAILED"; tail -3 /tmp/k/err; }
done; done
timeout 150 python3 benchmarks/pairwise/peers.py --knn-n 200000 --knn-d 64 --knn-k 10 > $OUT/r/torch-knn.json 2>&1; grep '"ms"\|workload' $OUT/r/torch-knn.json
ITERCL_SOURCE_DIR=$PWD timeout 200 .gpu/itercl_device_tests -tc="pairwise*" > $OUT/r/device-tests-pairwise.txt 2>&1; tail -4 $OUT/r/device-tests-pairwise.txt
echo "== end $(date +%T)"
