#!/usr/bin/env bash
# Issue 13, one H200, call 2: the pair histogram's defaults, before and after.
#   base  main (4580c3f)
#   new   the branch with its tuning entry: columns split to 64 work-groups per compute unit, 32 copies of
#         the edge table halved until they fit
# Uniform 3-D points in the unit cube, float, kernel time of the whole run (OpenCL events), no kernel
# parameter set (what a user gets), three rounds interleaved: the distance histogram (256 buckets over
# [0, sqrt 3]), 20 radii (0.05 .. 1.0), 1 radius (0.1), at 262,144 and 1,048,576 points; PyTorch at
# 262,144; the pair-histogram device tests with the new binary.
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
  for n in 262144 1048576; do for v in base new; do
    one sdh $v distance_histogram $n "$SDH" '{}'
    one r20 $v pair_counts $n "{\"radii\": $R20}" '{}'
    one r1 $v pair_counts $n '{"radii": [0.1]}' '{}'
  done; done
done
timeout 120 python3 benchmarks/pair_histogram/peers.py --n 262144 --bins 256 --radii 1 20 > $OUT/r/torch-262144.json 2>&1; grep -o '"workload": "[^"]*", "ms": [0-9.]*' $OUT/r/torch-262144.json
ITERCL_SOURCE_DIR=$PWD timeout 300 .gpu/itercl_device_tests --source-file="*pair_histogram*" > $OUT/r/device-tests-pair-histogram.txt 2>&1; tail -4 $OUT/r/device-tests-pair-histogram.txt
echo "== end $(date +%T)"
