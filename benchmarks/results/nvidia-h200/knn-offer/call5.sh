#!/usr/bin/env bash
# Every device test on the H200 with the final tree (b382efb: knn's one test a step, point_blocks as vectors).
set -u
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
echo "== tests $(date +%T)"
ITERCL_SOURCE_DIR=$PWD timeout 500 .gpu/itercl_device_tests > $OUT/device-tests.txt 2>&1; tail -4 $OUT/device-tests.txt
grep -B2 -A8 "ERROR" $OUT/device-tests.txt | head -40
echo "== end $(date +%T)"
