#!/usr/bin/env bash
# Issue 13, one H100 (nvidia-h100-x1), call 3: does the H200's mma_from_dim hold on the H100? mma's
# device tests, then kernel time per iteration at N = 1,048,576, K = 1,024, D = 8, 16, 32, 64 (float,
# uniform points, 6 iterations, median iteration, two rounds): the assignment alone (update host) and the
# fused Lloyd kernel, mma against expanded (what auto takes on a GPU without an entry of its own above
# D = 4) and gemm; D = 4 at N = 4,194,304, K = 300 too. The build is call 2's.
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
for rep in 1 2; do
  echo "== round $rep $(date +%T)"
  for d in 8 16 32 64; do
    for v in '"expanded"' '"mma"' '"gemm"'; do
      km "{\"update\": \"host\", \"variant\": $v}" $d 1048576 1024; run "assign D=$d $v" mma
      km "{\"variant\": $v}" $d 1048576 1024; run "lloyd D=$d $v" mma
    done
  done
  for v in '"auto"' '"mma"'; do km "{\"update\": \"host\", \"variant\": $v}" 4 4194304 300; run "assign D=4 N=4M K=300 $v" mma; done
done 2>&1 | tee $OUT/r/timings.txt
echo "== PyTorch $(date +%T)"
timeout 120 python3 benchmarks/kmeans/peers.py --n 1048576 --d 32 --k 1024 --no-sklearn > $OUT/r/torch-d32.json 2>&1; grep -o '"workload": "[^"]*",[^,]*"ms": [0-9.]*' $OUT/r/torch-d32.json
echo "== end $(date +%T)"
