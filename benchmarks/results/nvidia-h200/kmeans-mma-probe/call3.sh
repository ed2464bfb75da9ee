#!/usr/bin/env bash
# Issue 13, one H200, call 3: the tensor-core assignment with the centroids' staged layout
# prepared once (PREPARED=1: TF32 parts, remainders and norms, K x 68, copied as it is) instead of split
# by every work-group, and 8 warps a work-group; N = 1,048,576, D = 32, K = 1,024, as call 2.
set -u
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
{
  echo "mma_assign.cl assign_naive 128 1 1 0"
  echo "mma_assign.cl assign_mma 128 4 1 32768"
  for wg in 128 256; do for lb in 32768 45056; do echo "mma_assign.cl assign_mma $wg 4 1 $lb -D PREPARED=1"; done; done
  echo "mma_assign.cl assign_mma 256 3 1 45056 -D PREPARED=1"
  echo "mma_assign.cl assign_mma 256 2 1 45056 -D PREPARED=1"
  echo "mma_assign.cl assign_mma 512 2 1 45056 -D PREPARED=1"
  echo "mma_assign.cl assign_mma 256 4 1 45056 -D PREPARED=1 -D SPLIT=1"
} | timeout 200 .gpu/mma/harness .gpu/mma 1048576 32 1024
