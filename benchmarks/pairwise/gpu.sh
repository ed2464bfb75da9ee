#!/usr/bin/env bash
# On the GPU machine (the device tool): registers NVIDIA's OpenCL driver, runs the pairwise device tests
# on the GPU (with the real data from .gpu-data), then the pairwise suite on the GPU and on PoCL's CPU
# device, and the peers (PyTorch on the GPU, scipy on the CPU). Results land in $OUT (at most 6 files).
#   BIN: folder holding the itercl and itercl_device_tests binaries built here (default .gpu)
#   DATA: folder holding spce-water-conf.gro, spce-water-rdf-OO.dist.tgt and t10k-images-idx3-ubyte.gz
#         (default .gpu-data); the tests that need them skip with a message when they are absent
#   WHAT: any of tests, gpu, cpu, peers (default "tests gpu cpu peers")
#   SMALL=1: small sizes only (what was run on PoCL here to check the script end to end)
set -euo pipefail
BIN=${BIN:-.gpu}
DATA=${DATA:-.gpu-data}
WHAT=${WHAT:-tests gpu cpu peers}
OUT=${OUT:-/tmp/itercl-out}
mkdir -p "$OUT"
if [[ -w /etc/OpenCL/vendors || $(id -u) -eq 0 ]]; then
  mkdir -p /etc/OpenCL/vendors
  [[ -f /usr/lib/libnvidia-opencl.so.1 ]] && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
fi
"$BIN/itercl" devices | tee "$OUT/devices.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >> "$OUT/devices.txt" 2>/dev/null || true

if [[ ${SMALL:-0} == 1 ]]; then
  GPU_ARGS=(--sizes 500 --max-d 5419 --repeat 2)
  CPU_TABLE=(--sizes 300 --max-d 5419 --groups table --repeat 2)
  CPU_SDH=(--sizes 4096 --groups sdh,pcf --repeat 2)
  PEERS=(--n 500 --d 1000 --sdh-n 16384 --scipy-n 300)
  DEVICE=gpu; "$BIN/itercl" devices | grep -q ' gpu ' || DEVICE=cpu
else
  GPU_ARGS=()
  CPU_TABLE=(--max-n 2000 --max-d 5419 --groups table)
  CPU_SDH=(--max-n 65536 --groups sdh,pcf)
  PEERS=()
  DEVICE=gpu
fi

for what in $WHAT; do
  case $what in
    tests)  # the tests find ../shared/datasets beside ITERCL_SOURCE_DIR: lay the .gpu-data files out so
      src=$(mktemp -d)
      mkdir -p "$src/repo" "$src/shared/datasets/particles" "$src/shared/datasets/vectors"
      for f in spce-water-conf.gro spce-water-rdf-OO.dist.tgt; do
        [[ -f $DATA/$f ]] && ln -s "$(realpath "$DATA/$f")" "$src/shared/datasets/particles/$f"
      done
      [[ -f $DATA/t10k-images-idx3-ubyte.gz ]] && ln -s "$(realpath "$DATA/t10k-images-idx3-ubyte.gz")" "$src/shared/datasets/vectors/"
      ln -s "$PWD/datasets" "$src/repo/datasets"
      ITERCL_DEVICE=$DEVICE ITERCL_SOURCE_DIR=$src/repo "$BIN/itercl_device_tests" \
        -tc="pairwise*,histogram*,pair counts*,rdf*,mnist*,runners*" > "$OUT/gpu-tests.txt" 2>&1 || true
      rm -rf "$src"
      tail -4 "$OUT/gpu-tests.txt" ;;
    gpu)
      python3 benchmarks/pairwise/run.py --itercl "$BIN/itercl" --device $DEVICE --out "$OUT/gpu" "${GPU_ARGS[@]}" >/dev/null
      mv "$OUT/gpu/pairwise.md" "$OUT/gpu.md"; mv "$OUT/gpu/pairwise.json" "$OUT/gpu.json"; rmdir "$OUT/gpu"
      cat "$OUT/gpu.md" ;;
    cpu)  # PoCL on the host's cores: the table's small sizes and the histograms up to 65,536 points
      python3 benchmarks/pairwise/run.py --itercl "$BIN/itercl" --device cpu --out "$OUT/cpu-table" "${CPU_TABLE[@]}" >/dev/null
      python3 benchmarks/pairwise/run.py --itercl "$BIN/itercl" --device cpu --out "$OUT/cpu-sdh" "${CPU_SDH[@]}" >/dev/null
      { cat "$OUT/cpu-table/pairwise.md"; tail -n +4 "$OUT/cpu-sdh/pairwise.md"; } > "$OUT/cpu.md"
      rm -rf "$OUT/cpu-table" "$OUT/cpu-sdh"
      cat "$OUT/cpu.md" ;;
    peers) python3 benchmarks/pairwise/peers.py "${PEERS[@]}" | tee "$OUT/peers.json" ;;
  esac
done
