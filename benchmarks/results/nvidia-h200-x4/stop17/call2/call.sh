#!/usr/bin/env bash
# Issue 16 on nvidia-h200-x4, second call: SMACOF's scaling again over 1, 2 and 4 ranks (a second sample of
# the first call's 4-rank strong case), then K-Means past one GPU on 4 ranks; packed after each step.
set -u
R=/tmp/x4d; mkdir -p $R /etc/OpenCL/vendors
echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0
BIN=$PWD/.gpu/itercl
exec > >(tee -a $R/log.txt) 2>&1
pack() { find $R -size -2M -type f | tar czf $OUT/x4d.tgz -T - ; }
echo "== smacof $(date +%T)"
timeout 60 python3 benchmarks/mpi/scaling.py --itercl $BIN --ranks 1,2,4 --device gpu --sizes issue \
  --algorithms smacof --modes strong --timeout 40 --out $R/mpi-scaling-smacof
pack
echo "== kmeans past one gpu $(date +%T)"
NP=4 BIN=$BIN OUT=$R/kmeans-past-one-gpu timeout 150 bash benchmarks/mpi/kmeans_past_one_gpu.sh
pack
echo "== end $(date +%T)"
