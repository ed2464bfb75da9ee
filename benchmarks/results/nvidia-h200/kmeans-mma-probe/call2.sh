#!/usr/bin/env bash
# Issue 13, one H200, call 2: the D = 32 K-Means assignment on the tensor cores
# (prototype/mma_assign.cl in the kmeans-d4-tile harness with an assign_mma branch), N = 1,048,576,
# K = 1,024, uniform points, float: 3xTF32 and TF32 alone, 1, 2 and 4 tiles of 16 points a warp, kernel
# time by OpenCL events (median of 21), labels against the harness's plain FP32 assign_naive (near-ties may
# differ: counted). Then main's itercl (the library's expanded kernel) in the same call.
set -u
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
{
  echo "mma_assign.cl assign_naive 128 1 1 0"
  for mt in 1 2 4; do echo "mma_assign.cl assign_mma 128 $mt 1 32768"; done
  echo "mma_assign.cl assign_mma 128 2 1 45056"
  echo "mma_assign.cl assign_mma 128 2 1 32768 -D SPLIT=1"
  echo "mma_assign.cl assign_mma 128 4 1 32768 -D SPLIT=1"
} | timeout 200 .gpu/mma/harness .gpu/mma 1048576 32 1024
mkdir -p /tmp/k
cat > /tmp/k/c.json <<JSON
{"name": "km", "algorithm": "kmeans", "device": "gpu", "precision": "float",
 "data": {"generator": "uniform", "n_features": 32, "n_samples": 1048576, "random_state": 1},
 "params": {"n_clusters": 1024, "init": "random", "n_init": 1, "max_iter": 6, "tol": 0, "random_state": 2,
            "kernel": {"update": "host"}}, "output": "/tmp/k/o.json"}
JSON
for rep in 1 2; do
  timeout 90 .gpu/itercl.main run /tmp/k/c.json --quiet --out /tmp/k/o.json > /dev/null 2>&1 && python3 -c 'import json; r=json.load(open("/tmp/k/o.json")); print("itercl main, assignment D = 32: kernel %.4f ms" % r["timings"]["median_iteration"]["kernel_ms"])'
done
