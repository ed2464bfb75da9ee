#!/usr/bin/env bash
# Issue 13, one H200, call 1: the pair histogram's column splits and copies of the edge table.
#   base  main (4580c3f)
#   new   the working tree: a rectangle's columns split among work-groups (groups_per_unit, gpu), the edge
#         table staged in copies (table_copies, tc)
# Uniform 3-D points in the unit cube, float, kernel time of the whole run (OpenCL events), three rounds
# interleaved: the distance histogram (256 buckets over [0, sqrt 3]), 20 radii (0.05 .. 1.0), 1 radius
# (0.1), at 262,144 points, and the candidates again at 1,048,576; PyTorch at 262,144; the pair-histogram
# device tests with the new binary.
set -u
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
mkdir -p /tmp/h $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
R20='[0.05,0.1,0.15,0.2,0.25,0.3,0.35,0.4,0.45,0.5,0.55,0.6,0.65,0.7,0.75,0.8,0.85,0.9,0.95,1.0]'
# cfg <algorithm> <n> <params json> <kernel json>
cfg() {
cat > /tmp/h/c.json <<JSON
{"name": "h", "algorithm": "$1", "device": "gpu", "precision": "float",
 "data": {"generator": "uniform", "n_features": 3, "n_samples": $2, "random_state": 1},
 "params": $3, "output": "/tmp/h/o.json"}
JSON
python3 - "$4" <<'PY'
import json, sys
c = json.load(open("/tmp/h/c.json")); c["params"]["kernel"] = json.loads(sys.argv[1]); json.dump(c, open("/tmp/h/c.json", "w"))
PY
}
show() { python3 -c 'import json,sys; r=json.load(open("/tmp/h/o.json")); t=r["timings"]["total"]; k=r["kernel"]["tuning"]; c=r["result"]["counts"]; print(sys.argv[1], "kernel %.2f ms wall %.2f" % (t["kernel_ms"], t["wall_ms"]), "counts sum %d last %d" % (sum(c), c[-1]), json.dumps({x: k.get(x) for x in ("work_group_size","replicas","table_copies","groups_per_unit","uniform_check")}))' "$1"; }
one() {  # one <label> <binary> <algorithm> <n> <params> <kernel>
  cfg "$3" "$4" "$5" "$6"
  timeout 120 .gpu/itercl.$2 run /tmp/h/c.json --quiet --out /tmp/h/o.json >/dev/null 2>/tmp/h/err && show "$1 $2 n=$4 $6" || { echo "$1 $2 $6 FAILED"; tail -3 /tmp/h/err; }
}
SDH='{"bins": 256, "range": [0, 1.7320508075688772]}'
for rep in 1 2 3; do
  echo "== round $rep $(date +%T)"
  one sdh base distance_histogram 262144 "$SDH" '{}'
  for g in 1 8 16 32 64 128; do for tc in 1 8; do
    one sdh new distance_histogram 262144 "$SDH" "{\"groups_per_unit\": $g, \"table_copies\": $tc}"
  done; done
  one sdh new distance_histogram 262144 "$SDH" '{"groups_per_unit": 32, "table_copies": 8, "uniform_check": "guarded"}'
  one r20 base pair_counts 262144 "{\"radii\": $R20}" '{}'
  for g in 1 32 64; do for tc in 1 8 32; do
    one r20 new pair_counts 262144 "{\"radii\": $R20}" "{\"groups_per_unit\": $g, \"table_copies\": $tc}"
  done; done
  one r1 base pair_counts 262144 '{"radii": [0.1]}' '{}'
  for g in 1 32 64; do one r1 new pair_counts 262144 '{"radii": [0.1]}' "{\"groups_per_unit\": $g}"; done
done
for rep in 1 2; do
  echo "== 1,048,576 points, round $rep $(date +%T)"
  one sdh base distance_histogram 1048576 "$SDH" '{}'
  for g in 1 16 64; do one sdh new distance_histogram 1048576 "$SDH" "{\"groups_per_unit\": $g, \"table_copies\": 8}"; done
  one r20 base pair_counts 1048576 "{\"radii\": $R20}" '{}'
  for g in 1 16 64; do one r20 new pair_counts 1048576 "{\"radii\": $R20}" "{\"groups_per_unit\": $g, \"table_copies\": 32}"; done
done
timeout 120 python3 benchmarks/pair_histogram/peers.py --n 262144 --bins 256 --radii 1 20 > $OUT/r/torch-262144.json 2>&1; grep -o '"workload": "[^"]*", "ms": [0-9.]*' $OUT/r/torch-262144.json
ITERCL_SOURCE_DIR=$PWD timeout 300 .gpu/itercl_device_tests --source-file="*pair_histogram*" > $OUT/r/device-tests-pair-histogram.txt 2>&1; tail -4 $OUT/r/device-tests-pair-histogram.txt
echo "== end $(date +%T)"
