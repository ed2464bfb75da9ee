#!/usr/bin/env bash
# Issue 13, one H200: call 1 found the tile loop unrolled twice faster (0.351 -> 0.328 ms with 8 points
# a work-item) and 10 points with all three switches at 0.303. This call separates the switches at 8 to
# 16 points, tries unrolling 4 times, and the unroll in expanded (CPI = 1) at D = 32. Same harness.
set -u
mkdir -p $OUT/r
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
P=.gpu/kproto
d4() {
  for ppi in 8 10 12 16; do for wg in 128 64; do
    for s in "" "-D UNROLL_TILES=2" "-D UNROLL_TILES=2 -D TILE_NORMS=1" "-D UNROLL_TILES=2 -D KEEP_FORM=1" \
             "-D UNROLL_TILES=2 -D TILE_NORMS=1 -D KEEP_FORM=1" "-D UNROLL_TILES=4" "-D UNROLL_TILES=4 -D TILE_NORMS=1 -D KEEP_FORM=1"; do
      echo "kmeans_proto.cl assign_tiled $wg $ppi 4 16384 $s"
    done
  done; done
  for ppi in 9 11 14; do
    echo "kmeans_proto.cl assign_tiled 128 $ppi 4 16384 -D UNROLL_TILES=2"
    echo "kmeans_proto.cl assign_tiled 128 $ppi 4 16384 -D UNROLL_TILES=2 -D TILE_NORMS=1 -D KEEP_FORM=1"
  done
}
echo "== D = 4, N = 4,194,304, K = 300 $(date +%T)"
{ echo "kmeans_proto.cl assign_naive 128 1 1 0"; d4; echo "kmeans_proto.cl assign_tiled 128 10 4 16384 -D UNROLL_TILES=2 -D TILE_NORMS=1 -D KEEP_FORM=1"; echo "kmeans_proto.cl assign_tiled 128 16 4 16384"; } | timeout 300 $P/harness $P 4194304 4 300 | grep -v "stack frame" | tee $OUT/r/d4.txt | grep -v ptxas
echo "== D = 32, N = 1,048,576, K = 1,024 $(date +%T)"
{ echo "kmeans_proto.cl assign_naive 128 1 1 0"
  for u in 1 2 4; do for l in 16384 45000; do echo "kmeans_proto.cl assign_expanded 128 4 1 $l -D UNROLL_TILES=$u"; done; done
  echo "kmeans_proto.cl assign_expanded 128 4 1 16384"; } | timeout 120 $P/harness $P 1048576 32 1024 | grep -v "stack frame" | tee $OUT/r/d32.txt | grep -v ptxas
echo "== end $(date +%T)"
