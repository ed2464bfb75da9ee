#!/usr/bin/env bash
# Issue 16, fourth call, on nvidia-h200-x2: SMACOF n = 65,536 over 1 and 2 ranks (strong, and weak at
# 92,682) with three binaries in one call: before the own slices (itercl.before, 663d63b), the own slices
# in three launches (itercl.prev, 4a967b4), and in two (itercl, 2128241).
set -u
R=/tmp/x2e; mkdir -p $R /etc/OpenCL/vendors
echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0
exec > >(tee -a $R/log.txt) 2>&1
pack() { (cd $R && find . -type f -size -2M | tar czf $OUT/x2e.tgz -T -); }
for round in 1 2; do
  for bin in before prev new; do
    BIN=$PWD/.gpu/itercl.$bin; [ $bin = new ] && BIN=$PWD/.gpu/itercl
    echo "== $bin round $round $(date +%T)"
    timeout 100 python3 benchmarks/mpi/scaling.py --itercl $BIN --ranks 1,2 --device gpu --sizes issue \
      --algorithms smacof --timeout 60 --out $R/smacof-$bin-$round | cut -c1-220
    pack
  done
done
echo "== end $(date +%T)"
