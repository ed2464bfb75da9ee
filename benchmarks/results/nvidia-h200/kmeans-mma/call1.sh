#!/usr/bin/env bash
# Issue 13, one H200, call 1: the tensor-core assignment (variant mma, cl/kmeans_mma.cl) built into the
# library. First its device tests (every K-Means variant's, mma's own), then kernel time per iteration,
# N = 1,048,576, K = 1,024 at D = 8, 16, 32 and 64 (float, uniform points, 6 iterations, median iteration):
# the assignment alone (update host) and the fused Lloyd kernel (update device), mma against the
# defaults (expanded above D = 4) and gemm, to set the H200's mma_from_dim.
set -u
mkdir -p $OUT/r
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
echo "== mma device tests $(date +%T)"
timeout 200 .gpu/itercl_device_tests --test-case="mma*" > $OUT/r/mma-tests.txt 2>&1; tail -30 $OUT/r/mma-tests.txt
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
    for v in '"auto"' '"mma"' '"gemm"'; do
      km "{\"update\": \"host\", \"variant\": $v}" $d 1048576 1024; run "assign D=$d $v" mma
      km "{\"variant\": $v}" $d 1048576 1024; run "lloyd D=$d $v" mma
    done
  done
  for p in 1 4; do km "{\"update\": \"host\", \"variant\": \"mma\", \"points_per_item\": $p}" 32 1048576 1024; run "assign D=32 mma ppi $p" mma; done
  km '{"update": "host", "variant": "mma", "work_group_size": 128}' 32 1048576 1024; run "assign D=32 mma wg 128" mma
  km '{"update": "host", "variant": "mma"}' 4 4194304 300; run "assign D=4 N=4M K=300 mma" mma
  km '{"update": "host"}' 4 4194304 300; run "assign D=4 N=4M K=300 auto" mma
  km '{"update": "host"}' 32 1048576 1024; run "assign D=32 default" main
done 2>&1 | tee $OUT/r/timings.txt
echo "== kmeans device tests $(date +%T)"
timeout 300 .gpu/itercl_device_tests --source-file="*kmeans*" -tce="tuning sweeps*" > $OUT/r/device-tests.txt 2>&1; tail -30 $OUT/r/device-tests.txt
echo "== end $(date +%T)"
