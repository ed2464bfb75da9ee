#!/usr/bin/env bash
# Issue 13, the committed tree (486c809): K-Means on PoCL 5.0 on the 16 Xeon cores with the suite's peers
# (shapes, lloyd_cpu, assign_cpu), and the K-Means device tests on the H200 and on those cores.
set -u
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
mkdir -p $OUT/r
echo "== bench $(date +%T)"
timeout 330 .gpu/itercl bench benchmarks/kmeans/suite.json --device cpu --groups shapes lloyd_cpu assign_cpu --out $OUT/r/kmeans.json --progress plain 2>&1 | tail -45
echo "== device tests, H200 $(date +%T)"
ITERCL_SOURCE_DIR=$PWD timeout 120 .gpu/itercl_device_tests --source-file="*kmeans*" > $OUT/r/device-tests-kmeans-h200.txt 2>&1; tail -3 $OUT/r/device-tests-kmeans-h200.txt
echo "== device tests, PoCL 16 cores $(date +%T)"
ITERCL_DEVICE=cpu ITERCL_SOURCE_DIR=$PWD timeout 100 .gpu/itercl_device_tests -tc="point_blocks*,every variant matches*" > $OUT/r/device-tests-kmeans-cpu16.txt 2>&1; tail -3 $OUT/r/device-tests-kmeans-cpu16.txt
echo "== end $(date +%T)"
