#!/usr/bin/env bash
# Issue 16 on nvidia-h200-x4, call 3: the committed tree (own slices on their own queue; full storage over
# ranks sliced until each rank's block fills its device): SMACOF at 1, 2 and 4 ranks (n = 65,536, float,
# strong and weak), twice; then every device test on one of the GPUs.
set -u
R=/tmp/x4c; mkdir -p $R /etc/OpenCL/vendors
echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0
exec > >(tee -a $R/log.txt) 2>&1
pack() { find $R -size -2M -type f | tar czf $OUT/x4c.tgz -T - ; }
for rep in 1 2; do
  echo "== smacof round $rep $(date +%T)"
  timeout 120 python3 benchmarks/mpi/scaling.py --itercl $PWD/.gpu/itercl.new --ranks 1,2,4 --device gpu --sizes issue \
    --algorithms smacof --modes strong,weak --timeout 80 --out $R/mpi-scaling-smacof-$rep
  pack
done
echo "== device tests $(date +%T)"
ITERCL_SOURCE_DIR=$PWD timeout 400 .gpu/itercl_device_tests > $R/device-tests.txt 2>&1; tail -3 $R/device-tests.txt
pack
echo "== end $(date +%T)"
