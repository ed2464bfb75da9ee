#!/usr/bin/env bash
# Issue 13, one H200 and its 16 Xeon cores, call 5: the lookup's slack narrowed from a whole cell to what
# the device's rounding of the cell index can reach (at least 1/64 of a cell), so that radii as uneven as
# these take 1 step instead of 2.
#   main   main's binary (93f7f6e)
#   steps  call 4's (e01d3da: a cell's slack above and below)
#   slack  this branch
# 262,144 uniform 3-D points in the unit cube, float, kernel time of the whole run, two rounds; 20 radii
# 0.05 .. 1.0 by the lookup (even_edges lookup; 1 step), the same with every third moved by 0.01 (the
# lookup by default; 2 steps in call 4, 1 now), 20 logarithmic radii 0.001 .. 1 (12-13 steps: the loop). PoCL on the 16
# cores (65,536 points), whose default takes the lookup for evenly spaced radii too. The device tests.
set -u
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
mkdir -p /tmp/h $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
R20='[0.05,0.1,0.15,0.2,0.25,0.3,0.35,0.4,0.45,0.5,0.55,0.6,0.65,0.7,0.75,0.8,0.85,0.9,0.95,1.0]'
U20=$(python3 -c 'print([round(0.05 * (k + 1) + (0.01 if k % 3 == 0 else 0), 4) for k in range(20)])')
L20=$(python3 -c 'print([0.001 * 1000 ** (k / 19) for k in range(20)])')
cfg() {  # cfg <device> <n> <params json>
cat > /tmp/h/c.json <<JSON
{"name": "h", "algorithm": "pair_counts", "device": "$1", "precision": "float",
 "data": {"generator": "uniform", "n_features": 3, "n_samples": $2, "random_state": 1},
 "params": $3, "output": "/tmp/h/o.json"}
JSON
}
show() { python3 -c 'import json,sys; r=json.load(open("/tmp/h/o.json")); t=r["timings"]["total"]; c=r["result"]["counts"]; o=r["kernel"]["build_options"]; print(sys.argv[1], "kernel %.2f ms wall %.2f" % (t["kernel_ms"], t["wall_ms"]), "counts sum %d last %d" % (sum(c), c[-1]), o[o.find("BINNING"):].split(" -D")[0], "STEPS" in o and o[o.find("LOOKUP_STEPS"):].split(" -D")[0] or "")' "$1"; }
one() {  # one <device> <label> <binary> <n> <params>
  cfg "$1" "$4" "$5"
  timeout 120 .gpu/itercl.$3 run /tmp/h/c.json --quiet --out /tmp/h/o.json >/dev/null 2>/tmp/h/err && show "$1 $2 $3 n=$4" || { echo "$1 $2 $3 FAILED"; tail -3 /tmp/h/err; }
}
for rep in 1 2; do
  echo "== round $rep $(date +%T)"
  for v in main steps slack; do one gpu r20-lookup $v 262144 "{\"radii\": $R20, \"kernel\": {\"even_edges\": \"lookup\"}}"; done
  for v in main steps slack; do one gpu uneven20 $v 262144 "{\"radii\": $U20}"; done
  for v in main steps slack; do one gpu log20 $v 262144 "{\"radii\": $L20}"; done
done
echo "== PoCL, 16 cores $(date +%T)"
for rep in 1 2; do
  for v in main slack; do one cpu r20 $v 65536 "{\"radii\": $R20}"; done
  for v in main slack; do one cpu uneven20 $v 65536 "{\"radii\": $U20}"; done
done
echo "== device tests $(date +%T)"
ITERCL_DEVICE=gpu ITERCL_SOURCE_DIR=$PWD timeout 300 .gpu/itercl_device_tests --source-file="*pair_histogram*" > $OUT/r/device-tests.txt 2>&1; tail -3 $OUT/r/device-tests.txt
echo "== end $(date +%T)"
