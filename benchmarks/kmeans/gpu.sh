#!/usr/bin/env bash
# On the GPU machine (the device tool): registers NVIDIA's OpenCL driver, runs the device tests on the
# GPU, then the K-Means suite on the GPU and the peers. Results land in $OUT.
#   BIN: folder holding the itercl and itercl_device_tests binaries built here (default .gpu)
#   WHAT: any of tests, gpu, cpu, peers (default "tests gpu peers")
set -euo pipefail
BIN=${BIN:-.gpu}
WHAT=${WHAT:-tests gpu peers}
OUT=${OUT:-/tmp/itercl-out}
mkdir -p "$OUT" /etc/OpenCL/vendors
echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
"$BIN/itercl" devices | tee "$OUT/devices.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >> "$OUT/devices.txt" || true

for what in $WHAT; do
  case $what in
    tests) ITERCL_DEVICE=gpu ITERCL_SOURCE_DIR=$PWD "$BIN/itercl_device_tests" > "$OUT/gpu-tests.txt" 2>&1 || true
           tail -4 "$OUT/gpu-tests.txt" ;;
    gpu)   python3 benchmarks/kmeans/run.py --itercl "$BIN/itercl" --device gpu --out "$OUT/gpu" ${GROUPS_GPU:+--groups $GROUPS_GPU} >/dev/null
           rm -f "$OUT/gpu/kmeans.csv"; cat "$OUT/gpu/kmeans.md" ;;
    cpu)   python3 benchmarks/kmeans/run.py --itercl "$BIN/itercl" --device cpu --out "$OUT/cpu" ${GROUPS_CPU:+--groups $GROUPS_CPU} >/dev/null
           rm -f "$OUT/cpu/kmeans.csv"; cat "$OUT/cpu/kmeans.md" ;;
    peers) python3 benchmarks/kmeans/peers.py | tee "$OUT/peers.json" ;;
  esac
done
