#!/usr/bin/env bash
# Issue 13, one H200: where the K-Means assignment's time goes, in a prototype harness (prototype/:
# harness.cpp and kmeans_proto.cl, main's cl/kmeans.cl with three switches; kmeans_gemm.cl as on main).
#   TILE_NORMS=1   a tile's CPI norms staged as vectors beside its -2c (5 vector loads a tile at D = 4,
#                  CPI = 4, where main reads 4 vectors and 4 scalars)
#   UNROLL_TILES=2 the loop over tiles unrolled twice
#   KEEP_FORM=1    the running minimum kept with a select and an fmin instead of a compare and two selects
# and ptxas's register count (-cl-nv-verbose), with -cl-nv-maxrregcount caps. Uniform points, float,
# kernel time by OpenCL events, median of 21; labels compared with assign_naive's. Then main's itercl
# with the defaults (update on the host: the assignment alone), for the harness's scale against the suite's.
set -u
mkdir -p $OUT/r
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
P=.gpu/kproto
d4() {
  for wg in 128 64; do for ppi in 8 16; do
    echo "kmeans_proto.cl assign_tiled $wg $ppi 4 16384"
    echo "kmeans_proto.cl assign_tiled $wg $ppi 4 16384 -D TILE_NORMS=1"
    echo "kmeans_proto.cl assign_tiled $wg $ppi 4 16384 -D UNROLL_TILES=2"
    echo "kmeans_proto.cl assign_tiled $wg $ppi 4 16384 -D KEEP_FORM=1"
    echo "kmeans_proto.cl assign_tiled $wg $ppi 4 16384 -D TILE_NORMS=1 -D UNROLL_TILES=2 -D KEEP_FORM=1"
  done; done
  for ppi in 12 10 6 4; do
    echo "kmeans_proto.cl assign_tiled 128 $ppi 4 16384"
    echo "kmeans_proto.cl assign_tiled 128 $ppi 4 16384 -D TILE_NORMS=1 -D UNROLL_TILES=2 -D KEEP_FORM=1"
  done
  for cap in 64 80 96 128; do
    echo "kmeans_proto.cl assign_tiled 128 8 4 16384 -cl-nv-maxrregcount=$cap"
    echo "kmeans_proto.cl assign_tiled 128 16 4 16384 -cl-nv-maxrregcount=$cap"
  done
  echo "kmeans_proto.cl assign_tiled 128 8 8 16384"
  echo "kmeans_proto.cl assign_tiled 128 8 8 16384 -D TILE_NORMS=1"
  echo "kmeans_proto.cl assign_tiled 128 4 8 16384 -D TILE_NORMS=1 -D KEEP_FORM=1"
  echo "kmeans_proto.cl assign_tiled 256 8 4 16384"
  echo "kmeans_proto.cl assign_expanded 128 4 1 16384"
}
d32() {
  echo "kmeans_proto.cl assign_expanded 128 4 1 16384"
  echo "kmeans_proto.cl assign_expanded 128 3 1 16384"
  echo "kmeans_proto.cl assign_expanded 128 4 1 16384 -cl-nv-maxrregcount=128"
  for l in 16384 32768 45000; do echo "kmeans_proto.cl assign_expanded 128 4 1 $l"; done
  for c in "8 8" "4 8" "8 4" "4 4"; do
    echo "kmeans_gemm.cl assign_gemm 256 $c 0"
    echo "kmeans_gemm.cl assign_gemm 128 $c 0"
  done
  echo "kmeans_gemm.cl assign_gemm 256 8 8 0 -cl-nv-maxrregcount=128"
  echo "kmeans_gemm.cl assign_gemm 256 8 8 0 -cl-nv-maxrregcount=168"
  for ppi in 2 4; do for cpi in 4 8; do
    echo "kmeans_proto.cl assign_tiled 128 $ppi $cpi 16384 -D TILE_NORMS=1"
    echo "kmeans_proto.cl assign_tiled 128 $ppi $cpi 16384 -D TILE_NORMS=1 -D KEEP_FORM=1 -D UNROLL_TILES=2"
    echo "kmeans_proto.cl assign_tiled 128 $ppi $cpi 32768 -D TILE_NORMS=1 -D KEEP_FORM=1"
  done; done
}
echo "== D = 4, N = 4,194,304, K = 300 $(date +%T)"
{ echo "kmeans_proto.cl assign_naive 128 1 1 0"; d4; d4 | head -5; } | timeout 250 $P/harness $P 4194304 4 300 | tee $OUT/r/d4.txt
echo "== D = 32, N = 1,048,576, K = 1,024 $(date +%T)"
{ echo "kmeans_proto.cl assign_naive 128 1 1 0"; d32; } | timeout 200 $P/harness $P 1048576 32 1024 | tee $OUT/r/d32.txt
echo "== main's itercl, defaults, update on the host $(date +%T)"
mkdir -p /tmp/k
km() {
cat > /tmp/k/c.json <<JSON
{"name": "km", "algorithm": "kmeans", "device": "gpu", "precision": "float",
 "data": {"generator": "uniform", "n_features": $2, "n_samples": $3, "random_state": 1},
 "params": {"n_clusters": $4, "init": "random", "n_init": 1, "max_iter": 6, "tol": 0, "random_state": 2,
            "kernel": $1}, "output": "/tmp/k/o.json"}
JSON
timeout 90 .gpu/itercl.main run /tmp/k/c.json --quiet --out /tmp/k/o.json >/dev/null 2>/tmp/k/err && python3 -c 'import json,sys; r=json.load(open("/tmp/k/o.json")); t=r["timings"]["median_iteration"]; print(sys.argv[1], "kernel %.4f wall %.4f ms" % (t["kernel_ms"], t["wall_ms"]))' "$5" || tail -3 /tmp/k/err
}
for rep in 1 2; do
  km '{"update": "host"}' 4 4194304 300 "assign D=4 default"
  km '{"update": "host"}' 32 1048576 1024 "assign D=32 default"
done
echo "== end $(date +%T)"
