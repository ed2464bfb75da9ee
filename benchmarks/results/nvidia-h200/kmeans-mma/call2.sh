#!/usr/bin/env bash
# Issue 13, one H200, call 2: the committed build, where the H200's entry sets mma_from_dim 8 and
# prepare_mma writes one value a work-item (coalesced), against main's binary (93f7f6e: its K-Means is
# 95ab81a's), the defaults a user gets, three rounds interleaved; mma's prepare step alone (N = 4,096);
# the fused Lloyd kernel with 4 tiles a warp; PyTorch in the same call. Then the K-Means device tests.
set -u
mkdir -p $OUT/r
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
echo "== mma device tests $(date +%T)"
timeout 200 .gpu/itercl_device_tests --test-case="mma*" > $OUT/r/mma-tests.txt 2>&1; tail -4 $OUT/r/mma-tests.txt
mkdir -p /tmp/k
km() {  # km <kernel json> <D> <N> <K>
cat > /tmp/k/c.json <<JSON
{"name": "km", "algorithm": "kmeans", "device": "gpu", "precision": "float",
 "data": {"generator": "uniform", "n_features": $2, "n_samples": $3, "random_state": 1},
 "params": {"n_clusters": $4, "init": "random", "n_init": 1, "max_iter": 6, "tol": 0, "random_state": 2,
            "kernel": $1}, "output": "/tmp/k/o.json"}
JSON
}
show() { python3 -c 'import json,sys; r=json.load(open("/tmp/k/o.json")); t=r["timings"]["median_iteration"]; k=r["kernel"]["tuning"]; print(sys.argv[1], "kernel %.4f wall %.4f ms" % (t["kernel_ms"], t["wall_ms"]), "inertia %r" % r["result"].get("inertia"), k["variant"], k["update"], "wg", k["work_group_size"], "ppi", k["points_per_item"], "chunk", k["centroids_per_chunk"])' "$1"; }
run() {  # run <label> <binary>
  timeout 90 .gpu/itercl.$2 run /tmp/k/c.json --quiet --out /tmp/k/o.json >/dev/null 2>/tmp/k/err && show "$1 $2" || { echo "$1 $2 FAILED"; tail -5 /tmp/k/err; }
}
for rep in 1 2 3; do
  echo "== round $rep $(date +%T)"
  for v in main mma; do
    km '{"update": "host"}' 32 1048576 1024; run "assign D=32 default" $v
    km '{}' 32 1048576 1024; run "lloyd D=32 default" $v
    km '{"update": "host"}' 4 4194304 300; run "assign D=4 default" $v
    km '{}' 4 4194304 300; run "lloyd D=4 default" $v
    km '{"update": "host"}' 16 1048576 1024; run "assign D=16 default" $v
  done
  for v in '"mma"' '"expanded"'; do km "{\"update\": \"host\", \"variant\": $v}" 32 4096 1024; run "assign D=32 N=4096 $v" mma; done
  km '{"variant": "mma", "points_per_item": 4}' 32 1048576 1024; run "lloyd D=32 mma ppi 4" mma
  km '{"update": "host", "variant": "mma", "points_per_item": 4}' 32 1048576 1024; run "assign D=32 mma ppi 4" mma
done 2>&1 | tee $OUT/r/timings.txt
echo "== PyTorch $(date +%T)"
timeout 120 python3 benchmarks/kmeans/peers.py --n 1048576 --d 32 --k 1024 --no-sklearn > $OUT/r/torch-d32.json 2>&1; grep -o '"workload": "[^"]*", "ms": [0-9.]*' $OUT/r/torch-d32.json
timeout 120 python3 benchmarks/kmeans/peers.py --n 4194304 --d 4 --k 300 --no-sklearn > $OUT/r/torch-d4.json 2>&1; grep -o '"workload": "[^"]*", "ms": [0-9.]*' $OUT/r/torch-d4.json
echo "== kmeans device tests $(date +%T)"
timeout 300 .gpu/itercl_device_tests --source-file="*kmeans*" -tce="tuning sweeps*" > $OUT/r/device-tests.txt 2>&1; tail -4 $OUT/r/device-tests.txt
echo "== end $(date +%T)"
