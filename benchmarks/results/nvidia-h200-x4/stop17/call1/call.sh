#!/usr/bin/env bash
# Issue 16 on nvidia-h200-x4 with the last 6 device minutes: SMACOF (n = 65,536, weak to 131,072) and the
# distance histogram (4 M points, weak to 8.4 M) over 1 and 4 ranks with both of stop 16's fixes (422dd09:
# the own slices' pass overlapping the exchange of X; two histogram rectangles in flight a device). Each
# step packed into $OUT after it, so a call cut short keeps what finished.
set -u
R=/tmp/x4; mkdir -p $R /etc/OpenCL/vendors
echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0
BIN=$PWD/.gpu/itercl
exec > >(tee -a $R/log.txt) 2>&1
pack() { tar czf $OUT/x4c.tgz -C $R --exclude='*.npy' --exclude='*labels*' . ; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nproc; } > $R/devices.txt 2>&1
cat $R/devices.txt; pack
for alg in smacof histogram; do
  echo "== $alg $(date +%T)"
  timeout 170 python3 benchmarks/mpi/scaling.py --itercl $BIN --ranks 1,4 --device gpu --sizes issue \
    --algorithms $alg --timeout 80 --out $R/mpi-scaling-$alg
  pack
done
echo "== end $(date +%T)"
