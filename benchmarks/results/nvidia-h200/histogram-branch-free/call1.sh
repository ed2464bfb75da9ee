#!/usr/bin/env bash
# Issue 13, one H200, call 1: the histogram's per-pair work in a prototype harness (prototype/harness.cpp,
# hist_proto.cl: main's cl/pair_histogram.cl with switches), 262,144 uniform 3-D float points, 256 uniform
# buckets, 32 copies of the histogram, 8 of the table, the corrected check, the columns split to 64 groups
# a compute unit; kernel time by OpenCL events, median of 5; counts compared with main's kernel's.
#   ROUND_MAGIC=1  the nearest edge by adding 1.5 * 2^23 to x clamped in float (no float-to-int conversion)
#   NO_WALK=1      no test of the guard against half a bucket (the host knows it: a build option)
#   SPILL_BINS=1   every pair counted, those in no bucket at -1 and N_BINS: no test before the atomic
#   UNROLL_FULL=1  full staged blocks through a loop of constant trip count, unrolled 4 times
#   ARITH=1        the edge's threshold computed, the table read only within rounding of it
#   ROOT=native_sqrt
#   hist_private_2a  two anchors a work-item, each staged point read once for both (off-diagonal only)
# Then main's itercl with the defaults (the suite's scale) and the PTX of each build ($OUT/r/ptx/).
set -u
mkdir -p $OUT/r/ptx
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
B="-D REPLICAS=32 -D TABLE_COPIES=8 -D UNIFORM_GUARD=0"
M="-D ROUND_MAGIC=1 -D NO_WALK=1"
S="$M -D SPILL_BINS=1"
cands() {
  echo "main hist_proto.cl hist_private_balanced diag 256 1 $B"
  echo "magic hist_proto.cl hist_private_balanced diag 256 1 $B -D ROUND_MAGIC=1"
  echo "magic_nowalk hist_proto.cl hist_private_balanced diag 256 1 $B $M"
  echo "mns hist_proto.cl hist_private_balanced diag 256 1 $B $S"
  echo "mns_unroll hist_proto.cl hist_private_balanced diag 256 1 $B $S -D UNROLL_FULL=1"
  echo "mns_native hist_proto.cl hist_private_balanced diag 256 1 $B $S -D ROOT=native_sqrt"
  echo "mns_arith hist_proto.cl hist_private_balanced diag 256 1 $B $S -D ARITH=1"
  echo "mns_arith_unroll hist_proto.cl hist_private_balanced diag 256 1 $B $S -D ARITH=1 -D UNROLL_FULL=1"
  echo "mns_arith_native hist_proto.cl hist_private_balanced diag 256 1 $B $S -D ARITH=1 -D ROOT=native_sqrt"
  echo "mns_arith_tc1 hist_proto.cl hist_private_balanced diag 256 1 -D REPLICAS=32 -D TABLE_COPIES=1 -D UNIFORM_GUARD=0 $S -D ARITH=1"
  echo "mns_tc4 hist_proto.cl hist_private_balanced diag 256 1 -D REPLICAS=32 -D TABLE_COPIES=4 -D UNIFORM_GUARD=0 $S"
  echo "mns_r16 hist_proto.cl hist_private_balanced diag 256 1 -D REPLICAS=16 -D TABLE_COPIES=8 -D UNIFORM_GUARD=0 $S"
  echo "mns_arith_r16 hist_proto.cl hist_private_balanced diag 256 1 -D REPLICAS=16 -D TABLE_COPIES=8 -D UNIFORM_GUARD=0 $S -D ARITH=1"
  echo "mns_wg128 hist_proto.cl hist_private_balanced diag 128 1 $B $S"
  echo "mns_arith_wg128 hist_proto.cl hist_private_balanced diag 128 1 $B $S -D ARITH=1"
  echo "arith_nospill hist_proto.cl hist_private_balanced diag 256 1 $B $M -D ARITH=1"
  echo "off_main hist_proto.cl hist_private_balanced off 256 1 $B"
  echo "off_mns hist_proto.cl hist_private_balanced off 256 1 $B $S"
  echo "off_mns_arith hist_proto.cl hist_private_balanced off 256 1 $B $S -D ARITH=1"
  echo "off_2a_main hist_proto.cl hist_private_2a off 256 2 $B"
  echo "off_2a_mns hist_proto.cl hist_private_2a off 256 2 $B $S"
  echo "off_2a_mns_arith hist_proto.cl hist_private_2a off 256 2 $B $S -D ARITH=1"
  echo "off_2a_mns_arith_wg128 hist_proto.cl hist_private_2a off 128 2 $B $S -D ARITH=1"
}
for rep in 1 2; do
  echo "== round $rep $(date +%T)"
  cands | timeout 200 .gpu/hproto/harness .gpu/hproto 262144 $OUT/r/ptx
done
echo "== main's itercl, defaults $(date +%T)"
mkdir -p /tmp/h
cat > /tmp/h/c.json <<JSON
{"name": "h", "algorithm": "distance_histogram", "device": "gpu", "precision": "float",
 "data": {"generator": "uniform", "n_features": 3, "n_samples": 262144, "random_state": 1},
 "params": {"bins": 256, "range": [0, 1.7320508075688772]}, "output": "/tmp/h/o.json"}
JSON
for rep in 1 2; do
  timeout 60 .gpu/itercl.main run /tmp/h/c.json --quiet --out /tmp/h/o.json >/dev/null 2>&1 && python3 -c 'import json; r=json.load(open("/tmp/h/o.json")); print("itercl main: kernel %.2f ms" % r["timings"]["total"]["kernel_ms"])'
done
echo "== end $(date +%T)"
