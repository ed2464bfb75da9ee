#!/usr/bin/env bash
# Issue 13, one H200: gemm at D = 32 with the next tile of centroids read into registers while the
# current one is computed (PREFETCH=1, prototype/gemm_prefetch.patch on cl/kmeans_gemm.cl), against the
# same kernel without, and the library's expanded (cl/kmeans.cl as committed, kmeans_proto.cl here).
# The call 1 harness; N = 1,048,576, D = 32, K = 1,024, float, median of 21, labels against assign_naive.
set -u
mkdir -p $OUT/r
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
P=.gpu/kproto
{ echo "kmeans_proto.cl assign_naive 128 1 1 0"
  echo "kmeans_proto.cl assign_expanded 128 4 1 16384"
  echo "kmeans_proto.cl assign_expanded 128 6 1 16384"
  for shape in "256 8 8" "256 8 4" "256 4 8" "128 8 8" "512 8 8"; do
    echo "gemm_proto.cl assign_gemm $shape 0"
    echo "gemm_proto.cl assign_gemm $shape 0 -D PREFETCH=1"
  done
  echo "gemm_proto.cl assign_gemm 256 8 8 0 -D PREFETCH=1 -cl-nv-maxrregcount=128"
  echo "kmeans_proto.cl assign_expanded 128 4 1 16384"
} | timeout 300 $P/harness $P 1048576 32 1024 | grep -v "stack frame" | tee $OUT/r/d32.txt
echo "== end $(date +%T)"
