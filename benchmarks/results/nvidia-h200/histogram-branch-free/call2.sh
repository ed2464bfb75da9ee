#!/usr/bin/env bash
# Issue 13, one H200 and its 16 Xeon cores, call 2: the histogram's per-pair work, in the library.
#   main  main's binary (93f7f6e)
#   new   the branch: the walk past the nearest edge a build option (UNIFORM_WALK, the host's choice),
#         and the private histogram's two buckets for the pairs in none (every increment unconditional)
# Uniform 3-D points in the unit cube (random_state 1), float, kernel time of the whole run, three rounds
# interleaved on the GPU, the defaults a user gets; PyTorch in the same call. Then the prototype harness
# (call 1's) for the nearest edge by a float-to-int conversion (the branch's) against call 1's rounding by
# adding 1.5 * 2^23; PoCL on the 16 cores (65,536 points, two rounds); the pair-histogram device tests.
set -u
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
mkdir -p /tmp/h $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
R20='[0.05,0.1,0.15,0.2,0.25,0.3,0.35,0.4,0.45,0.5,0.55,0.6,0.65,0.7,0.75,0.8,0.85,0.9,0.95,1.0]'
SDH='{"bins": 256, "range": [0, 1.7320508075688772]}'
cfg() {  # cfg <device> <algorithm> <n> <params json>
cat > /tmp/h/c.json <<JSON
{"name": "h", "algorithm": "$2", "device": "$1", "precision": "float",
 "data": {"generator": "uniform", "n_features": 3, "n_samples": $3, "random_state": 1},
 "params": $4, "output": "/tmp/h/o.json"}
JSON
}
show() { python3 -c 'import json,sys; r=json.load(open("/tmp/h/o.json")); t=r["timings"]["total"]; c=r["result"]["counts"]; o=r["kernel"]["build_options"]; print(sys.argv[1], "kernel %.2f ms wall %.2f" % (t["kernel_ms"], t["wall_ms"]), "counts sum %d last %d" % (sum(c), c[-1]), o[o.find("BINNING"):].split(" -D")[0], "WALK" in o and o[o.find("UNIFORM_WALK"):].split(" -D")[0] or "")' "$1"; }
one() {  # one <device> <label> <binary> <algorithm> <n> <params>
  cfg "$1" "$4" "$5" "$6"
  timeout 120 .gpu/itercl.$3 run /tmp/h/c.json --quiet --out /tmp/h/o.json >/dev/null 2>/tmp/h/err && show "$1 $2 $3 n=$5" || { echo "$1 $2 $3 FAILED"; tail -3 /tmp/h/err; }
}
for rep in 1 2 3; do
  echo "== round $rep $(date +%T)"
  for n in 262144 1048576; do
    for v in main new; do one gpu sdh $v distance_histogram $n "$SDH"; done
    for v in main new; do one gpu r20 $v pair_counts $n "{\"radii\": $R20}"; done
  done
  for v in main new; do one gpu r1 $v pair_counts 262144 '{"radii": [0.1]}'; done
done
echo "== PyTorch $(date +%T)"
timeout 150 python3 benchmarks/pair_histogram/peers.py --n 262144 --bins 256 --radii 1 20 > $OUT/r/torch-262144.json 2>&1; grep -o '"workload": "[^"]*", "ms": [0-9.]*' $OUT/r/torch-262144.json
echo "== prototype: the nearest edge by conversion or by 1.5 * 2^23 $(date +%T)"
B="-D REPLICAS=32 -D TABLE_COPIES=8 -D UNIFORM_GUARD=0"
for rep in 1 2; do
  printf '%s\n' "main hist_proto.cl hist_private_balanced diag 256 1 $B" \
    "nowalk_spill hist_proto.cl hist_private_balanced diag 256 1 $B -D NO_WALK=1 -D SPILL_BINS=1" \
    "mns hist_proto.cl hist_private_balanced diag 256 1 $B -D ROUND_MAGIC=1 -D NO_WALK=1 -D SPILL_BINS=1" \
    "nowalk_spill_r16 hist_proto.cl hist_private_balanced diag 256 1 -D REPLICAS=16 -D TABLE_COPIES=8 -D UNIFORM_GUARD=0 -D NO_WALK=1 -D SPILL_BINS=1" \
    | timeout 100 .gpu/hproto/harness .gpu/hproto 262144 /tmp/h | grep -v ptxas
done
echo "== PoCL, 16 cores $(date +%T)"
for rep in 1 2; do
  for v in main new; do one cpu sdh $v distance_histogram 65536 "$SDH"; done
  for v in main new; do one cpu r20 $v pair_counts 65536 "{\"radii\": $R20}"; done
done
echo "== device tests $(date +%T)"
ITERCL_DEVICE=gpu ITERCL_SOURCE_DIR=$PWD timeout 300 .gpu/itercl_device_tests --source-file="*pair_histogram*" > $OUT/r/device-tests.txt 2>&1; tail -3 $OUT/r/device-tests.txt
echo "== end $(date +%T)"
