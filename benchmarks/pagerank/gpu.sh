#!/usr/bin/env bash
# On the GPU machine (the device tool): registers NVIDIA's OpenCL driver, runs the PageRank device tests
# on the GPU, the PageRank suite on the GPU and on the CPU (PoCL), and the peers (CuPy/cuSPARSE on the
# GPU, scipy on the CPU) in the same run. Results land in $OUT (5 files):
#   devices.txt, gpu-tests.txt, gpu/pagerank.json, cpu/pagerank.json, peers.json
# (benchmarks/pagerank/run.py --render DIR/pagerank.json writes their .csv and .md tables here).
#   BIN:   folder holding the itercl and itercl_device_tests binaries built here (default .gpu)
#   DATA:  folder holding web-NotreDame.tar.gz, wiki-Vote.txt, p2p-Gnutella08.txt, hollins.dat
#          (copies of ../shared/datasets/graphs; default .gpu-data)
#   WHAT:  any of tests, gpu, cpu, peers (default all four)
#   MAX_SCALE: the largest R-MAT scale (default 22); CPU_ITER: iterations per CPU run (default 10)
#   GPU:   the device spec of the GPU runs (default gpu; cpu tries the script on a machine without one)
set -euo pipefail
BIN=${BIN:-.gpu}
DATA=${DATA:-.gpu-data}
WHAT=${WHAT:-tests gpu cpu peers}
MAX_SCALE=${MAX_SCALE:-22}
CPU_ITER=${CPU_ITER:-10}
GPU=${GPU:-gpu}
OUT=${OUT:-/tmp/itercl-out}
mkdir -p "$OUT"
if [[ -w /etc/OpenCL/vendors || ! -e /etc/OpenCL/vendors ]] && [[ -e /usr/lib/libnvidia-opencl.so.1 ]]; then
  mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
fi
"$BIN/itercl" devices | tee "$OUT/devices.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >> "$OUT/devices.txt" 2>/dev/null || true
nproc >> "$OUT/devices.txt"
start=$SECONDS

for what in $WHAT; do
  case $what in
    # The tests find the graphs at $ITERCL_SOURCE_DIR/../shared/datasets/graphs: a folder holding both
    # (src a real folder: '..' after a link to the checkout would lead beside the checkout instead).
    tests) tree=$(mktemp -d)
           mkdir -p "$tree/src" "$tree/shared/datasets" && ln -s "$PWD/datasets" "$tree/src/datasets"
           ln -s "$(realpath "$DATA")" "$tree/shared/datasets/graphs"
           ITERCL_DEVICE=$GPU ITERCL_SOURCE_DIR=$tree/src "$BIN/itercl_device_tests" \
             -ts=pagerank \
             > "$OUT/gpu-tests.txt" 2>&1 || true
           rm -rf "$tree"
           tail -3 "$OUT/gpu-tests.txt" ;;
    gpu)   python3 benchmarks/pagerank/run.py --itercl "$BIN/itercl" --device "$GPU" --data "$DATA" --max-scale "$MAX_SCALE" \
             --out "$OUT/gpu" ${GROUPS_GPU:+--groups $GROUPS_GPU} > /dev/null || echo "gpu: run.py failed" >&2
           rm -f "$OUT/gpu/pagerank.csv" "$OUT/gpu/pagerank.md" ;;
    cpu)   python3 benchmarks/pagerank/run.py --itercl "$BIN/itercl" --device cpu --data "$DATA" --max-scale "$MAX_SCALE" \
             --max-iter "$CPU_ITER" --out "$OUT/cpu" --groups "${GROUPS_CPU:-formats}" > /dev/null || echo "cpu: run.py failed" >&2
           rm -f "$OUT/cpu/pagerank.csv" "$OUT/cpu/pagerank.md" ;;
    peers) scales=$(seq -s, 18 "$MAX_SCALE")
           python3 benchmarks/pagerank/peers.py --data "$DATA" --scales "$scales" > "$OUT/peers.json" || echo "peers failed" >&2 ;;
  esac
  echo "$what done at $((SECONDS - start)) s" >&2
done
