#!/usr/bin/env bash
# Issue 16 on nvidia-h200-x4, one call: the scaling over 1, 2 and 4 ranks at the issue's sizes, SMACOF
# packed over 4 (and 2) ranks with n = 300,000, then K-Means past one GPU on 4 ranks; each step under a
# timeout and packed into $OUT after it, so a call cut short keeps what finished.
set -u
R=/tmp/x4; mkdir -p $R /etc/OpenCL/vendors
echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0
BIN=$PWD/.gpu/itercl
exec > >(tee -a $R/log.txt) 2>&1
pack() { tar czf $OUT/x4.tgz -C $R .; }
{ $BIN devices; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv; nvidia-smi topo -m; nproc; free -g; mpirun --version; } > $R/devices.txt 2>&1
cat $R/devices.txt; pack
echo "== scaling $(date +%T)"
timeout ${T1:-380} python3 benchmarks/mpi/scaling.py --itercl $BIN --ranks 1,2,4 --device gpu --sizes issue \
  --size pagerank_weak=24 --algorithms ${ALGS:-kmeans,smacof,histogram,pagerank} --timeout 150 --out $R/mpi-scaling
pack
echo "== smacof packed $(date +%T)"
NP="4 2" BIN=$BIN OUT=$R/smacof-packed-ranks timeout ${T2:-110} bash benchmarks/mpi/smacof_packed_ranks.sh
pack
echo "== kmeans past one gpu $(date +%T)"
NP=4 BIN=$BIN OUT=$R/kmeans-past-one-gpu timeout ${T3:-80} bash benchmarks/mpi/kmeans_past_one_gpu.sh
pack
echo "== end $(date +%T)"
