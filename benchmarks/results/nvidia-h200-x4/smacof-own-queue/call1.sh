#!/usr/bin/env bash
# Issue 16 on nvidia-h200-x4: SMACOF's own slices on a queue of their own (the rest of the pass starts
# beside them after the exchange), against main's one queue, at 1, 2 and 4 ranks (n = 65,536, float, strong
# and weak), two rounds interleaved (the second strong only); the distance histogram (4 M points) at 1, 2 and 4 ranks with main's binary
# and the branch's (its columns now split among work-groups); the device tests of SMACOF over ranks and of
# busy time on one GPU with the branch's binary.
#   base  main (4580c3f)
#   new   the branch
set -u
R=/tmp/x4; mkdir -p $R /etc/OpenCL/vendors
echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0
exec > >(tee -a $R/log.txt) 2>&1
pack() { find $R -size -2M -type f | tar czf $OUT/x4.tgz -T - ; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for rep in 1 2; do for v in base new; do
  echo "== smacof $v round $rep $(date +%T)"
  modes=strong,weak; [ $rep = 2 ] && modes=strong
  timeout 200 python3 benchmarks/mpi/scaling.py --itercl $PWD/.gpu/itercl.$v --ranks 1,2,4 --device gpu --sizes issue \
    --algorithms smacof --modes $modes --timeout 80 --out $R/smacof-$v-$rep
  pack
done; done
for v in base new; do
  echo "== histogram $v $(date +%T)"
  timeout 150 python3 benchmarks/mpi/scaling.py --itercl $PWD/.gpu/itercl.$v --ranks 1,2,4 --device gpu --sizes issue \
    --algorithms histogram --modes strong --timeout 80 --out $R/histogram-$v
  pack
done
echo "== device tests $(date +%T)"
ITERCL_SOURCE_DIR=$PWD timeout 240 .gpu/itercl_device_tests -tc="SMACOF over ranks*,busy time*" > $R/device-tests-smacof.txt 2>&1; tail -3 $R/device-tests-smacof.txt
pack
echo "== end $(date +%T)"
