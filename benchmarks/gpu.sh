#!/usr/bin/env bash
# What runs on the GPU machine (through the device tool), in one call or several: registers NVIDIA's
# OpenCL driver, then runs the steps of $WHAT in order, and packs what they wrote into $OUT/results.tgz
# (unpacked here into benchmarks/results/: gpu/ -> nvidia-h200/, cpu/ -> pocl-xeon-16-cores/,
# core/ -> pocl-xeon-1-core/, tuning/ -> the tuning database entries). A suite's run goes to
# <card>/suites/<suite>.json, replacing the card's last: the report (benchmarks/report.py) is made from those.
#
#   BIN   the itercl and itercl_device_tests binaries built here (default .gpu), and the ViennaCL peer
#         viennacl_pagerank where ViennaCL was found (the PageRank suite finds it through ITERCL_BIN)
#   REPEAT timed runs per bench case (default 2, after one warm-up); CPU_REPEAT for the CPU steps
#   GPU_GROUPS, CPU_GROUPS the groups a gpu:SUITE or cpu:SUITE step runs (default: all; the whole
#         PageRank suite takes more than one call's 10 minutes on the H200)
#   WHAT  steps, any of:
#         tests              the device tests on the GPU (data from .gpu-data/datasets)
#         gpu:SUITE          benchmarks/SUITE/suite.json on the GPU, with the suite's peers
#         cpu:SUITE          the same on PoCL's CPU device, sizes capped by cpu_limits below
#         core:SUITE         its baseline groups on one CPU core (for speedups)
#         tune:KERNEL:DEVICE itercl tune on gpu or cpu, with the benchmark's problem size
set -euo pipefail
BIN=${BIN:-.gpu}
export ITERCL_BIN=${ITERCL_BIN:-$PWD/$BIN}
# The peers need NumPy, PyTorch, SciPy: the GPU machine has them in the python3 on its PATH, not in the
# /usr/bin/python3 the binary was configured with here.
export ITERCL_PYTHON=${ITERCL_PYTHON:-$(command -v python3)}
REPEAT=${REPEAT:-2}
OUT=${OUT:-/tmp/itercl-out}
res=$(mktemp -d)
mkdir -p "$OUT" /etc/OpenCL/vendors "$res/gpu/suites" "$res/cpu/suites" "$res/core/suites" "$res/tuning"
exec > >(tee -a "$res/log.txt") 2>&1  # the log travels with the results, even from a call cut short
[[ -f /usr/lib/libnvidia-opencl.so.1 ]] && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
# The tests look for ../shared/datasets beside the checkout, as in CI.
if [[ -d .gpu-data/datasets && ! -e ../shared/datasets ]]; then mkdir -p ../shared && cp -r .gpu-data/datasets ../shared/; fi
{ "$BIN/itercl" devices; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } \
  > "$res/devices.txt" 2>&1 || true

cpu_limits() {  # sizes PoCL on 16 cores finishes within the call
  case $1 in
    smacof) echo "--limit data.n_samples=8192" ;;
    pairwise) echo "--limit data.n_features=5419 --limit data.n_samples=6000" ;;  # table: to n = 6,000; no knn
    pair_histogram) echo "--limit data.n_samples=65536" ;;
    pagerank) echo "--limit data.scale=20" ;;
    kmeans) echo "--limit data.n_samples=1048576" ;;
    *) echo "" ;;
  esac
}
tune_problem() {  # the benchmark's size on the GPU; on the CPU, what 16 cores tune in a minute or two
  case $1:$2 in
    kmeans:gpu) echo '{"n_samples": 4194304}' ;;
    kmeans:cpu) echo '{"n_samples": 1048576}' ;;
    smacof:cpu) echo '{"n_samples": 2048}' ;;
    pagerank:cpu) echo '{"scale": 18}' ;;
    pairwise:cpu) echo '{"n_samples": 1024, "n_features": 128}' ;;
    pair_histogram:cpu) echo '{"n_samples": 16384}' ;;
    *) echo '{}' ;;  # the tuner's own default
  esac
}
baseline_groups() { grep -o '"name": "baseline[a-z_]*"' "benchmarks/$1/suite.json" | cut -d'"' -f4 | paste -sd, -; }

for step in ${WHAT:-tests}; do
  IFS=: read -r kind name device <<<"$step"
  echo "== $step ($(date +%T))"
  case $kind in
    tests) ITERCL_DEVICE=gpu ITERCL_SOURCE_DIR=$PWD "$BIN/itercl_device_tests" > "$res/gpu/device-tests.txt" 2>&1 || true
           tail -3 "$res/gpu/device-tests.txt" ;;
    # A suite with failed cases exits 1 but has recorded them: the next steps still run.
    gpu)   "$BIN/itercl" bench "benchmarks/$name/suite.json" --device gpu --repeat "$REPEAT" \
             ${GPU_GROUPS:+--groups "$GPU_GROUPS"} --out "$res/gpu/suites/$name.json" 2>&1 | tail -2 || true ;;
    cpu)   "$BIN/itercl" bench "benchmarks/$name/suite.json" --device cpu --repeat "${CPU_REPEAT:-$REPEAT}" --no-peers \
             $(cpu_limits "$name") ${CPU_GROUPS:+--groups "$CPU_GROUPS"} --out "$res/cpu/suites/$name.json" 2>&1 | tail -2 || true ;;
    core)  POCL_CPU_MAX_CU_COUNT=1 POCL_MAX_PTHREAD_COUNT=1 "$BIN/itercl" bench "benchmarks/$name/suite.json" \
             --device cpu --repeat "${CPU_REPEAT:-$REPEAT}" --no-peers --groups "$(baseline_groups "$name")" \
             --out "$res/core/suites/$name.json" 2>&1 | tail -2 || true ;;
    tune)  "$BIN/itercl" tune "$name" --device "$device" --problem "$(tune_problem "$name" "$device")" --repeat 5 --out "$res/tuning" \
             > "$res/tuning/$name-$device.txt" 2>&1 || true
           tail -3 "$res/tuning/$name-$device.txt" ;;
    *) echo "unknown step $step" >&2; exit 2 ;;
  esac
  tar czf "$OUT/results.tgz" -C "$res" .  # after every step, so a call cut short keeps what it finished
done
