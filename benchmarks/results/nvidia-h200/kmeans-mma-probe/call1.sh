#!/usr/bin/env bash
# Issue 13, one H200, call 1: does NVIDIA's OpenCL take inline PTX, a TF32 tensor-core mma.sync in
# particular (prototype/mma_probe.cl, probe.cpp)? The one route past the FP32 FMA bound of the D = 32
# K-Means assignment.
set -u
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
.gpu/mma/probe .gpu/mma/mma_probe.cl; echo "probe rc=$?"
