#!/usr/bin/env bash
# On the GPU machine (the device tool): registers NVIDIA's OpenCL driver, runs the SMACOF device tests on
# the GPU, then the SMACOF suite on the GPU and on PoCL's CPU device, and the peers (PyTorch on the GPU,
# scikit-learn on the CPU cores). Results land in $OUT, six files:
#   gpu-tests.txt (devices, then the tests), gpu/smacof.{json,md}, cpu/smacof.{json,md}, peers.json
#   BIN: folder holding the itercl and itercl_device_tests binaries built here (default .gpu);
#   TESTS: the test binary (default $BIN/itercl_device_tests; build/tests/itercl_device_tests in a build tree)
#   WHAT: any of tests, gpu, cpu, peers (default all four)
#   MAX_N_GPU, MAX_N_CPU: the largest N each device runs (default 32768 and 8192)
#   GPU_DEVICE: the device the tests and the "gpu" suite run on (default gpu; cpu to try the script on PoCL)
# No dataset is needed: the suite generates its vectors, and the tests use datasets/ from the checkout.
set -euo pipefail
BIN=${BIN:-.gpu}
TESTS=${TESTS:-$BIN/itercl_device_tests}
WHAT=${WHAT:-tests gpu cpu peers}
OUT=${OUT:-/tmp/itercl-out}
MAX_N_GPU=${MAX_N_GPU:-32768}
MAX_N_CPU=${MAX_N_CPU:-8192}
GPU_DEVICE=${GPU_DEVICE:-gpu}
mkdir -p "$OUT"
if [[ -w /etc/OpenCL/vendors || ! -e /etc/OpenCL/vendors ]] && [[ -e /usr/lib/libnvidia-opencl.so.1 ]]; then
  mkdir -p /etc/OpenCL/vendors
  echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
fi
{
  "$BIN/itercl" devices
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv 2>/dev/null || true
} > "$OUT/gpu-tests.txt"
cat "$OUT/gpu-tests.txt"

for what in $WHAT; do
  case $what in
    tests) ITERCL_DEVICE=$GPU_DEVICE ITERCL_SOURCE_DIR=$PWD "$TESTS" -tc="SMACOF*" \
             >> "$OUT/gpu-tests.txt" 2>&1 || true
           tail -4 "$OUT/gpu-tests.txt" ;;
    gpu)   python3 benchmarks/smacof/run.py --itercl "$BIN/itercl" --device "$GPU_DEVICE" --out "$OUT/gpu" \
             --max-n "$MAX_N_GPU" ${GROUPS_GPU:+--groups $GROUPS_GPU} >/dev/null
           rm -f "$OUT/gpu/smacof.csv"; cat "$OUT/gpu/smacof.md" ;;
    cpu)   python3 benchmarks/smacof/run.py --itercl "$BIN/itercl" --device cpu --out "$OUT/cpu" \
             --max-n "$MAX_N_CPU" --groups "${GROUPS_CPU:-steps,overhead}" >/dev/null
           rm -f "$OUT/cpu/smacof.csv"; cat "$OUT/cpu/smacof.md" ;;
    peers) python3 benchmarks/smacof/peers.py ${PEERS_ARGS:-} | tee "$OUT/peers.json" ;;
  esac
done
